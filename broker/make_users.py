"""Make the broker's accounts: one per physical board plus the service accounts.

    python broker/make_users.py --boards board-1 board-2 \
        --password-file var/broker/passwd --credentials var/broker/credentials.json

Writes a Mosquitto 2 password file with ``mosquitto_passwd -b`` (salted PBKDF2-SHA512,
the format Mosquitto 2 expects) and a JSON credentials file (mode 0600) that services'
launchers read to fill their ``BusConfig``. Passwords already in the credentials file
are kept (re-running adds boards without breaking running services); ``--rotate`` makes
new ones. Accounts and what they may do: see ``broker/acl``. A board's username is its
board id (``board-<name>``), which the ACL's patterns rely on.

Not done: removing accounts that are no longer listed (delete them from both files),
telling a running broker (send it SIGHUP to reload the password and ACL files).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

from gobuddy.bus.topics import is_physical_board_id

SERVICE_ACCOUNTS = ("engine", "recorder", "dashboard", "observer")


def accounts(boards: list[str]) -> list[str]:
    """Every username: the boards (validated as ``board-<name>``) then the service accounts."""
    for board in boards:
        if not is_physical_board_id(board):
            raise ValueError(f"{board!r} is not a physical board id (board-<name>: a-z, 0-9, inner '-')")
    if len(set(boards)) != len(boards):
        raise ValueError("a board is listed twice")
    return [*boards, *SERVICE_ACCOUNTS]


def make_credentials(names: list[str], keep: dict[str, str] | None = None) -> dict[str, str]:
    """A password per name: the one in ``keep`` if any, else a fresh random one."""
    keep = keep or {}
    return {name: keep.get(name) or secrets.token_urlsafe(18) for name in names}


def write_password_file(path: Path, credentials: dict[str, str], mosquitto_passwd: str = "mosquitto_passwd") -> None:
    """(Re)write ``path`` as a Mosquitto password file holding exactly ``credentials``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    os.chmod(path, 0o600)
    for user, password in credentials.items():
        subprocess.run([mosquitto_passwd, "-b", str(path), user, password], check=True, capture_output=True)


def write_credentials(path: Path, credentials: dict[str, str]) -> None:
    """Write the JSON credentials file, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    os.chmod(path, 0o600)
    path.write_text(json.dumps(credentials, indent=2, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", nargs="*", default=["board-1"], help="physical board ids (board-<name>)")
    parser.add_argument("--password-file", type=Path, required=True, help="Mosquitto password file to write")
    parser.add_argument("--credentials", type=Path, required=True, help="JSON file of usernames and passwords")
    parser.add_argument("--rotate", action="store_true", help="new passwords for every account")
    parser.add_argument("--mosquitto-passwd", default="mosquitto_passwd", help="the mosquitto_passwd program")
    args = parser.parse_args(argv)
    try:
        names = accounts(args.boards)
    except ValueError as exc:
        parser.error(str(exc))
    keep = {}
    if args.credentials.exists() and not args.rotate:
        keep = json.loads(args.credentials.read_text())
    credentials = make_credentials(names, keep)
    write_password_file(args.password_file, credentials, args.mosquitto_passwd)
    write_credentials(args.credentials, credentials)
    print(f"{len(credentials)} accounts: {', '.join(credentials)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
