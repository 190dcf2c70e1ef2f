"""Roll Builder's rejections, each with a stable code.

Exception tree (below :class:`engine.errors.Rejection`)::

    Rejection
    ├── GameOver            game/over          (engine)
    ├── NotASeat            game/no_such_seat  (engine)
    └── RollBuilderRejection roll_builder/rejected
        ├── AlreadyDone        roll_builder/already_done
        ├── NoSuchDie          roll_builder/no_such_die
        ├── DieAlreadyUsed     roll_builder/die_used
        ├── BadAction          roll_builder/bad_action
        ├── BadShift           roll_builder/bad_shift
        ├── NoRoadsLeft        roll_builder/no_roads_left
        ├── NoSuchEdge         roll_builder/no_such_edge
        ├── RoadTaken          roll_builder/road_taken
        ├── RoadForbidden      roll_builder/road_forbidden
        ├── NotConnected       roll_builder/not_connected
        ├── NoSuchBuilding     roll_builder/no_such_building
        ├── NoBuildAction      roll_builder/no_build_action
        ├── NoSuchSpace        roll_builder/no_such_space
        ├── NotBuildable       roll_builder/not_buildable
        ├── SpaceTaken         roll_builder/space_taken
        ├── NoSuchBox          roll_builder/no_such_box
        ├── BoxFilled          roll_builder/box_filled
        ├── NoWonderAction     roll_builder/no_wonder_action
        ├── BoxUnavailable     roll_builder/box_unavailable
        ├── NothingToMark      roll_builder/nothing_to_mark
        ├── AlreadyMarked      roll_builder/already_marked
        ├── NoSuchInnovation   roll_builder/no_such_innovation
        ├── NoSuchCircle       roll_builder/no_such_circle
        ├── CirclePaid         roll_builder/circle_paid
        ├── CannotPay          roll_builder/cannot_pay
        ├── NotEnough          roll_builder/not_enough
        ├── NotConvertible     roll_builder/not_convertible
        └── TrackFull          roll_builder/track_full
"""

from __future__ import annotations

from engine.errors import Rejection


class RollBuilderRejection(Rejection):
    """A command Roll Builder's rules refuse."""

    code = "roll_builder/rejected"


class AlreadyDone(RollBuilderRejection):
    """The seat has finished this turn; wait for the next roll."""

    code = "roll_builder/already_done"


class NoSuchDie(RollBuilderRejection):
    """There are two action dice: 0 and 1."""

    code = "roll_builder/no_such_die"


class DieAlreadyUsed(RollBuilderRejection):
    """This die is already crossed off this turn."""

    code = "roll_builder/die_used"


class BadAction(RollBuilderRejection):
    """An action die is used for road, build or wonder."""

    code = "roll_builder/bad_action"


class BadShift(RollBuilderRejection):
    """The die cannot be shifted like that (no ability, used already, or off 1-6)."""

    code = "roll_builder/bad_shift"


class NoRoadsLeft(RollBuilderRejection):
    """No roads are left to place this turn."""

    code = "roll_builder/no_roads_left"


class NoSuchEdge(RollBuilderRejection):
    """The edge is not on this city sheet (or is cut off by its border)."""

    code = "roll_builder/no_such_edge"


class RoadTaken(RollBuilderRejection):
    """There is a road on this edge already."""

    code = "roll_builder/road_taken"


class RoadForbidden(RollBuilderRejection):
    """The city or the event forbids roads on this kind of edge."""

    code = "roll_builder/road_forbidden"


class NotConnected(RollBuilderRejection):
    """The road or space does not touch the road network."""

    code = "roll_builder/not_connected"


class NoSuchBuilding(RollBuilderRejection):
    """Buildings are numbered 1 to 6."""

    code = "roll_builder/no_such_building"


class NoBuildAction(RollBuilderRejection):
    """No building action allows this building now."""

    code = "roll_builder/no_build_action"


class NoSuchSpace(RollBuilderRejection):
    """There is no space there on this city sheet."""

    code = "roll_builder/no_such_space"


class NotBuildable(RollBuilderRejection):
    """Buildings go on full land spaces only."""

    code = "roll_builder/not_buildable"


class SpaceTaken(RollBuilderRejection):
    """This space already has a building mark."""

    code = "roll_builder/space_taken"


class NoSuchBox(RollBuilderRejection):
    """The wonder has no such box."""

    code = "roll_builder/no_such_box"


class BoxFilled(RollBuilderRejection):
    """This wonder box is already filled."""

    code = "roll_builder/box_filled"


class NoWonderAction(RollBuilderRejection):
    """No wonder action allows this box now."""

    code = "roll_builder/no_wonder_action"


class BoxUnavailable(RollBuilderRejection):
    """This box is not available yet (grey, or the boxes it needs are empty)."""

    code = "roll_builder/box_unavailable"


class NothingToMark(RollBuilderRejection):
    """This space shows nothing to gain."""

    code = "roll_builder/nothing_to_mark"


class AlreadyMarked(RollBuilderRejection):
    """This space is already crossed with an X."""

    code = "roll_builder/already_marked"


class NoSuchInnovation(RollBuilderRejection):
    """This city has no such innovation."""

    code = "roll_builder/no_such_innovation"


class NoSuchCircle(RollBuilderRejection):
    """The innovation has no such cost circle."""

    code = "roll_builder/no_such_circle"


class CirclePaid(RollBuilderRejection):
    """This cost circle is already crossed off."""

    code = "roll_builder/circle_paid"


class CannotPay(RollBuilderRejection):
    """This resource cannot pay this circle."""

    code = "roll_builder/cannot_pay"


class NotEnough(RollBuilderRejection):
    """You have none of this resource to spend."""

    code = "roll_builder/not_enough"


class NotConvertible(RollBuilderRejection):
    """Only favor and strength convert, one or more at a time, from this turn's pool."""

    code = "roll_builder/not_convertible"


class TrackFull(RollBuilderRejection):
    """The track has no space left for that many conversions."""

    code = "roll_builder/track_full"
