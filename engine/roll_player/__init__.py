"""Roll Player (Thunderworks Games) as a pure engine: registered as ``roll-player``.

Modules, in the shape every game shares (see :mod:`engine.core`): ``game`` (the
contract object), ``model`` (the state), ``commands``, ``events``, ``setup`` (options,
the setup event, setup decisions), ``decide``, ``evolve``, ``legal``, ``view``, ``scoring``,
``bots``, ``search``, ``errors`` and ``content`` (the data file ``content/base.json``,
validated at import; its shapes in ``content/shapes.py``). Roll Player's own:
``rounds`` and ``market`` (the decisions of a round's phases), ``flow`` (the automatic
steps between decisions) and ``effects`` (the ability vocabulary).

Where the rulebook is silent, Rollhouse decided:

1. Setup step 1: the Start Player is drawn at random (no die-off is played out).
2. Step 2: sheets are chosen one at a time from the Start Player; the side is kept.
3. Step 4 (draw mode): the class card is drawn at setup time for each seat; all seats
   then choose their class side at once. Choice mode: reverse order, ending with the
   Start Player; a seat picks card and side in one decision.
4. Steps 5 and 8: backstories, alignments and the first market are dealt after every
   class is chosen. Step 7's discarded market cards leave the game unseen.
5. Step 12: every seat places its starting dice at once, in one decision.
6. Gold never runs out. The rulebook lists "60 Gold" among the components and is
   silent on an empty supply; as with most games' money, the 60 coins are a count of
   pieces in the box, not a limit (measured: a limit of 60 ran dry in a third of
   games, cutting gains short). ``State.supply`` still counts the 60 coins minus the
   gold in play; below 0 the bank is paying with substitutes, and the view shows 0.
7. The Thief's Shrewd ability (4 gold per gold die instead of 2) applies to every
   gold die placed, all game, not only at setup. The rulebook states it in setup
   step 12, where the first gold dice are placed; it is the Thief card's ability,
   and the Gaining Gold section lists its 2 gold per gold die "in addition to gaining
   it by using special abilities from Skill, Weapon, and Class cards", so a class
   card may change it during play.
8. Roll phase: the Start Player is asked only when two different dice tie in value.
9. The Dice Phase's card pick and die placement are one decision; the attribute
   action is a second one (or skipped).
10. Rerolls (Intelligence, skills, Sorcerer): the new face is shown, then the owner
    keeps either; until then that seat can do nothing else.
11. Charisma tokens: any number may be spent on a purchase, 1 gold each.
12. Bard (Charming): a second purchase only after a first; a token pays for one card.
13. An active class ability (Druid, Rogue, Sorcerer, Wizard, Barbarian) works like a
    skill without an arrow: exhausted on use and refreshed as the one card a seat may
    refresh in cleanup.
14. Skills are used when the seat sends the command; bots only use them in their own
    decisions. A skill may be used just to move the token (its ability is optional).
15. A seat facing an empty market ends its market turn without gold.
16. When the deck and the reshuffled discard pile cannot fill the market, it has
    fewer cards.
17. Armor class bonus: +1 per set that contains at least one card of the class colour.
    The rulebook's "for their character being the Class color specified on the Armor
    card" could also mean every card of the set; but its example (a Cleric, white,
    with four pieces of Chain earns 7 + 1) only works under "any card": no four Chain
    cards are all white (only Gorget and Helm are).
18. The final round ends after its Market Phase; its cleanup is skipped.
19. A reroll left unresolved at the end keeps the original face.
20. Cleanup: the market cards discarded in step 3 are part of the reshuffled deck.
21. Charisma tokens are not counted: a seat may hold more than one (Intimidate), and
    the six physical tokens never run out.
22. Skills, class abilities and weapon drops are not used during setup.
23. Trait stars and all market card values, weapon hands and modifiers, armor colours
    and set tables, skill effects and nine class abilities are Rollhouse designs
    (``content/base.json`` marks each entry's source).
"""

from __future__ import annotations

from engine.core import register
from engine.roll_player.bots import policies
from engine.roll_player.game import RollPlayer
from engine.roll_player.search import bot as search_bot

GAME = RollPlayer({**policies, "search": search_bot})
register(GAME)

__all__ = ["GAME", "RollPlayer"]
