"""The broker's generated files: configuration, accounts, and the ACL's fixed parts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gobuddy.bus import topics
from tests.mqtt_broker import BROKER_DIR, _load

make_config = _load("make_config")
make_users = _load("make_users")


def directives(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_deployment_config_has_auth_persistence_and_both_listeners(tmp_path: Path) -> None:
    settings = make_config.BrokerSettings(data_dir=tmp_path / "data", password_file=tmp_path / "passwd",
                                          port=1883, bind_address="192.168.1.10", tls_port=8883,
                                          certs_dir=tmp_path / "certs", log_file=tmp_path / "log")
    lines = directives(make_config.render(settings))
    for expected in ["allow_anonymous false", f"password_file {tmp_path / 'passwd'}",
                     f"acl_file {BROKER_DIR / 'acl'}", "persistence true", "autosave_interval 1",
                     f"persistence_location {tmp_path / 'data'}/", "listener 1883 192.168.1.10",
                     "listener 8883 0.0.0.0", f"cafile {tmp_path / 'certs' / 'ca.crt'}",
                     f"certfile {tmp_path / 'certs' / 'server.crt'}", f"keyfile {tmp_path / 'certs' / 'server.key'}",
                     "require_certificate false", "user mosquitto", "per_listener_settings false"]:
        assert expected in lines, expected
    assert not [line for line in lines if "${" in line]


def test_config_without_tls_has_one_listener(tmp_path: Path) -> None:
    lines = directives(make_config.render(make_config.BrokerSettings(data_dir=tmp_path, password_file=tmp_path / "p")))
    assert [line for line in lines if line.startswith("listener")] == ["listener 1883 127.0.0.1"]
    assert "log_dest stderr" in lines


@pytest.mark.parametrize("boards", [["kitchen"], ["board-Kitchen"], ["board-1", "board-1"], ["web-1"], ["board-a/b"]])
def test_make_users_refuses_bad_board_names(boards: list[str]) -> None:
    with pytest.raises(ValueError):
        make_users.accounts(boards)


def test_make_users_keeps_passwords_unless_rotated(tmp_path: Path) -> None:
    args = ["--password-file", str(tmp_path / "passwd"), "--credentials", str(tmp_path / "creds.json")]
    make_users.main(["--boards", "board-1", *args])
    first = json.loads((tmp_path / "creds.json").read_text())
    assert sorted(first) == ["board-1", "dashboard", "engine", "observer", "recorder"]
    make_users.main(["--boards", "board-1", "board-2", *args])
    second = json.loads((tmp_path / "creds.json").read_text())
    assert {k: second[k] for k in first} == first and "board-2" in second
    make_users.main(["--boards", "board-1", "--rotate", *args])
    assert json.loads((tmp_path / "creds.json").read_text())["engine"] != first["engine"]
    users = [line.split(":")[0] for line in (tmp_path / "passwd").read_text().splitlines()]
    assert users == ["board-1", "engine", "recorder", "dashboard", "observer"]
    assert (tmp_path / "creds.json").stat().st_mode & 0o077 == 0


def test_acl_grants_the_dashboard_exactly_the_web_board_slots() -> None:
    acl = (BROKER_DIR / "acl").read_text()
    slots = sorted({int(n) for n in re.findall(r"gobuddy/v1/board/web-(\d+)/", acl)})
    assert slots == list(range(1, topics.WEB_BOARD_SLOTS + 1))


def test_acl_denies_board_patterns_for_every_service_account() -> None:
    acl = (BROKER_DIR / "acl").read_text()
    for account in make_users.SERVICE_ACCOUNTS:
        block = acl.split(f"user {account}\n", 1)[1].split("\nuser ", 1)[0]
        for pattern in (f"gobuddy/v1/board/{account}/#", f"gobuddy/v1/+/board/{account}",
                        f"gobuddy/v1/engine/+/board/{account}"):
            assert f"topic deny {pattern}" in block, (account, pattern)
