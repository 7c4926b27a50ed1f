"""Checking reasons against a row's expectations, written as short strings.

| expectation                  | passes when                                                 |
|------------------------------|-------------------------------------------------------------|
| ``capture``                  | some reason has kind ``capture``                           |
| ``capture 3``                | ... with ``stones == 3``                                    |
| ``capture good`` / ``bad``   | ... with ``good`` True / False (``neutral``: None)          |
| ``capture ~at D4 E4``        | ... whose GTP line contains ``at D4 E4``                   |
| ``territory =8``             | ... whose ``points`` is 8 within 0.5                        |
| ``first capture ...``        | the top-ranked reason matches                               |
| ``-self-atari``              | no reason has kind ``self-atari``                           |
| ``-ladder good``             | no ``ladder`` reason has ``good`` True                      |
| ``none``                     | there are no reasons at all                                 |

Words combine: ``first ladder 1 good ~works``.
"""

from __future__ import annotations

from gobuddy.explain import Reason


def _matches(r: Reason, words: list[str], text: str | None) -> bool:
    kind, rest = words[0], words[1:]
    if r.kind != kind:
        return False
    for w in rest:
        if w.isdigit() and r.stones != int(w):
            return False
        if w == "good" and r.good is not True:
            return False
        if w == "bad" and r.good is not False:
            return False
        if w == "neutral" and r.good is not None:
            return False
        if w.startswith("=") and (r.points is None or abs(r.points - float(w[1:])) > 0.5):
            return False
    return text is None or text in r.line()


def check(reasons: list[Reason], expectations: list[str]) -> None:
    """Assert every expectation (see the module docstring), naming the one that failed."""
    lines = [f"{r.line()} [stones {r.stones}, points {r.points}, good {r.good}]" for r in reasons]
    for e in expectations:
        if e == "none":
            assert not reasons, f"expected no reasons, got {lines}"
            continue
        words, _, text = e.partition("~")
        words = words.split()
        text = text or None
        if words[0] == "first":
            assert reasons and _matches(reasons[0], words[1:], text), f"{e!r}: first of {lines}"
        elif words[0].startswith("-"):
            words[0] = words[0][1:]
            assert not any(_matches(r, words, text) for r in reasons), f"{e!r}: found in {lines}"
        else:
            assert any(_matches(r, words, text) for r in reasons), f"{e!r}: not in {lines}"
