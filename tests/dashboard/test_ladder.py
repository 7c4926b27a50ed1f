"""The adaptive ladder's steps (a table), the level an engine player's name carries,
results from the player's side, and the rank estimate (move quality, calibrated levels)."""

from __future__ import annotations

import pytest

from dashboard import ladder, rank_estimate

LEVELS = ["30 kyu", "25 kyu", "20 kyu", "15 kyu", "10 kyu", "5 kyu", "1 dan", "full"]

STEPS = [  # level played, the person's result, level after
    ("15 kyu", "win", "10 kyu"),
    ("15 kyu", "loss", "20 kyu"),
    ("15 kyu", "draw", "15 kyu"),
    ("30 kyu", "loss", "30 kyu"),  # the weakest stays
    ("30 kyu", "win", "25 kyu"),
    ("full", "win", "full"),  # the strongest stays
    ("full", "loss", "1 dan"),
    ("1 dan", "win", "full"),
]


@pytest.mark.parametrize("played, result, after", STEPS)
def test_the_ladder_steps(played, result, after):
    assert ladder.step(LEVELS, played, result) == after


def test_the_ladder_refuses_what_it_does_not_know():
    with pytest.raises(KeyError, match="the levels are"):
        ladder.step(LEVELS, "3 kyu", "win")
    with pytest.raises(ValueError):
        ladder.step(LEVELS, "15 kyu", "resign")


@pytest.mark.parametrize("result, color, expected", [
    ("B+3.5", "B", "win"), ("B+R", "W", "loss"), ("W+T", "W", "win"), ("0", "B", "draw"), ("Draw", "W", "draw"),
    (None, "B", None), ("Void", "B", None), ("", "W", None)])
def test_outcome_from_the_players_side(result, color, expected):
    assert ladder.outcome(result, color) == expected


@pytest.mark.parametrize("name, level", [
    ("gobuddy 15 kyu", "15 kyu"), ("GoBuddy (15 Kyu)", "15 kyu"), ("15 kyu", "15 kyu"), ("gobuddy 5 kyu", "5 kyu"),
    ("gobuddy 115 kyu", None), ("gobuddy", None), ("gobuddy full", "full"), ("gobuddy 1 dan", "1 dan"), (None, None)])
def test_the_level_an_engine_players_name_carries(name, level):
    assert ladder.level_in_name(name, LEVELS) == level


def test_an_engine_players_name_gives_its_level_back():
    for level in LEVELS:
        assert ladder.level_in_name(ladder.engine_player_name(level), LEVELS) == level


def test_a_newcomer_is_offered_the_weakest_level():
    assert ladder.suggested_level(None, LEVELS) == "30 kyu"
    assert ladder.suggested_level("10 kyu", LEVELS) == "10 kyu"
    assert ladder.suggested_level("10 kyu", []) is None


def test_the_levels_come_from_gobuddy_ai_when_it_is_there():
    levels = ladder.default_levels()
    if levels is not None:
        assert levels == sorted(levels, key=levels.index) and len(levels) >= 2


@pytest.mark.parametrize("loss, rank", [(0.2, "5 dan"), (0.6, "1 dan"), (1.0, "5 kyu"), (1.25, "8 kyu"),
                                        (3.0, "20 kyu"), (9.0, "30 kyu")])
def test_move_quality_maps_to_a_rank_by_the_stated_table(loss, rank):
    assert rank_estimate.rank_name(rank_estimate.loss_to_rank(loss)) == rank


def test_the_move_quality_estimate_has_an_interval_that_narrows_with_games():
    few = rank_estimate.from_move_quality([1.0, 2.0])
    many = rank_estimate.from_move_quality([1.0, 2.0] * 10)
    assert few.rank == many.rank == "10 kyu"  # a mean loss of 1.5
    assert rank_estimate.rank_value(few.low) < rank_estimate.rank_value(many.low) <= rank_estimate.rank_value(many.rank)
    assert rank_estimate.from_move_quality([]) is None


def test_results_against_calibrated_levels_give_the_estimate(tmp_path):
    levels_md = tmp_path / "LEVELS.md"
    levels_md.write_text(  # as training.levels_report writes it
        "# Opponent levels: calibration\n\nWritten by ...\n\n"
        "| level | games | Elo (95% interval) | results (wins-losses[-jigo]) against | estimated rank (range) |\n"
        "|---|---|---|---|---|\n"
        "| 25 kyu | 40 | -800 (-900 to -700) | 20k 3-17 | 25 kyu (27 kyu to 23 kyu) |\n"
        "| 15 kyu | 40 | -400 (-450 to -350) | 10k 8-12 | 15 kyu (16 kyu to 14 kyu) |\n"
        "| full | 40 | +700 (+600 to +800) | gnugo-10 30-10 | 1 dan (2 kyu to 3 dan) |\n"
        "| GNU Go 3.8 level 10 | 80 | +0 | 15k 12-8 | 8 kyu (the anchor) |\n\nText after.\n")
    levels = rank_estimate.read_levels(levels_md)
    assert levels == {"25 kyu": (-800.0, -25.0), "15 kyu": (-400.0, -15.0), "full": (700.0, 0.0),
                      "GNU Go 3.8 level 10": (0.0, -8.0)}
    results = [("15 kyu", "win")] * 5 + [("15 kyu", "loss")] * 5
    [(size, est)] = rank_estimate.estimates([3.0] * 10, {9: results}, lambda n: levels)
    assert size == 9 and est.rank == "15 kyu" and "Elo -400" in est.basis
    assert rank_estimate.rank_value(est.low) < -15 < rank_estimate.rank_value(est.high)
    [(size, est)] = rank_estimate.estimates([3.0] * 10, {9: results[:3]}, lambda n: levels)
    assert size is None and est.basis.startswith("mean point loss")
    assert rank_estimate.read_levels(tmp_path / "missing.md") == {}


def test_each_size_is_estimated_from_its_own_levels_and_move_quality_only_without_them():
    nine = {"15 kyu": (-400.0, -15.0), "5 kyu": (200.0, -5.0)}
    thirteen = {"15 kyu": (-100.0, -12.0), "5 kyu": (300.0, -4.0)}
    levels = {9: nine, 13: thirteen}.get
    even = [("15 kyu", "win"), ("15 kyu", "loss")] * 3

    def shown(results: dict) -> list[tuple]:
        return [(size, est.rank) for size, est in rank_estimate.estimates([3.0] * 4, results, lambda n: levels(n, {}))]

    # |  games by size                     | estimates (9x9 first, not pooled)     |
    assert shown({13: even, 9: even}) == [(9, "15 kyu"), (13, "12 kyu")]
    assert shown({13: even}) == [(13, "12 kyu")]
    assert shown({9: even[:4], 13: even}) == [(13, "12 kyu")]  # 4 games on 9x9: too few
    assert shown({9: even[:4]}) == [(None, "20 kyu")]  # neither: move quality (3 points a move)
    assert shown({19: even}) == [(None, "20 kyu")]  # a size with no calibration
    assert rank_estimate.estimates([], {9: even[:4]}, lambda n: nine) == []
