"""The dashboard's accounts: names, bcrypt password hashes, roles, and sign-in lockout.

| rule        | value                                                                  |
|-------------|------------------------------------------------------------------------|
| name        | 1-32 of ``a-z 0-9 _ . -``, starting with a letter or digit; stored lower case |
| role        | ``viewer`` < ``player`` < ``admin`` (``ROLES``, in that order)          |
| password    | 8 characters to 72 bytes of UTF-8 (bcrypt reads no further)            |
| hash        | ``bcrypt.hashpw`` with a fresh salt, cost ``DEFAULT_ROUNDS``             |
| lockout     | ``MAX_FAILURES`` wrong passwords in a row lock the name for ``LOCKOUT``  |

Every function takes the ``Store`` and runs its own transactions. ``authenticate``
checks the password outside any transaction (bcrypt takes a quarter of a second; an
SQLite write lock must not wait on it) and then records the outcome in a short write
transaction. While a name is locked its password is not checked at all. An unknown
name costs the same bcrypt check as a known one, so timing does not tell which names
exist. Sign-in outcomes are logged on ``dashboard.auth`` with the name (bounded and
``repr``-quoted); passwords are never logged, stored or returned.

Not done here: deciding who may do what (``dashboard.access``), sessions (the
Streamlit page keeps who signed in), limiting attempts on names that do not exist
(there is no row to count them in; each still costs a bcrypt check).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import TYPE_CHECKING

import bcrypt
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from dashboard.store.models import User

if TYPE_CHECKING:
    from dashboard.store.repository import Store

log = logging.getLogger("dashboard.auth")

ROLES = ("viewer", "player", "admin")
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,31}")
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_BYTES = 72
DEFAULT_ROUNDS = 12
MAX_FAILURES = 5
LOCKOUT = timedelta(seconds=60)


class UserError(ValueError):
    """A name, role or password that cannot be used, or a change that is refused; the
    message says which and why (never containing a password)."""


class UnknownUser(UserError):
    """No account has that name."""


@dataclass(frozen=True)
class UserView:
    """An account as the pages and the command show it (no hash)."""

    name: str
    role: str
    created_at: datetime
    password_changed_at: datetime
    last_login_at: datetime | None
    locked_until: datetime | None


@dataclass(frozen=True)
class SignIn:
    """The outcome of ``authenticate``: ``user`` when the password was right;
    ``locked_until`` when the name is (now) locked."""

    user: UserView | None
    locked_until: datetime | None = None

    @property
    def ok(self) -> bool:
        return self.user is not None


def shown(name: str) -> str:
    """A name as logs and messages quote it: ``repr``, cut to 40 characters."""
    return repr(name[:40]) + ("…" if len(name) > 40 else "")


def check_name(name: str) -> str:
    """``name`` stripped and lower-cased when it is a valid account name; else ``UserError``."""
    normal = name.strip().lower()
    if not NAME.fullmatch(normal):
        raise UserError(f"{shown(name)} is not a valid user name: 1 to 32 of a-z, 0-9, '_', '.' and '-', "
                        "starting with a letter or digit")
    return normal


def check_role(role: str) -> str:
    if role not in ROLES:
        raise UserError(f"{shown(role)} is not a role: use one of {', '.join(ROLES)}")
    return role


def check_new_password(password: str) -> bytes:
    """The password's UTF-8 bytes when it is long enough and bcrypt reads all of it."""
    data = password.encode("utf-8")
    if len(password) < MIN_PASSWORD_CHARS:
        raise UserError(f"the password is too short: use at least {MIN_PASSWORD_CHARS} characters")
    if len(data) > MAX_PASSWORD_BYTES:
        raise UserError(f"the password is too long: bcrypt reads at most {MAX_PASSWORD_BYTES} bytes of UTF-8")
    return data


def hash_password(password: str, rounds: int = DEFAULT_ROUNDS) -> str:
    """A bcrypt hash of a valid new password (``UserError`` otherwise)."""
    return bcrypt.hashpw(check_new_password(password), bcrypt.gensalt(rounds)).decode("ascii")


def password_matches(password: str, hashed: str) -> bool:
    """Whether ``password`` is the one ``hashed`` was made from; False for a password
    bcrypt cannot take (over 72 bytes) or a malformed hash."""
    data = password.encode("utf-8")
    if len(data) > MAX_PASSWORD_BYTES:
        return False
    try:
        return bcrypt.checkpw(data, hashed.encode("ascii"))
    except ValueError:
        return False


@lru_cache(maxsize=1)
def _decoy_hash() -> str:
    """A hash no password is known for, checked for unknown names (same cost)."""
    return bcrypt.hashpw(b"no such user: decoy", bcrypt.gensalt(DEFAULT_ROUNDS)).decode("ascii")


def _view(user: User) -> UserView:
    return UserView(user.name, user.role, user.created_at, user.password_changed_at, user.last_login_at,
                    user.locked_until)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def get_user(store: "Store", name: str) -> UserView | None:
    """The account called ``name`` (any spelling ``check_name`` accepts), or None."""
    try:
        name = check_name(name)
    except UserError:
        return None
    with store.session() as s:
        user = s.get(User, name)
        return _view(user) if user is not None else None


def list_users(store: "Store") -> list[UserView]:
    """Every account, by name."""
    with store.session() as s:
        return [_view(u) for u in s.scalars(select(User).order_by(User.name))]


def count_users(store: "Store") -> int:
    with store.session() as s:
        return s.scalar(select(func.count()).select_from(User)) or 0


def add_user(store: "Store", name: str, password: str, role: str, *, rounds: int = DEFAULT_ROUNDS) -> UserView:
    """Create an account; ``UserError`` for a bad name, role or password or a name taken."""
    name, role = check_name(name), check_role(role)
    hashed = hash_password(password, rounds)
    now = _now()
    with store.session(write=True) as s:
        if s.get(User, name) is not None:
            raise UserError(f"there is already a user {shown(name)}")
        user = User(name=name, password_hash=hashed, role=role, created_at=now, password_changed_at=now,
                    failed_logins=0)
        s.add(user)
        s.flush()
        view = _view(user)
    log.info("user %s added with role %s", shown(name), role)
    return view


def _locked_user(s: Session, name: str) -> User:
    user = s.get(User, check_name(name), with_for_update=True)
    if user is None:
        raise UnknownUser(f"there is no user {shown(name)}")
    return user


def _refuse_last_admin(s: Session, user: User, change: str) -> None:
    if user.role != "admin":
        return
    admins = s.scalar(select(func.count()).select_from(User).where(User.role == "admin"))
    if (admins or 0) <= 1:
        raise UserError(f"{shown(user.name)} is the only admin: make another admin before you {change}")


def remove_user(store: "Store", name: str) -> None:
    """Delete an account (not the only admin); ``UnknownUser`` when there is none."""
    with store.session(write=True) as s:
        user = _locked_user(s, name)
        _refuse_last_admin(s, user, "remove it")
        s.delete(user)
    log.info("user %s removed", shown(name))


def set_role(store: "Store", name: str, role: str) -> UserView:
    """Change an account's role (the only admin stays admin). Takes effect on the
    user's next page action: the pages read the role at every check."""
    role = check_role(role)
    with store.session(write=True) as s:
        user = _locked_user(s, name)
        if role != "admin":
            _refuse_last_admin(s, user, "change its role")
        user.role = role
        view = _view(user)
    log.info("user %s now has role %s", shown(view.name), role)
    return view


def set_password(store: "Store", name: str, password: str, *, rounds: int = DEFAULT_ROUNDS) -> UserView:
    """Replace an account's password; ends its sign-ins made before and clears a lockout."""
    hashed = hash_password(password, rounds)
    with store.session(write=True) as s:
        user = _locked_user(s, name)
        user.password_hash = hashed
        user.password_changed_at = _now()
        user.failed_logins, user.locked_until = 0, None
        view = _view(user)
    log.info("password of user %s changed", shown(view.name))
    return view


def authenticate(store: "Store", name: str, password: str, *, now: datetime | None = None,
                 max_failures: int = MAX_FAILURES, lockout: timedelta = LOCKOUT) -> SignIn:
    """Check a sign-in (see the module docstring for the order of checks and what is
    recorded). ``now`` is for tests."""
    now = now or _now()
    try:
        key = check_name(name)
    except UserError:
        password_matches(password, _decoy_hash())
        log.warning("sign-in refused: invalid user name %s", shown(name))
        return SignIn(None)
    with store.session() as s:
        user = s.get(User, key)
        hashed, locked = (user.password_hash, user.locked_until) if user is not None else (None, None)
    if user is None:
        password_matches(password, _decoy_hash())
        log.warning("sign-in refused: no user %s", shown(key))
        return SignIn(None)
    if locked is not None and locked > now:
        log.warning("sign-in refused: user %s is locked until %s", shown(key), f"{locked:%H:%M:%S}")
        return SignIn(None, locked)
    right = password_matches(password, hashed)  # type: ignore[arg-type]
    with store.session(write=True) as s:
        user = s.get(User, key, with_for_update=True)
        if user is None:  # removed meanwhile
            return SignIn(None)
        if right and user.password_hash == hashed:
            user.failed_logins, user.locked_until, user.last_login_at = 0, None, now
            view = _view(user)
            log.info("user %s signed in", shown(key))
            return SignIn(view)
        user.failed_logins += 1
        if user.failed_logins < max_failures:
            log.warning("sign-in refused: wrong password for user %s (%d of %d)", shown(key), user.failed_logins,
                        max_failures)
            return SignIn(None)
        user.failed_logins, user.locked_until = 0, now + lockout
        log.warning("sign-in refused: wrong password for user %s; locked for %d s after %d tries", shown(key),
                    lockout.total_seconds(), max_failures)
        return SignIn(None, user.locked_until)
