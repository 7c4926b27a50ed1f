"""The engine benchmark runs end to end (quick mode) and writes its markdown section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_bench_writes_every_section(tmp_path):
    out = tmp_path / "engine.md"
    done = subprocess.run([sys.executable, "-m", "bench.bench_engine", "--quick", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    text = out.read_text()
    for heading in ("## Engine", "### Feature extraction", "### Raw onnxruntime throughput",
                    "### Search throughput", "### The int8 twin", "### The compiled search at play time",
                    "### Analysis latency"):
        assert heading in text
    twin_mb = (ROOT / "models" / "gobuddy-9x9.int8.onnx").stat().st_size / 1e6
    assert f"| int8 twin | {twin_mb:.1f} MB |" in text and "the visits a second of the float model" in text
    assert "| 64 |" in text and "(default)" in text
    assert "| compiled search |" in text and text.count("x** |") == 2  # both thread counts compared
