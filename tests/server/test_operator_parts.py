"""The operator console's pure parts: the token (server/operator/key.py) and the bans a
node holds (server/operator/bans.py)."""

from __future__ import annotations

import hashlib

import pytest

from server.config import Settings
from server.operator.bans import Bans
from server.operator.key import OperatorKey

TOKEN = "a-token-of-at-least-thirty-two-characters"


def test_no_token_keeps_the_console_off() -> None:
    """Neither a token nor a digest set: no key (the console is off); never a default."""
    assert OperatorKey.of(Settings()) is None
    assert Settings().operator_token == "" and Settings().operator_token_sha256 == ""


def test_the_token_or_its_digest_opens_and_nothing_else() -> None:
    """The token opens; a digest set instead opens for the same token; another token, an
    empty one, None, or the digest itself do not."""
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    for key in (OperatorKey.of(Settings(operator_token=TOKEN)),
                OperatorKey.of(Settings(operator_token_sha256=digest.upper()))):  # fmt: skip
        assert key is not None and key.admits(TOKEN)
        for wrong in (TOKEN + "x", TOKEN[:-1], "", None, digest):
            assert not key.admits(wrong)
    assert TOKEN not in repr(Settings(operator_token=TOKEN))


@pytest.mark.parametrize(
    "settings",
    [Settings(operator_token="short"), Settings(operator_token_sha256="not-hex")],
)
def test_a_weak_token_stops_the_node(settings: Settings) -> None:
    """A token under 32 characters, or a digest that is not 64 hex digits, is refused."""
    with pytest.raises(ValueError):
        OperatorKey.of(settings)


def test_bans_bar_until_their_time() -> None:
    """A held ban bars its kind and value until ``until`` (the sentence says why);
    other values, other kinds, None and lifted bans pass."""
    bans = Bans()
    assert bans.barred("address", "1.2.3.4", 0.0) is None
    bans.load([{"kind": "address", "value": "1.2.3.4", "until": 100.0, "reason": "flood"}])
    why = bans.barred("address", "1.2.3.4", 50.0)
    assert why is not None and "flood" in why and "1970-01-01 00:01:40 UTC" in why
    assert bans.barred("address", "1.2.3.4", 100.0) is None
    assert bans.barred("player", "1.2.3.4", 50.0) is None
    assert bans.barred("address", None, 50.0) is None
    bans.add({"kind": "player", "value": "p-1", "until": 200.0})
    assert bans.barred("player", "p-1", 150.0) == "banned until 1970-01-01 00:03:20 UTC"
    assert [b["value"] for b in bans.active(150.0)] == ["p-1"]
    bans.remove("player", "p-1")
    assert bans.barred("player", "p-1", 150.0) is None
