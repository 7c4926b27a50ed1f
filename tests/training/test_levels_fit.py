"""The calibration's ladder (training.levels_fit) and its bookkeeping (training.levels):
a Bradley-Terry fit recovers known strengths from a synthetic table, bootstrap
intervals cover them, the EGF rank scale, the match schedule and the reading of saved
games."""

from __future__ import annotations

import json
import random

import pytest

from gobuddy.ai.levels import level_names
from training.levels import Pairing, _shutout, collect_games, level_id, schedule
from training.levels_fit import Game, bootstrap, elo_difference, elo_expectation, fit, gor_of, rank_name, rank_of
from training.levels_report import record

TRUE = {"a": -600.0, "b": -250.0, "anchor": 0.0, "c": 150.0, "d": 500.0}


def synthetic(pairs: list[tuple[str, str]], games: int, seed: int = 1) -> list[Game]:
    """``games`` games per pair, each won with the true Elo expectation."""
    rng = random.Random(seed)
    out = []
    for a, b in pairs:
        p = elo_expectation(TRUE[a] - TRUE[b])
        out += [Game(a, b, 1.0 if rng.random() < p else 0.0) for _ in range(games)]
    return out


CHAIN = [("a", "b"), ("b", "anchor"), ("anchor", "c"), ("c", "d"), ("a", "anchor"), ("b", "c")]


def test_fit_recovers_known_strengths():
    ratings = fit(synthetic(CHAIN, 400), "anchor", prior_draws=0.0)
    assert ratings["anchor"] == 0.0
    for player, elo in TRUE.items():
        assert ratings[player] == pytest.approx(elo, abs=45), player


def test_bootstrap_intervals_cover_the_truth_and_see_the_order():
    ladder = bootstrap(synthetic(CHAIN, 150, seed=2), "anchor", samples=60, seed=3, order=("a", "b", "anchor", "c", "d"),
                       prior_draws=0.0)
    for player, elo in TRUE.items():
        assert ladder.low[player] <= elo <= ladder.high[player], (player, ladder.low[player], ladder.high[player])
        assert ladder.low[player] <= ladder.elo[player] <= ladder.high[player]
    assert ladder.ordered_share is not None and ladder.ordered_share > 0.9
    swapped = bootstrap(synthetic(CHAIN, 150, seed=2), "anchor", samples=20, seed=3, order=("b", "a", "anchor"))
    assert swapped.ordered_share == 0.0


def test_a_shutout_gives_a_finite_gap_through_the_virtual_draws():
    games = [Game("x", "y", 1.0)] * 10
    ratings = fit(games, "y", prior_draws=1.0)
    # 10.5 - 0.5 after one virtual draw: 400 * log10(21)
    assert ratings["x"] == pytest.approx(400 * 1.3222, abs=1.0)
    halves = fit([Game("x", "y", 0.5)] * 4 + [Game("x", "y", 1.0)] * 2 + [Game("x", "y", 0.0)] * 2, "y")
    assert halves["x"] == pytest.approx(0.0, abs=1e-6)


def test_fit_refuses_players_no_game_connects():
    with pytest.raises(ValueError, match="not connected"):
        fit([Game("a", "b", 1.0), Game("c", "d", 0.0)], "a")
    with pytest.raises(ValueError, match="anchor"):
        fit([Game("a", "b", 1.0)], "z")


@pytest.mark.parametrize("elo, rank", [
    # 8 kyu to 20 kyu is 12 grades at 124 down to 87 Elo each: about 1,240 Elo
    (0.0, "8 kyu"), (124.0, "7 kyu"), (-118.0, "9 kyu"), (-1240.0, "20 kyu"), (-1800.0, "26 kyu"),
    (1000.0, "1 kyu"), (1250.0, "1 dan"),
])
def test_ranks_on_the_egf_scale_around_an_8_kyu_anchor(elo, rank):
    assert rank_of(elo, 1300.0) == rank


def test_egf_scale_steps():
    assert rank_name(2100) == "1 dan" and rank_name(2000) == "1 kyu" and rank_name(100) == "20 kyu"
    assert rank_name(-900) == "30 kyu"
    # one grade (100 GoR) at 20 kyu is about 87 Elo (a = 200), at 1 dan about 174 (a = 100)
    # (a shrinks a little along the grade, so a grade costs slightly more than at its start)
    assert gor_of(86.86, 100.0) == pytest.approx(200.0, abs=2.0)
    assert gor_of(173.7, 2100.0) == pytest.approx(2200.0, abs=4.0)
    assert gor_of(-300.0, 1300.0) < 1300.0 < gor_of(300.0, 1300.0)


def test_schedule_covers_adjacent_levels_every_gnugo_level_and_two_apart():
    plan = schedule(games=20, full_games=12, probe=6, gnugo=(0, 10), gnugo_games=10)
    ids = [level_id(name) for name in level_names()]
    pairs = {(p.a, p.b): p for p in plan}
    for a, b in zip(ids, ids[1:]):
        assert pairs[(a, b)].games == (12 if b == "L-full" else 20) and pairs[(a, b)].probe == 0
    for a in ids:
        for g in ("gnugo-0", "gnugo-10"):
            assert pairs[(a, g)] == Pairing(a, g, 10, 6)
    assert (ids[0], ids[2]) in pairs and (ids[-3], ids[-1]) not in pairs
    assert plan.index(pairs[(ids[0], ids[1])]) < plan.index(pairs[(ids[0], "gnugo-0")])


def test_saved_games_are_read_by_colour_and_void_games_left_out(tmp_path):
    folder = tmp_path / "L-30-kyu__gnugo-0"
    folder.mkdir()
    entries = [
        {"black": "L-30-kyu", "white": "gnugo-0", "winner": "gnugo-0", "reason": "score"},
        {"black": "gnugo-0", "white": "L-30-kyu", "winner": "L-30-kyu", "reason": "resign"},
        {"black": "L-30-kyu", "white": "gnugo-0", "winner": None, "reason": "score"},
        {"black": "gnugo-0", "white": "L-30-kyu", "winner": None, "reason": "void"},
    ]
    (folder / "games.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    games, scores = collect_games(tmp_path)
    assert games == [Game("L-30-kyu", "gnugo-0", 0.0), Game("gnugo-0", "L-30-kyu", 0.0), Game("L-30-kyu", "gnugo-0", 0.5)]
    assert scores[("L-30-kyu", "gnugo-0")] == [0.0, 1.0, 0.5]
    assert record(scores[("L-30-kyu", "gnugo-0")]) == "1-1-1"
    assert not _shutout(entries[:3]) and _shutout(entries[:1]) and not _shutout([])


def test_the_prior_sits_only_on_the_pairs_given():
    # x beats y 3-1; y never met z except z losing 0-6 to x: no prior there keeps the
    # shutout from pulling z up towards x
    games = [Game("x", "y", 1.0)] * 3 + [Game("x", "y", 0.0)] + [Game("x", "z", 1.0)] * 6 + \
        [Game("y", "z", 1.0)] * 5 + [Game("y", "z", 0.0)]
    everywhere = fit(games, "x")
    on_steps = fit(games, "x", prior_pairs=[("x", "y"), ("y", "z")])
    assert on_steps["z"] < everywhere["z"] < 0.0
    with_none = fit([Game("a", "b", 1.0)] * 5 + [Game("b", "c", 1.0)] * 5, "a", prior_pairs=[("a", "b"), ("b", "c")])
    assert with_none["a"] > with_none["b"] > with_none["c"]


@pytest.mark.parametrize("score, elo", [
    (0.5, 0), (0.575, 53), (0.64, 100), (0.76, 200), (0.839, 287), (0.25, -191),
])
def test_a_score_reads_as_the_elo_difference_that_expects_it(score, elo):
    assert round(elo_difference(score)) == elo
    assert elo_expectation(elo_difference(score)) == pytest.approx(score)


@pytest.mark.parametrize("score", [0.0, 1.0, -0.1, 1.5])
def test_a_score_of_all_or_nothing_has_no_elo_difference(score):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        elo_difference(score)


# (options, board size of the games, games folder, report) of python -m training.levels
SIZES = [
    ([], 9, "data/levels", "models/LEVELS.md"),
    (["--size", "13"], 13, "data/levels-13x13", "models/LEVELS-13x13.md"),  # 13x13 keeps the 9x9 calibration
    (["--size", "13", "--out", "/tmp/x", "--report", "/tmp/x.md"], 13, "/tmp/x", "/tmp/x.md"),
]


@pytest.mark.parametrize("options, size, out, report", SIZES)
def test_each_board_size_is_calibrated_into_its_own_folder_and_report(options, size, out, report):
    from training.levels import REPO, parse_args

    args = parse_args(options)
    assert args.size == size
    assert args.out == REPO / out and args.report == REPO / report  # an absolute path stays as it is
    assert args.level_model == REPO / "models" / "levels" / f"gobuddy-{size}x{size}.int8.onnx"


def _game_in(folder) -> None:
    folder.mkdir(parents=True)
    entry = {"black": "L-30-kyu", "white": "gnugo-0", "winner": "gnugo-0", "reason": "score"}
    (folder / "games.jsonl").write_text(json.dumps(entry) + "\n")


# (what the games folder holds before the run, whether a pin is there after it, bytes of the pin)
PINS = [
    ("nothing", True, b"shipped today"),                       # a new calibration pins today's model
    ("a pin", True, b"shipped earlier"),                         # a resumed one keeps its pin
    ("a pin and games", True, b"shipped earlier"),
    ("games only", False, None),                                 # played before pinning: not recorded
]


@pytest.mark.parametrize("before, pinned, content", PINS)
def test_a_calibration_pins_the_model_it_starts_with_to_its_last_game(tmp_path, before, pinned, content):
    from training.levels import level_engine, model_line, pin_model

    out, shipped = tmp_path / "levels", tmp_path / "gobuddy-13x13.int8.onnx"
    shipped.write_bytes(b"shipped today")
    if "pin" in before:
        out.mkdir()
        (out / "model.int8.onnx").write_bytes(b"shipped earlier")
    if "games" in before:
        _game_in(out / "L-30-kyu__gnugo-0")
    pin = pin_model(out, shipped)
    assert (pin is not None) == pinned
    if pinned:
        assert pin.read_bytes() == content
        assert f"--model {pin.resolve()}" in " ".join(level_engine("5 kyu", model=pin).extra)
        same = content == b"shipped today"
        assert ("the same file as the shipped model today" in model_line(pin, shipped)) == same
        assert ("**not** the shipped model today" in model_line(pin, shipped)) == (not same)
    else:
        assert "--model" not in level_engine("5 kyu", model=pin).extra
        assert model_line(pin, shipped).startswith("Model: not recorded")
    assert not list(out.glob("*.part"))


def test_writing_the_report_installs_the_pin_as_what_the_levels_play(tmp_path, capsys):
    from training.levels import main

    out, installed = tmp_path / "levels", tmp_path / "models" / "levels" / "gobuddy-9x9.int8.onnx"
    folder = out / "L-30-kyu__L-25-kyu"
    folder.mkdir(parents=True)
    results = ["L-25-kyu", "L-25-kyu", "L-25-kyu", "L-30-kyu"]
    folder.joinpath("games.jsonl").write_text("".join(
        json.dumps({"black": "L-30-kyu", "white": "L-25-kyu", "winner": w, "reason": "score"}) + "\n"
        for w in results))
    (out / "model.int8.onnx").write_bytes(b"the model the games were played with")
    argv = ["--report-only", "--out", str(out), "--report", str(tmp_path / "LEVELS.md"),
            "--level-model", str(installed), "--samples", "20"]
    assert main(argv) == 0
    assert installed.read_bytes() == b"the model the games were played with"
    assert "installed" in capsys.readouterr().err
    line = [row for row in (tmp_path / "LEVELS.md").read_text().splitlines() if row.startswith("Model:")][0]
    assert "Every level but full plays that same file in the product (`models/levels/gobuddy-9x9.int8.onnx`)" in line
    assert main(argv) == 0 and "installed" not in capsys.readouterr().err  # already there: left alone


@pytest.mark.parametrize("installed, shipped, words", [
    (b"pinned", b"pinned", "plays that same file in the product (`models/levels/m.onnx`), so these ranks hold "
                           "when a stronger model is promoted; full plays the shipped model, the same file today."),
    (b"pinned", b"promoted", "full plays the shipped model, a newer one today (SHA-256 "),
    (b"other", b"pinned", "the same file as the shipped model today."),         # not installed: the old words
    (b"other", b"promoted", "**not** the shipped model today"),
])
def test_the_model_line_says_what_the_levels_and_full_play(tmp_path, installed, shipped, words):
    from training.levels import install_pin, model_line

    pin = tmp_path / "levels" / "model.int8.onnx"
    pin.parent.mkdir()
    pin.write_bytes(b"pinned")
    (tmp_path / "shipped.onnx").write_bytes(shipped)
    (tmp_path / "levels" / "m.onnx").write_bytes(installed)
    assert words in model_line(pin, tmp_path / "shipped.onnx", tmp_path / "levels" / "m.onnx")
    assert install_pin(pin, tmp_path / "levels" / "m.onnx") == (installed != b"pinned")
    assert (tmp_path / "levels" / "m.onnx").read_bytes() == b"pinned"
    assert not list(tmp_path.glob("levels/*.part"))


def test_a_missing_shipped_model_is_named_when_there_is_nothing_to_pin(tmp_path):
    from training.levels import pin_model

    with pytest.raises(FileNotFoundError, match="gobuddy-13x13.int8.onnx is missing"):
        pin_model(tmp_path / "levels", tmp_path / "gobuddy-13x13.int8.onnx")


def test_the_report_names_its_board_size_and_model(tmp_path):
    from training.levels import ladder as fit_ladder
    from training.levels_report import write_report

    games = [Game("L-30-kyu", "L-25-kyu", 0.0)] * 3 + [Game("L-30-kyu", "L-25-kyu", 1.0)]
    fitted, anchor = fit_ladder(games, samples=20, seed=1)
    report = tmp_path / "LEVELS-13x13.md"
    write_report(report, fitted, {("L-30-kyu", "L-25-kyu"): [0, 0, 0, 1], ("L-25-kyu", "L-30-kyu"): [1, 1, 1, 0]},
                 level_names(), level_id, anchor, 1300.0, rank_of,
                 settings={"out": str(tmp_path / "levels-13x13"), "samples": 20, "size": 13}, ordered=True,
                 model="Model: the levels played `gobuddy-13x13.int8.onnx`.")
    text = report.read_text()
    assert "4 games; 13x13, komi 7" in text and "Model: the levels played `gobuddy-13x13.int8.onnx`." in text
    assert "**On 13x13**" in text and "python -m training.levels --size 13 --report-only" in text
    assert "55 minutes" not in text  # the 9x9 run's timing is not claimed for 13x13
