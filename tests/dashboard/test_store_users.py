"""The dashboard's accounts (``dashboard.store.users``) on SQLite and PostgreSQL: bcrypt
hashes, never the password; names checked; roles; wrong passwords counted, a lockout
after ``MAX_FAILURES`` that refuses even the right password until it ends; the only
admin kept; sign-ins logged without the password."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from dashboard.store.models import User
from dashboard.store.users import (MAX_FAILURES, UnknownUser, UserError, add_user, authenticate, check_name,
                                   count_users, get_user, list_users, remove_user, set_password, set_role)

FAST = 4  # bcrypt cost for tests (the dashboard uses 12)
T0 = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.utc)

NAMES = [  # (given, stored or None when refused)
    ("ana", "ana"),
    ("Ana", "ana"),
    ("  bob.smith-2 ", "bob.smith-2"),
    ("x", "x"),
    ("a" * 32, "a" * 32),
    ("a" * 33, None),
    ("", None),
    ("_ana", None),
    ("ana bob", None),
    ("anä", None),
    ("ana;drop", None),
    ("ana\n", "ana"),
    ("ana\x00", None),
]


@pytest.mark.parametrize("given, stored", NAMES)
def test_names_are_checked_and_lower_cased(given, stored):
    if stored is None:
        with pytest.raises(UserError, match="not a valid user name"):
            check_name(given)
    else:
        assert check_name(given) == stored


def test_the_password_is_stored_as_a_bcrypt_hash_only(store):
    add_user(store, "Ana", "correct horse", "admin", rounds=FAST)
    with store.session() as s:
        row = s.scalars(select(User)).one()
    assert row.name == "ana" and row.role == "admin"
    assert row.password_hash.startswith("$2b$04$") and len(row.password_hash) == 60
    assert "correct horse" not in row.password_hash
    assert authenticate(store, "ANA", "correct horse").user.name == "ana"
    assert not authenticate(store, "ana", "correct hors").ok
    assert not authenticate(store, "ana", "").ok
    assert not authenticate(store, "nobody", "correct horse").ok


PASSWORDS = [  # (password, error words or None)
    ("1234567", "too short"),
    ("12345678", None),
    ("é" * 36, None),  # 72 bytes
    ("é" * 37, "too long"),
    ("x" * 73, "too long"),
]


@pytest.mark.parametrize("password, error", PASSWORDS)
def test_passwords_are_bounded(store, password, error):
    if error:
        with pytest.raises(UserError, match=error):
            add_user(store, "ana", password, "viewer", rounds=FAST)
        assert count_users(store) == 0
    else:
        add_user(store, "ana", password, "viewer", rounds=FAST)
        assert authenticate(store, "ana", password).ok


def test_roles_names_and_changes(store):
    add_user(store, "ana", "password-a", "admin", rounds=FAST)
    add_user(store, "bob", "password-b", "viewer", rounds=FAST)
    with pytest.raises(UserError, match="not a role"):
        add_user(store, "cleo", "password-c", "root", rounds=FAST)
    with pytest.raises(UserError, match="already a user 'bob'"):
        add_user(store, "BOB", "password-x", "player", rounds=FAST)
    assert [(u.name, u.role) for u in list_users(store)] == [("ana", "admin"), ("bob", "viewer")]
    assert set_role(store, "bob", "player").role == "player"
    assert get_user(store, "Bob").role == "player"
    with pytest.raises(UnknownUser):
        set_role(store, "cleo", "player")
    with pytest.raises(UserError, match="only admin"):
        set_role(store, "ana", "player")
    with pytest.raises(UserError, match="only admin"):
        remove_user(store, "ana")
    set_role(store, "bob", "admin")
    set_role(store, "ana", "viewer")  # bob is admin now
    with pytest.raises(UserError, match="'bob' is the only admin"):
        remove_user(store, "bob")
    remove_user(store, "ana")
    with pytest.raises(UnknownUser):
        remove_user(store, "ana")
    assert [(u.name, u.role) for u in list_users(store)] == [("bob", "admin")]
    assert get_user(store, "not a name") is None


def test_set_password_replaces_the_old_one_and_moves_the_change_time(store):
    before = add_user(store, "ana", "old-password", "player", rounds=FAST)
    after = set_password(store, "ana", "new-password", rounds=FAST)
    assert after.password_changed_at > before.password_changed_at
    assert not authenticate(store, "ana", "old-password").ok
    assert authenticate(store, "ana", "new-password").ok
    with pytest.raises(UnknownUser):
        set_password(store, "bob", "new-password", rounds=FAST)


def test_wrong_passwords_lock_the_name_for_a_while(store):
    add_user(store, "ana", "right-password", "player", rounds=FAST)
    add_user(store, "bob", "bob-password", "player", rounds=FAST)
    steps = [  # (seconds after T0, name, password, signed in, locked)
        *[(i, "ana", "wrong", False, i == MAX_FAILURES - 1) for i in range(MAX_FAILURES)],
        (10, "ana", "right-password", False, True),  # locked: even the right password is refused
        (10, "bob", "bob-password", True, False),  # the lock is per name
        (59, "ana", "wrong", False, True),  # not counted while locked (the lock does not grow)
        (65, "ana", "right-password", True, False),  # the lock has ended
        (66, "ana", "wrong", False, False),  # the count started again after the success
    ]
    for seconds, name, password, signed_in, locked in steps:
        outcome = authenticate(store, name, password, now=T0 + timedelta(seconds=seconds))
        assert (outcome.ok, outcome.locked_until is not None) == (signed_in, locked), (seconds, name, password)
    assert get_user(store, "ana").last_login_at == T0 + timedelta(seconds=65)


def test_a_new_password_clears_the_lock(store):
    add_user(store, "ana", "right-password", "player", rounds=FAST)
    for _ in range(MAX_FAILURES):
        authenticate(store, "ana", "wrong")
    assert not authenticate(store, "ana", "right-password").ok
    set_password(store, "ana", "other-password", rounds=FAST)
    assert authenticate(store, "ana", "other-password").ok


def test_sign_ins_are_logged_without_the_password(store, caplog):
    add_user(store, "ana", "right-password", "player", rounds=FAST)
    with caplog.at_level(logging.INFO, logger="dashboard.auth"):
        authenticate(store, "ana", "wrong-password-1")
        authenticate(store, "nobody", "wrong-password-2")
        authenticate(store, "bad name!" * 20, "wrong-password-3")
        authenticate(store, "ana", "right-password")
    text = caplog.text
    assert "wrong password for user 'ana' (1 of 5)" in text
    assert "no user 'nobody'" in text
    assert "invalid user name 'bad name!bad name!" in text and "bad name!" * 5 not in text  # bounded
    assert "user 'ana' signed in" in text
    assert "password-" not in text and "right-password" not in text
