"""The one-way imports of shared/DESIGN.md, checked on every module of ours.

Each rule is (importer package, imported package): a module under the first may not
import anything under the second, at module level or inside a function. The scan reads
the source (``ast``), so an import that only runs on some path is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("gobuddy", "edge", "engine_worker", "dashboard", "training", "bench", "launcher", "broker", "tests")
SERVICES = ("edge", "engine_worker", "dashboard")

FORBIDDEN: list[tuple[str, str, str]] = [
    # (importer, imported, why)
    *[("gobuddy.go", p, "gobuddy.go imports nothing of ours")
      for p in OURS if p != "gobuddy"],
    ("gobuddy.go", "gobuddy.ai", "gobuddy.go imports nothing of ours"),
    ("gobuddy.go", "gobuddy.bus", "gobuddy.go imports nothing of ours"),
    ("gobuddy.ai", "gobuddy.bus", "the AI library does not build wire messages"),
    ("gobuddy.bus", "gobuddy.ai", "the bus carries plain data, not judgements"),
    ("edge", "gobuddy.ai", "the edge imports no engine code"),
    *[(a, b, "services talk over MQTT only") for a in SERVICES for b in SERVICES if a != b],
    *[(a, "training", "nothing but training and bench imports training")
      for a in OURS if a not in ("training", "bench", "tests")],
    # The benchmarks measure on the tests' own real-part fixtures (Mosquitto, Chromium).
    *[(a, "tests", "nothing imports the tests") for a in OURS if a not in ("tests", "bench")],
    *[(a, "bench", "nothing imports the benchmarks") for a in OURS if a not in ("bench", "tests")],
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module name ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _sources() -> list[Path]:
    return sorted(p for top in OURS for p in (ROOT / top).rglob("*.py")
                  if ".venv" not in p.parts and "pachi" not in p.parts)


def violations() -> list[str]:
    found = []
    for path in _sources():
        importer = _module_name(path)
        imported = _imports(path)
        for source, target, why in FORBIDDEN:
            if not _within(importer, source):
                continue
            for name in sorted(imported):
                if _within(name, target):
                    found.append(f"{importer} imports {name}: {why}")
                    break
    return found


# Crossings known and being removed (issue 18): the list may only shrink, and an entry
# that no longer crosses must be deleted here.
KNOWN: set[str] = set()


def test_no_module_imports_across_a_forbidden_arrow():
    found = set(violations())
    assert sorted(found - KNOWN) == [], "new imports across a forbidden arrow"
    assert sorted(KNOWN - found) == [], "fixed: delete these from KNOWN"


@pytest.mark.parametrize("source, importer, bad", [
    ("from gobuddy.bus.messages import BoardState\n", "gobuddy/ai/probe.py", "gobuddy.bus"),
    ("def f():\n    import edge.agent\n", "dashboard/probe.py", "edge"),
    ("from ..bus import topics\n", "gobuddy/go/probe.py", "gobuddy.bus"),
    ("import training.match\n", "engine_worker/probe.py", "training"),
])
def test_the_scan_sees_each_kind_of_import(tmp_path, monkeypatch, source, importer, bad):
    """A planted module with a forbidden import (plain, in a function, relative) is found."""
    global ROOT
    for top in OURS:
        (tmp_path / top).mkdir()
    planted = tmp_path / importer
    planted.parent.mkdir(parents=True, exist_ok=True)
    for parent in planted.relative_to(tmp_path).parents:
        if str(parent) != ".":
            (tmp_path / parent / "__init__.py").touch()
    planted.write_text(source)
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    found = violations()
    assert len(found) == 1 and f"imports {bad}" in found[0]
