"""Keeping the dashboard's long-lived objects out of Streamlit's per-run garbage collection.

Streamlit runs a full garbage collection (``gc.collect(2)``) at the end of every script
run, a fragment's run included (its ``runner.postScriptGC`` option, on by default).
With plotly's validators, pandas, onnxruntime and SQLAlchemy loaded, that walk over
some 180,000 objects took 250 ms on the 2-core machine of ``bench/RESULTS.md`` (more
when it is busy): a quarter of a second after every click on the Play page, and again
after the engine's answer, before the next run could start.

``freeze_long_lived`` collects once and moves every object alive then (modules,
classes, plotly's validators, caches: they live as long as the process) to the
permanent generation (``gc.freeze``), so later collections walk only what the runs
create (0.03 ms here). Once per process; thread-safe.

Not done here: objects created later stay collectable as usual; what was frozen is
never freed (it lives as long as the process anyway).
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_done = False


def freeze_long_lived() -> bool:
    """Collect, then freeze everything alive now; True when this call did it (the
    first), False afterwards."""
    global _done
    with _lock:
        if _done:
            return False
        gc.collect()
        gc.freeze()
        _done = True
        return True


def frozen() -> int:
    """How many objects the collector now ignores (``gc.get_freeze_count``)."""
    return gc.get_freeze_count()
