"""Which implementation runs the PUCT search: ``"native"`` (``gobuddy.ai.native_search``,
the tree in C), ``"python"`` (``gobuddy.ai.mcts.Search``) or ``"auto"``: the native one
where it can run, else the Python one.

Both make the same trees for the same network outputs and ``SearchConfig``, pipeline
or not (``tests/ai/test_native_play_search.py``), so a calibrated level or a measured
player plays the same with either; the native one reaches more visits a second
(``bench/RESULTS.md``) because the network is then nearly all of a batch. ``auto`` falls back to Python for an evaluator the native search
cannot run (symmetries, test doubles) and where the library cannot be built (no C
compiler, a read-only checkout); ``make_search`` returns why in its second value.
"""

from __future__ import annotations

from typing import Any

from gobuddy.ai.mcts import Search, SearchConfig

ENGINES = ("auto", "native", "python")


def make_search(evaluator: Any, config: SearchConfig = SearchConfig(), engine: str = "auto") -> tuple[Any, str]:
    """A search over ``evaluator`` run by ``engine`` (module docstring), and a note: empty,
    or why ``auto`` fell back to Python. ``ValueError`` for an unknown ``engine`` or an
    evaluator ``"native"`` cannot run; ``NativeBuildError`` when ``"native"`` cannot be
    built."""
    if engine not in ENGINES:
        raise ValueError(f"the search engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "python":
        return Search(evaluator, config), ""
    from gobuddy.ai import native_search

    if engine == "auto" and not native_search.supports(evaluator):
        return Search(evaluator, config), "the native search runs ONNX models without symmetries only"
    try:
        return native_search.NativeSearch(evaluator, config), ""
    except (native_search.NativeBuildError, OSError) as exc:
        if engine == "native":
            raise
        return Search(evaluator, config), f"the native search could not be built: {exc}"


__all__ = ["ENGINES", "make_search"]
