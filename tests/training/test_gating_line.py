"""The gating verdict's one line: the result, its interval and the same read as Elo."""

from __future__ import annotations

import pytest

from training.gating import GateResult


def verdict(wins: int, losses: int, jigo: int, rate: float | None, wilson: tuple[float, float]) -> GateResult:
    return GateResult(accepted=rate is not None and rate >= 0.55, wins=wins, losses=losses, jigo=jigo, void=0,
                      games=wins + losses + jigo, planned=40, win_rate=rate, wilson95=wilson, threshold=0.55,
                      distinct_games=wins + losses + jigo, candidate="r5", current="r4")


@pytest.mark.parametrize("wins, losses, jigo, rate, wilson, line", [
    (22, 16, 2, 0.575, (0.422, 0.715),
     "candidate ACCEPTED: 22-16-2 (57.5%, Wilson 95% 42.2%-71.5%, need 55%; Elo +53 (-55 to +160))"
     " after 40/40 games, 40 distinct"),
    (11, 20, 1, 0.359, (0.217, 0.532),
     "candidate rejected: 11-20-1 (35.9%, Wilson 95% 21.7%-53.2%, need 55%; Elo -101 (-223 to +22))"
     " after 32/40 games, 32 distinct"),
    (22, 0, 0, 1.0, (0.851, 1.0),
     "candidate ACCEPTED: 22-0 (100.0%, Wilson 95% 85.1%-100.0%, need 55%; Elo +inf (+303 to +inf))"
     " after 22/40 games, 22 distinct"),
    (0, 0, 0, None, (0.0, 1.0),
     "candidate rejected: 0-0 (-, Wilson 95% 0.0%-100.0%, need 55%; Elo - (-inf to +inf))"
     " after 0/40 games, 0 distinct"),
])
def test_the_verdict_line_reads_the_result_as_elo(wins, losses, jigo, rate, wilson, line):
    assert verdict(wins, losses, jigo, rate, wilson).line() == line
