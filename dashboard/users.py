"""Manage who may sign in to the dashboard: ``python -m dashboard.users``.

    python -m dashboard.users add NAME --role admin|player|viewer --db URL [--password-file FILE]
    python -m dashboard.users list --db URL
    python -m dashboard.users set-role NAME --role ROLE --db URL
    python -m dashboard.users set-password NAME --db URL [--password-file FILE]
    python -m dashboard.users remove NAME --db URL

``--db`` is the dashboard's own database (the same ``--db`` URL the dashboard runs
with; default ``sqlite:///data/gobuddy.db``); it is migrated to the newest schema
first, as the dashboard would. A password is never an argument (arguments show in
``ps`` and the shell's history): ``add`` and ``set-password`` ask for it twice on the
terminal, or read the first line of ``--password-file`` (``-`` reads standard input).

Roles (``dashboard.access``): ``viewer`` sees Live, Games, Replay and System;
``player`` also plays, asks the engine, imports and downloads SGF; ``admin`` also
renames and deletes games. Names: 1 to 32 of ``a-z 0-9 _ . -`` (stored lower case);
passwords: 8 characters to 72 bytes. The only admin cannot be removed or demoted.
A changed role applies at the user's next click; a changed password or a removal
signs the user out. Exit status: 0 done, 2 refused (the message says why).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Sequence, TextIO

from dashboard.config import DEFAULT_DB_URL
from dashboard.store import Store
from dashboard.store.users import (ROLES, UserError, UserView, add_user, check_new_password, list_users,
                                   remove_user, set_password, set_role)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dashboard.users", description="Manage the dashboard's users.",
                                allow_abbrev=False)
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--db", default=DEFAULT_DB_URL, help=f"the dashboard's database URL (default {DEFAULT_DB_URL})")
    secret = argparse.ArgumentParser(add_help=False)
    secret.add_argument("--password-file", type=Path, default=None,
                        help="read the password from the first line of this file ('-': standard input) "
                             "instead of asking")
    # allow_abbrev=False: "--password SECRET" must be an error, not --password-file SECRET
    commands = p.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", parents=[db, secret], allow_abbrev=False, help="make a user")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    commands.add_parser("list", parents=[db], allow_abbrev=False, help="list the users, their roles and last sign-in")
    remove = commands.add_parser("remove", parents=[db], allow_abbrev=False, help="delete a user")
    remove.add_argument("name")
    role = commands.add_parser("set-role", parents=[db], allow_abbrev=False, help="change a user's role")
    role.add_argument("name")
    role.add_argument("--role", choices=ROLES, required=True)
    password = commands.add_parser("set-password", parents=[db, secret], allow_abbrev=False,
                                   help="change a user's password")
    password.add_argument("name")
    return p


def read_password(path: Path | None, stdin: TextIO) -> str:
    """The new password: the first line of ``path`` (``-``: ``stdin``), or asked twice
    on the terminal. ``UserError`` when it is empty, too short or too long, or the two
    typed differ."""
    if path is not None:
        text = stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        password = text.splitlines()[0] if text else ""
    else:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Again: ") != password:
            raise UserError("the two passwords differ")
    check_new_password(password)
    return password


def user_rows(users: list[UserView]) -> list[str]:
    """``list``'s lines: name, role, last sign-in, and a lock when there is one."""
    rows = [f"{'name':<32}  {'role':<6}  last sign-in"]
    for u in users:
        last = f"{u.last_login_at:%Y-%m-%d %H:%M} UTC" if u.last_login_at else "never"
        locked = f"  (locked until {u.locked_until:%H:%M:%S} UTC)" if u.locked_until else ""
        rows.append(f"{u.name:<32}  {u.role:<6}  {last}{locked}")
    return rows


def run(args: argparse.Namespace, store: Store, stdin: TextIO, out: TextIO) -> None:
    if args.command == "add":
        user = add_user(store, args.name, read_password(args.password_file, stdin), args.role)
        print(f"Added {user.name} ({user.role}).", file=out)
    elif args.command == "list":
        users = list_users(store)
        print("\n".join(user_rows(users)) if users else "No users yet.", file=out)
    elif args.command == "remove":
        remove_user(store, args.name)
        print(f"Removed {args.name.strip().lower()}.", file=out)
    elif args.command == "set-role":
        user = set_role(store, args.name, args.role)
        print(f"{user.name} is now {user.role}.", file=out)
    elif args.command == "set-password":
        user = set_password(store, args.name, read_password(args.password_file, stdin))
        print(f"Changed the password of {user.name}.", file=out)


def main(argv: Sequence[str] | None = None, *, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    args = parser().parse_args(argv)
    try:
        store = Store.open(args.db)
    except Exception as exc:  # a database that cannot be opened or migrated
        print(f"error: cannot open the database: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    try:
        run(args, store, stdin, out)
    except (UserError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
