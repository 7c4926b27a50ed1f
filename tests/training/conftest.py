"""Fixtures for the training tests: scripted GTP engines and the real reference engines."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

SCRIPTED = Path(__file__).with_name("scripted_engine.py")
GNUGO = shutil.which("gnugo") or "/usr/games/gnugo"
needs_gnugo = pytest.mark.skipif(not Path(GNUGO).exists(), reason="GNU Go (Debian gnugo) is not installed")


@pytest.fixture
def scripted(tmp_path):
    """``scripted(name, **script)`` -> argv of a scripted engine (see scripted_engine.py)."""

    def make(name: str = "scripted", **script) -> list[str]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"name": name, **script}))
        return [sys.executable, str(SCRIPTED), str(path)]

    return make
