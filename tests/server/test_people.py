"""The people service on its own (server.people): tokens, passwords, sign-in under
concurrency, rehashing, and what authenticate counts."""

from __future__ import annotations

import asyncio

import pytest

from server.people import People, PeopleRefusal, Policy, address_key
from server.people.passwords import OWASP, Passwords
from server.people.player import Token, check_password, check_username
from server.store.memory import MemoryStore
from tests.support.people import CHEAP, Clock

PASSWORD = "correct horse battery"


@pytest.fixture
def people() -> People:
    return People(MemoryStore().people, Policy(password_cost=CHEAP), clock=Clock())


def test_a_token_is_its_player_and_256_random_bits() -> None:
    """A token reads back as itself; its secret is 43 URL-safe characters (256 bits);
    the store key is half the secret's SHA-256, the digest all of it."""
    token = Token.new("p-0123456789abcdef")
    text = str(token)
    assert text.startswith("p-0123456789abcdef.") and len(text.split(".")[1]) == 43
    assert Token.parse(text) == token
    assert token.sid == token.digest[:32] and len(token.digest) == 64
    assert Token.new("p-0123456789abcdef") != token
    assert token.secret not in repr(token)


@pytest.mark.parametrize(
    "text",
    [None, 5, "", "p-0123456789abcdef", "p-0123456789abcdef." + "A" * 42,
     "p-0123456789ABCDEF." + "A" * 43, "p-0123456789abcdef." + "A" * 43 + "\n",
     "p-0123456789abcdef." + "=" * 43, "x" * 10_000],
)  # fmt: skip
def test_what_is_not_a_token(text: object) -> None:
    """Anything but ``p-<16 hex>.<43 URL-safe>`` parses to None."""
    assert Token.parse(text) is None


def test_usernames_fold_and_passwords_normalise() -> None:
    """Usernames are case-folded ASCII; passwords NFKC (the same on every keyboard)."""
    assert check_username("Ana_B-2.x") == "ana_b-2.x"
    assert check_password("\uff50assword12") == "password12"  # a fullwidth p
    assert check_password("e\u0301" * 10) == "\u00e9" * 10  # as macOS types it, and Windows


async def test_the_default_hash_is_owasps_argon2id() -> None:
    """Passwords hash with argon2id at 19 MiB, 2 passes, 1 lane, and verify."""
    passwords = Passwords(OWASP)
    stored = await passwords.hash(PASSWORD)
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert await passwords.verify(stored, PASSWORD)
    assert not await passwords.verify(stored, PASSWORD + "!")
    assert not await passwords.verify(None, PASSWORD)
    assert not await passwords.verify("not a hash", PASSWORD)


async def test_a_burst_of_sign_ins_gets_no_more_tries(people: People) -> None:
    """Twenty wrong passwords at once: five are checked, fifteen wait (the attempts are
    counted before the password is)."""
    player, _ = await people.guest("Ana")
    await people.register(player, "ana", PASSWORD)
    outcomes = await asyncio.gather(
        *(people.sign_in("ana", "wrong password", "10.0.0.1") for _ in range(20)),
        return_exceptions=True,
    )
    codes = sorted(o.code for o in outcomes if isinstance(o, PeopleRefusal))
    assert codes == ["player/bad_credentials"] * 5 + ["player/login_limited"] * 15


async def test_an_old_hash_is_replaced_at_sign_in(people: People) -> None:
    """A password hashed with other parameters is hashed again with ours when it signs in."""
    player, _ = await people.guest("Ana")
    await people.register(player, "ana", PASSWORD)
    people.passwords = Passwords((2, 16, 1))
    await people.sign_in("ana", PASSWORD, "10.0.0.1")
    stored = await people.store.by_username("ana")
    assert stored is not None and stored.password is not None
    assert stored.password.startswith("$argon2id$v=19$m=16,t=2,p=1$")
    await people.sign_in("ana", PASSWORD, "10.0.0.1")


async def test_authenticate_counts_only_tokens_that_open_nothing(people: People) -> None:
    """No token is no guess; a live token counts nothing; a signed-out one counts."""
    player, token = await people.guest()
    assert await people.authenticate(None, "10.0.0.2") is None
    assert await people.authenticate(token, "10.0.0.2") == player
    assert await people.hit("session:10.0.0.2", 60) == 1  # this hit only
    await people.sign_out(token)
    assert await people.authenticate(token, "10.0.0.2") is None
    assert await people.hit("session:10.0.0.2", 60) == 3


async def test_a_renamed_or_registered_player_is_what_get_reads(people: People) -> None:
    """rename and register return the player as the store then holds it."""
    player, _ = await people.guest()
    assert player.name.startswith("Guest ")
    renamed = await people.rename(player, " Bia ")
    registered = await people.register(renamed, "bia", PASSWORD)
    assert await people.get(player.id) == registered
    assert (registered.name, registered.username) == ("Bia", "bia")
    assert await people.get("nobody") is None


def test_odd_addresses_become_safe_keys() -> None:
    """An address with spaces, braces or non-ASCII is hashed into the counter's key."""
    assert address_key("2001:db8::1") == "2001:db8::1"
    odd = address_key("evil {tag} ü")
    assert odd.startswith("h-") and len(odd) == 34
