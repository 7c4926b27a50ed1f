"""The broker's generated files: configuration, accounts and their ACLs, secrets."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
from pathlib import Path

import pytest

from gobuddy.bus import topics
from tests.mqtt_broker import _load

make_config = _load("make_config")
make_users = _load("make_users")


def directives(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_deployment_config_has_auth_persistence_and_a_tls_only_lan(tmp_path: Path) -> None:
    settings = make_config.BrokerSettings(data_dir=tmp_path / "data", dynsec_file=tmp_path / "dynsec.json",
                                          dynsec_plugin=Path("/lib/dynsec.so"), port=1883, tls_port=8883,
                                          tls_bind_address="192.168.1.10", certs_dir=tmp_path / "certs",
                                          require_client_cert=True, log_file=tmp_path / "log")
    lines = directives(make_config.render(settings))
    for expected in ["allow_anonymous false", "plugin /lib/dynsec.so",
                     f"plugin_opt_config_file {tmp_path / 'dynsec.json'}", "persistence true", "autosave_interval 1",
                     f"persistence_location {tmp_path / 'data'}/", "listener 1883 127.0.0.1",
                     "listener 8883 192.168.1.10", f"cafile {tmp_path / 'certs' / 'ca.crt'}",
                     f"certfile {tmp_path / 'certs' / 'server.crt'}", f"keyfile {tmp_path / 'certs' / 'server.key'}",
                     "require_certificate true", "use_identity_as_username true", "use_username_as_clientid true",
                     "user mosquitto", "per_listener_settings false"]:
        assert expected in lines, expected
    assert not [line for line in lines if "${" in line or line.startswith(("password_file", "acl_file"))]


def test_config_without_tls_has_one_loopback_listener(tmp_path: Path) -> None:
    lines = directives(make_config.render(make_config.BrokerSettings(data_dir=tmp_path,
                                                                     dynsec_file=tmp_path / "d.json")))
    assert [line for line in lines if line.startswith("listener")] == ["listener 1883 127.0.0.1"]
    assert "log_dest stderr" in lines
    assert "use_identity_as_username true" not in lines


@pytest.mark.parametrize("address", ["0.0.0.0", "192.168.1.10", "broker.lan", "::"])
def test_the_plain_listener_never_serves_beyond_loopback(tmp_path: Path, address: str) -> None:
    with pytest.raises(ValueError, match="loopback only"):
        make_config.BrokerSettings(data_dir=tmp_path, dynsec_file=tmp_path / "d.json", bind_address=address)
    with pytest.raises(SystemExit):
        make_config.main(["--out", str(tmp_path / "m.conf"), "--data-dir", str(tmp_path),
                          "--dynsec", str(tmp_path / "d.json"), "--bind", address])
    assert not (tmp_path / "m.conf").exists()


@pytest.mark.parametrize("boards", [["kitchen"], ["board-Kitchen"], ["board-1", "board-1"], ["web-1"], ["board-a/b"]])
def test_make_users_refuses_bad_board_names(boards: list[str]) -> None:
    with pytest.raises(ValueError):
        make_users.accounts(boards)


@pytest.mark.parametrize("name, role", [("board-1", "board"), ("engine-2", "engine"), ("engine-pc1", "engine"),
                                        ("recorder", "recorder"), ("dashboard", "dashboard"),
                                        ("observer-ann", "observer"), ("health", "health")])
def test_account_roles(name: str, role: str) -> None:
    assert make_users.role_of(name) == role


@pytest.mark.parametrize("name", ["board", "web-1", "admin", "observer-", "Engine-1", "engine-a/b", "", "board-X"])
def test_names_that_are_not_accounts(name: str) -> None:
    with pytest.raises(ValueError):
        make_users.role_of(name)


def test_make_users_writes_one_private_secret_per_account_and_keeps_them(tmp_path: Path) -> None:
    args = ["--dynsec", str(tmp_path / "broker" / "dynsec.json"), "--secrets-dir", str(tmp_path / "secrets")]
    make_users.main(["--boards", "board-1", *args])
    first = make_users.read_secrets(tmp_path / "secrets")
    assert sorted(first) == ["board-1", "dashboard", "engine-1", "engine-2", "health", "observer", "recorder", "reviewer"]
    make_users.main(["--boards", "board-1", "board-2", "--engines", "3", *args])
    second = make_users.read_secrets(tmp_path / "secrets")
    assert {k: second[k] for k in first} == first and {"board-2", "engine-3"} <= set(second)
    make_users.main(["--boards", "board-1", "--rotate", *args])
    assert make_users.read_secrets(tmp_path / "secrets")["engine-1"] != first["engine-1"]
    for path in [tmp_path / "broker" / "dynsec.json", *(tmp_path / "secrets").iterdir()]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    text = (tmp_path / "broker" / "dynsec.json").read_text()
    assert not [password for password in second.values() if password in text]  # hashes only


def test_dynsec_hashes_are_mosquittos_pbkdf2_sha512() -> None:
    fields = make_users.hash_password("s3cret", salt=b"0123456789ab", iterations=101)
    expected = hashlib.pbkdf2_hmac("sha512", b"s3cret", b"0123456789ab", 101, 64)
    assert base64.b64decode(fields["password"]) == expected
    assert base64.b64decode(fields["salt"]) == b"0123456789ab" and fields["iterations"] == 101


def test_every_account_is_bound_to_its_own_client_id_and_role() -> None:
    names = make_users.accounts(["board-1"], 2, ["observer", "observer-ann"])
    config = make_users.dynsec_config({name: "pw" for name in names})
    assert config["defaultACLAccess"] == {"publishClientSend": False, "publishClientReceive": False,
                                          "subscribe": False, "unsubscribe": True}
    assert [(c["username"], c["clientid"], c["roles"]) for c in config["clients"]] == [
        (name, name, [{"rolename": name}]) for name in names]
    assert all(acl["allow"] for role in config["roles"] for acl in role["acls"])
    assert not [acl for role in config["roles"] for acl in role["acls"] if "%" in acl["topic"]]


def test_only_engine_accounts_may_join_the_engine_group() -> None:
    names = make_users.accounts(["board-1", "board-2"], 3, ["observer"])
    config = make_users.dynsec_config({name: "pw" for name in names})
    joiners = sorted(role["rolename"] for role in config["roles"] for acl in role["acls"]
                     if acl["topic"].startswith("$share/"))
    assert joiners == ["engine-1", "engine-2", "engine-3"]


def test_the_dashboard_may_write_exactly_the_web_board_slots() -> None:
    acls = make_users.acls_for("dashboard")
    boards = sorted({acl["topic"].split("/")[3] for acl in acls
                     if acl["acltype"] == "publishClientSend" and acl["topic"].endswith(("/event", "/state"))})
    assert boards == sorted(f"web-{slot}" for slot in range(1, topics.WEB_BOARD_SLOTS + 1))


def test_the_dynsec_file_loads_as_json_with_no_stray_fields(tmp_path: Path) -> None:
    credentials = make_users.write_accounts(["board-1", "engine-1"], tmp_path / "d.json", tmp_path / "s")
    data = json.loads((tmp_path / "d.json").read_text())
    assert sorted(data) == ["clients", "defaultACLAccess", "groups", "roles"]
    assert sorted(credentials) == ["board-1", "engine-1"]
