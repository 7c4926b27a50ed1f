"""Make the broker's accounts and who may do what: Mosquitto's dynamic-security file plus
one password file per account.

    python broker/make_users.py --boards board-1 board-2 --engines 2 \
        --dynsec var/broker/dynamic-security.json --secrets-dir var/broker/secrets

Accounts, one per running client (the broker binds each client id to its account):

| account | role | client id |
|---|---|---|
| ``board-<name>`` (``--boards``) | ``board`` | its username, which is its board id |
| ``engine-<n>`` (``--engines N``) | ``engine`` | its username |
| ``recorder`` | ``recorder`` | ``recorder`` |
| ``dashboard`` | ``dashboard`` | ``dashboard`` |
| ``reviewer`` | ``reviewer`` | ``reviewer``: ``python -m dashboard.review`` asks the engine as a dashboard client |
| ``observer`` and ``observer-<name>`` (``--observers``) | ``observer`` | its username |
| ``health`` | (none) | ``health``: reads ``$SYS/broker/uptime`` only (container health checks) |

What each may do is ``POLICY`` below, written as Mosquitto dynamic-security ACLs
(``publishClientSend``: may publish; ``publishClientReceive``: may be delivered;
``subscribePattern``: may subscribe with a filter the pattern covers). Everything not
granted is denied, subscriptions included: only engine accounts may join the engine
workers' shared subscription ``$share/engine/...`` (the plugin checks the whole filter,
``$share`` prefix and all), and a client id other than the account's own is refused at
CONNECT, so no account can end another's session. ``%u`` in ``POLICY`` stands for the
account's username; the plugin of Mosquitto 2.0 does not substitute it, so every
account gets its own role with the literal topics.

Writes ``--dynsec`` (the plugin's configuration: salted PBKDF2-SHA512 hashes from
``hashlib``, never a password in clear; mode 0600 — give it to the broker's user) and
``<secrets-dir>/<account>.password`` (mode 0600): hand each service ONLY its own file
(``--password-file``). Passwords already in the secrets folder are kept (re-running adds
accounts without breaking running services); ``--rotate`` makes new ones. Restart the
broker to load a new file (the plugin reads it at start).

Not done: removing an account's password file when it is no longer listed (delete it).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import secrets
import sys
from pathlib import Path

from gobuddy.bus.topics import ENGINE_GROUP, ROOT, is_physical_board_id, web_board_ids

ITERATIONS = 10_000  # PBKDF2 rounds per password check; Mosquitto's own default is 101
HEALTH = "health"
_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$")

_OWN = (  # every bus account publishes its presence and its error reports under its own id
    ("publishClientSend", f"{ROOT}/status/{{role}}/%u"),
    ("publishClientSend", f"{ROOT}/error/{{role}}/%u"),
)
_READ_ALL = (("subscribePattern", f"{ROOT}/#"), ("publishClientReceive", f"{ROOT}/#"))
_WEB_BOARDS = web_board_ids()

POLICY: dict[str, tuple[tuple[str, str], ...]] = {
    # A board writes only its own board topics (never its LEDs: the engine's), reads back
    # its own state, LEDs, what the recorder stored and its engine answers, and asks the
    # engine about itself.
    "board": (
        *((("publishClientSend", f"{ROOT}/board/%u/{family}") for family in ("frame", "button", "event", "state"))),
        ("publishClientSend", f"{ROOT}/engine/request/board/%u"),
        *((kind, f"{ROOT}/board/%u/{family}") for family in ("state", "led", "stored", "command")
          for kind in ("subscribePattern", "publishClientReceive")),
        ("subscribePattern", f"{ROOT}/engine/response/board/%u"),
        ("publishClientReceive", f"{ROOT}/engine/response/board/%u"),
        # whether a recorder is online: the board re-sends unstored events only then
        ("subscribePattern", f"{ROOT}/status/recorder/+"),
        ("publishClientReceive", f"{ROOT}/status/recorder/+"),
    ),
    # Engine workers alone join the shared subscription of requests; they answer any
    # requester (on the requester's own response topic) and light any board's LEDs.
    "engine": (
        ("subscribeLiteral", f"$share/{ENGINE_GROUP}/{ROOT}/engine/request/+/+"),
        ("publishClientReceive", f"{ROOT}/engine/request/+/+"),
        ("publishClientSend", f"{ROOT}/engine/response/+/+"),
        ("publishClientSend", f"{ROOT}/board/+/led"),
    ),
    # The recorder reads everything and tells each board what of its games it stored.
    "recorder": (*_READ_ALL, ("publishClientSend", f"{ROOT}/board/+/stored")),
    # The dashboard reads everything, plays its own games on web-1 .. web-8 and asks the
    # engine as itself.
    "dashboard": (
        *_READ_ALL,
        ("publishClientSend", f"{ROOT}/engine/request/dashboard/%u"),
        ("publishClientSend", f"{ROOT}/board/+/command"),  # what an admin asks a board to do
        *((("publishClientSend", f"{ROOT}/board/{board}/{family}") for board in _WEB_BOARDS
           for family in ("event", "state"))),
    ),
    # The game reviewer (``python -m dashboard.review``) reads the bus as the dashboard
    # does and asks the engine as itself; it writes nothing else.
    "reviewer": (*_READ_ALL, ("publishClientSend", f"{ROOT}/engine/request/dashboard/%u")),
    "observer": (*_READ_ALL, ("subscribePattern", "$SYS/#"), ("publishClientReceive", "$SYS/#")),
    HEALTH: (("subscribeLiteral", "$SYS/broker/uptime"), ("publishClientReceive", "$SYS/broker/uptime")),
}
PUBLISHES_PRESENCE = ("board", "engine", "recorder", "dashboard", "reviewer")
# The bus role (``gobuddy.bus.topics.ROLES``) an account's presence and requests go under,
# where it is not the account's own role.
BUS_ROLE = {"reviewer": "dashboard"}
REVIEWER = "reviewer"


def role_of(username: str) -> str:
    """The role an account plays: ``board-x`` → board, ``engine-2`` → engine,
    ``observer-ann`` → observer, ``recorder`` → recorder; raise ``ValueError`` otherwise."""
    if username in (HEALTH, REVIEWER):
        return username
    if is_physical_board_id(username):
        return "board"
    role, dash, instance = username.partition("-")
    if role in ("engine", "recorder", "dashboard", "observer") and (not dash or _NAME.match(instance)):
        return role
    raise ValueError(f"{username!r} is not an account name (board-<name>, engine-<n>, recorder, dashboard, "
                     f"{REVIEWER}, observer[-<name>], {HEALTH})")


def accounts(boards: list[str], engines: int = 2, observers: list[str] | None = None) -> list[str]:
    """Every username: the boards (validated as ``board-<name>``), ``engine-1`` ..
    ``engine-<engines>``, the recorder, the dashboard, the reviewer, the observers, ``health``."""
    for board in boards:
        if not is_physical_board_id(board):
            raise ValueError(f"{board!r} is not a physical board id (board-<name>: a-z, 0-9, inner '-')")
    if not 1 <= engines <= 64:
        raise ValueError(f"--engines must be 1..64, got {engines}")
    names = list(observers) if observers else ["observer"]
    for name in names:
        if name != "observer" and not (name.startswith("observer-") and _NAME.match(name)):
            raise ValueError(f"{name!r} is not an observer account (observer or observer-<name>)")
    result = [*boards, *(f"engine-{n}" for n in range(1, engines + 1)), "recorder", "dashboard", REVIEWER, *names, HEALTH]
    if len(set(result)) != len(result):
        raise ValueError("an account is listed twice")
    return result


def acls_for(username: str) -> list[dict[str, object]]:
    """The dynamic-security ACL entries of one account (``%u`` made literal)."""
    role = role_of(username)
    bus_role = BUS_ROLE.get(role, role)
    rules = list(POLICY[role]) + ([(kind, topic.format(role=bus_role)) for kind, topic in _OWN]
                                  if role in PUBLISHES_PRESENCE else [])
    return [{"acltype": kind, "topic": topic.replace("%u", username), "priority": 0, "allow": True}
            for kind, topic in rules]


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> dict[str, object]:
    """The plugin's fields for ``password``: base64 PBKDF2-HMAC-SHA512 (64 bytes) and salt."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations, 64)
    return {"password": base64.b64encode(digest).decode(), "salt": base64.b64encode(salt).decode(),
            "iterations": iterations}


def dynsec_config(credentials: dict[str, str]) -> dict[str, object]:
    """The dynamic-security file for ``credentials`` ({username: password}): one client
    per account, bound to the client id equal to its username, with its own role."""
    clients = [{"username": name, "clientid": name, "textName": f"{role_of(name)} account",
                "roles": [{"rolename": name}], **hash_password(password)} for name, password in credentials.items()]
    roles = [{"rolename": name, "acls": acls_for(name)} for name in credentials]
    return {"defaultACLAccess": {"publishClientSend": False, "publishClientReceive": False, "subscribe": False,
                                 "unsubscribe": True},
            "clients": clients, "groups": [], "roles": roles}


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` created with mode 0600 (never readable by others, not even briefly)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(path, 0o600)


def read_secrets(secrets_dir: Path) -> dict[str, str]:
    """The passwords already in ``secrets_dir`` ({account: password})."""
    if not secrets_dir.is_dir():
        return {}
    return {path.stem: path.read_text().strip() for path in secrets_dir.glob("*.password")}


def write_accounts(names: list[str], dynsec: Path, secrets_dir: Path, *, rotate: bool = False) -> dict[str, str]:
    """Write the dynamic-security file and one password file per account; return the
    passwords ({account: password}). Existing passwords are kept unless ``rotate``."""
    keep = {} if rotate else read_secrets(secrets_dir)
    credentials = {name: keep.get(name) or secrets.token_urlsafe(18) for name in names}
    for name, password in credentials.items():
        _write_private(secrets_dir / f"{name}.password", password + "\n")
    _write_private(dynsec, json.dumps(dynsec_config(credentials), indent=1) + "\n")
    return credentials


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="*", default=["board-1"], help="physical board ids (board-<name>)")
    parser.add_argument("--engines", type=int, default=2, help="engine worker accounts engine-1 .. engine-N")
    parser.add_argument("--observers", nargs="*", default=None, help="observer accounts (default: observer)")
    parser.add_argument("--dynsec", type=Path, required=True, help="the dynamic-security file to write")
    parser.add_argument("--secrets-dir", type=Path, required=True, help="folder of <account>.password files")
    parser.add_argument("--rotate", action="store_true", help="new passwords for every account")
    args = parser.parse_args(argv)
    try:
        names = accounts(args.boards, args.engines, args.observers)
    except ValueError as exc:
        parser.error(str(exc))
    write_accounts(names, args.dynsec, args.secrets_dir, rotate=args.rotate)
    print(f"{len(names)} accounts: {', '.join(names)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
