"""Match summaries: the Wilson interval and the counting of games."""

from __future__ import annotations

import pytest

from training.match_report import markdown, summarize, wilson_interval


@pytest.mark.parametrize("wins, n, low, high", [
    # Closed forms: 0/n -> (0, z^2/(n+z^2)); n/n -> (n/(n+z^2), 1).
    (0, 10, 0.0, 0.27753),
    (10, 10, 0.72247, 1.0),
    (5, 10, 0.23659, 0.76341),
    (1, 10, 0.01788, 0.40415),
    (81, 263, 0.25530, 0.36624),
    (50, 100, 0.40383, 0.59617),
    (0, 0, 0.0, 1.0),
])
def test_wilson_interval(wins, n, low, high):
    lo, hi = wilson_interval(wins, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


def test_wilson_refuses_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def entry(black, white, winner, reason="score", seconds=None):
    return {"black": black, "white": white, "winner": winner, "reason": reason, "result": "?",
            "seconds": seconds or {}, "notes": []}


def test_summarize_counts_wins_jigo_void_and_times():
    games = [
        entry("a", "b", "a", seconds={"a": [1.0, 3.0], "b": [0.5]}),
        entry("b", "a", "a", reason="resign"),
        entry("a", "b", "b", seconds={"a": [2.0], "b": [0.5, 0.5]}),
        entry("b", "a", None),                 # jigo: half a win
        entry("a", "b", None, reason="void"),  # counts for nobody
    ]
    games[2]["notes"] = ["engines disagree on dead stones after move 60: both played on with "
                         "kgs-genmove_cleanup until two passes"]
    s = summarize(games, "a", "b")
    assert (s["games_with_notes"], s["games_played_out"]) == (1, 1)
    assert (s["games"], s["a_wins"], s["a_losses"], s["jigo"], s["void"]) == (5, 2, 1, 1, 1)
    assert s["a_win_rate"] == pytest.approx(2.5 / 4)
    assert s["a_win_rate_wilson95"] == list(wilson_interval(2.5, 4))
    assert s["a_wins_as_black"] == [1, 2] and s["a_wins_as_white"] == [1, 2]
    assert s["ended_by"] == {"resign": 1, "score": 3, "void": 1}
    a = s["seconds_per_move"]["a"]
    assert (a["moves"], a["mean_s"], a["median_s"], a["max_s"]) == (3, 2.0, 2.0, 3.0)
    assert a["p95_s"] == pytest.approx(2.9)
    text = markdown(s)
    assert "| 5 | 2 | 1 | 1 | 1 | 62.5% |" in text and "| a | 3 | 2.000 |" in text
    assert "games with referee notes: 1; disputed ends played out with kgs-genmove_cleanup: 1." in text
