"""``python -m dashboard.users`` on SQLite and PostgreSQL: add, list, set-role,
set-password and remove, the password read from a file, standard input or the terminal
(never an argument), and refusals with exit status 2 and a message."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard import users as command
from dashboard.store import Store
from dashboard.store.users import authenticate, list_users
from tests.e2e.harness import REPO


def run(args: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    return command.main(args, stdin=io.StringIO(stdin), out=out), out.getvalue()


def accounts(url: str) -> list[tuple[str, str]]:
    store = Store.open(url)
    try:
        return [(u.name, u.role) for u in list_users(store)]
    finally:
        store.close()


def signs_in(url: str, name: str, password: str) -> bool:
    store = Store.open(url)
    try:
        return authenticate(store, name, password).ok
    finally:
        store.close()


def test_the_life_of_some_users(db_url, tmp_path, capsys):
    secret = tmp_path / "ana.txt"
    secret.write_text("ana-password\nignored second line\n")
    steps = [  # (arguments, standard input, exit status, output or error words)
        (["add", "Ana", "--role", "admin", "--password-file", str(secret)], "", 0, "Added ana (admin)."),
        (["add", "bob", "--role", "viewer", "--password-file", "-"], "bob-password\n", 0, "Added bob (viewer)."),
        (["add", "bob", "--role", "player", "--password-file", "-"], "bob-password\n", 2, "already a user 'bob'"),
        (["add", "no good", "--role", "player", "--password-file", "-"], "x-password\n", 2, "not a valid user name"),
        (["add", "cleo", "--role", "player", "--password-file", "-"], "short\n", 2, "too short"),
        (["add", "cleo", "--role", "player", "--password-file", "-"], "", 2, "too short"),
        (["add", "cleo", "--role", "player", "--password-file", str(tmp_path / "none.txt")], "", 2, "No such file"),
        (["set-role", "bob", "--role", "player"], "", 0, "bob is now player."),
        (["set-role", "ana", "--role", "viewer"], "", 2, "'ana' is the only admin"),
        (["set-role", "cleo", "--role", "viewer"], "", 2, "there is no user 'cleo'"),
        (["set-password", "bob", "--password-file", "-"], "bob-new-password\n", 0, "Changed the password of bob."),
        (["remove", "ana"], "", 2, "'ana' is the only admin"),
        (["remove", "BOB"], "", 0, "Removed bob."),
        (["remove", "bob"], "", 2, "there is no user 'bob'"),
    ]
    for args, stdin, status, words in steps:
        code, out = run([*args, "--db", db_url], stdin)
        err = capsys.readouterr().err
        assert code == status, (args, out, err)
        assert words in (out if status == 0 else err), (args, out, err)
    assert accounts(db_url) == [("ana", "admin")]
    code, out = run(["list", "--db", db_url])
    assert code == 0 and out.splitlines()[1].split()[:3] == ["ana", "admin", "never"]
    assert signs_in(db_url, "ana", "ana-password")


def test_the_password_is_asked_twice_on_the_terminal(tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 'users.db'}"
    answers = iter(["typed-password", "typed-password", "one-password", "another-password"])
    monkeypatch.setattr(command.getpass, "getpass", lambda prompt="": next(answers))
    assert run(["add", "ana", "--role", "player", "--db", url]) == (0, "Added ana (player).\n")
    assert run(["add", "bob", "--role", "player", "--db", url])[0] == 2
    assert "the two passwords differ" in capsys.readouterr().err
    assert accounts(url) == [("ana", "player")] and signs_in(url, "ana", "typed-password")


def test_a_password_is_never_an_argument(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        command.main(["add", "ana", "--role", "admin", "--password", "in-the-shell-history", "--db",
                      f"sqlite:///{tmp_path / 'users.db'}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "unrecognized arguments" in err


def test_the_module_runs_as_a_command(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'users.db'}"
    done = subprocess.run([sys.executable, "-m", "dashboard.users", "add", "ana", "--role", "admin", "--db", url,
                           "--password-file", "-"], input="ana-password\n", capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Added ana (admin).\n", "")
    listed = subprocess.run([sys.executable, "-m", "dashboard.users", "list", "--db", url], capture_output=True,
                            text=True, cwd=REPO, timeout=120)
    assert listed.returncode == 0 and "ana" in listed.stdout and "admin" in listed.stdout
