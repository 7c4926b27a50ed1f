"""``dashboard.long_lived``: what lives as long as the process is kept out of the
collection Streamlit runs after every script run, and what runs create later is
still collected. Run in a fresh interpreter (freezing is for the process's life)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc
import plotly.graph_objects  # a big long-lived graph of objects, as the dashboard has
from dashboard.long_lived import freeze_long_lived, frozen
assert frozen() == 0
tracked = len(gc.get_objects())
assert freeze_long_lived() is True
assert freeze_long_lived() is False  # once per process
print(frozen(), tracked)
class Cycle:
    pass
a, b = Cycle(), Cycle()
a.other, b.other = b, a
del a, b
print(gc.collect(2))  # the cycle made after the freeze is still found
"""


def test_freezing_keeps_what_lives_long_out_of_later_collections():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout.split()
    frozen, tracked, collected = int(out[0]), int(out[1]), int(out[2])
    assert frozen >= 0.9 * tracked > 10_000  # all of it: no longer walked after every run
    assert collected >= 2
