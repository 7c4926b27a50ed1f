"""Reanalyse (``training.reanalyse``): which moves are searched again, what is kept,
the compiled and Python searches agreeing, resuming, refusals, and the positions
builder giving the new targets policy weight."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.native_search import NativeSearch
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.go.position import IllegalMove, Position
from tests.tiny_model import build_tiny_model
from training.game_shards import GameSample, read_shard, shard_paths, write_shard
from training.positions import positions_of
from training.reanalyse import ReanalyseConfig, ReanalyseSettings, main, parse_args, reanalyse_game, run
from training.selfplay import root_visits

OLD = {"E5": 7, "D4": 1}  # a recorded full search's target
# A self-play record: move 1 had a full search, the others were fast (no target).
SELFPLAY = dict(size=9, komi=7.0, moves=["E5", "C3", "G7", "C7", "pass", "pass"], result="B+3", winner="B",
                margin=3.0, ownership=[1] * 41 + [-1] * 40, source="selfplay", black="m", white="m",
                visits=[None, OLD, None, None, None, None], root_values=[0.1, -0.1, 0.2, -0.2, 0.3, -0.3])


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(size=9, blocks=1, channels=8, seed=7, name="tiny-reanalyse").save(
        tmp_path_factory.mktemp("model") / "tiny.onnx")


@pytest.fixture(scope="module")
def evaluator(tiny_model):
    return OnnxEvaluator(tiny_model, intra_threads=1, inter_threads=1)


def native(evaluator) -> NativeSearch:
    return NativeSearch(evaluator, SearchConfig(pipeline=False))


@pytest.mark.parametrize("moves, opening, searched", [
    # moves   opening  moves searched again (0-based)
    ("missing", 0, [0, 2, 3, 4, 5]),
    ("missing", 1, [2, 3, 4, 5]),
    ("all", 0, [0, 1, 2, 3, 4, 5]),
    ("all", 3, [3, 4, 5]),
])
def test_which_moves_get_new_targets(evaluator, moves, opening, searched):
    game = GameSample(**{**SELFPLAY, "opening": opening})
    new = reanalyse_game(native(evaluator), game, ReanalyseSettings(visits=16, moves=moves), "tiny")
    changed = [i for i, (a, b) in enumerate(zip(game.visits, new.visits)) if a != b]
    assert changed == searched
    for i in range(len(game.moves)):
        if i in searched:
            assert sum(new.visits[i].values()) >= 15
            assert -1.0 <= new.root_values[i] <= 1.0
        else:
            assert new.visits[i] == game.visits[i] and new.root_values[i] == game.root_values[i]
    # What was played and counted is the record's: only targets and the note change.
    for key in ("moves", "result", "winner", "margin", "ownership", "source", "black", "opening"):
        assert getattr(new, key) == getattr(game, key)
    assert new.notes == [f"reanalysed by tiny at 16 visits: {len(searched)} moves"]
    assert game.visits[1] == OLD and game.notes == []  # the input is not changed


def test_a_target_is_the_search_of_that_position(evaluator):
    """The first searched move (the empty board) gets what a fresh search there gives."""
    game = GameSample(**SELFPLAY)
    new = reanalyse_game(native(evaluator), game, ReanalyseSettings(visits=24), "tiny")
    fresh = Search(evaluator, SearchConfig(komi=7.0, noise=False, pipeline=False))
    fresh.set_position(Position(9, superko=True))
    fresh.run(visits=24)
    assert new.visits[0] == root_visits(fresh)
    assert new.root_values[0] == round(float(fresh.root.q), 3)


def test_the_compiled_and_python_searches_give_the_same_targets_and_reruns_repeat(evaluator):
    game = GameSample(**SELFPLAY)
    settings = ReanalyseSettings(visits=20, moves="all")
    compiled = native(evaluator)
    first = reanalyse_game(compiled, game, settings, "tiny")
    python = reanalyse_game(Search(evaluator, SearchConfig(pipeline=False)), game, settings, "tiny")
    assert first == python
    other = GameSample(**{**SELFPLAY, "moves": ["C3", "E5", "pass", "pass"], "visits": None, "root_values": None})
    reanalyse_game(compiled, other, settings, "tiny")  # a tree left from another game is not reused
    assert reanalyse_game(compiled, game, settings, "tiny") == first


def test_an_engine_game_gets_targets_for_every_move_after_its_opening(evaluator):
    game = GameSample(size=9, komi=7.0, moves=["C3", "G7", "E5", "C7"], result="W+R", winner="W",
                      reason="resign", opening=2, black="gnugo-10", white="pachi-2000")
    new = reanalyse_game(native(evaluator), game, ReanalyseSettings(visits=8), "tiny")
    assert [v is not None for v in new.visits] == [False, False, True, True]
    assert new.root_values is None  # the other moves have no value to keep beside them
    rows = positions_of(new)
    assert rows["weight"].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert np.count_nonzero(rows["policy"][2]) > 1  # a distribution, not the move played


def test_a_game_with_nothing_to_search_comes_back_unchanged_and_an_illegal_record_is_refused(evaluator):
    full = GameSample(**{**SELFPLAY, "visits": [OLD] * 6})
    assert reanalyse_game(native(evaluator), full, ReanalyseSettings(), "tiny") is full
    illegal = GameSample(**{**SELFPLAY, "moves": ["E5", "E5", "pass", "pass", "pass", "pass"]})
    with pytest.raises(IllegalMove):
        reanalyse_game(native(evaluator), illegal, ReanalyseSettings(visits=4), "tiny")


def test_fast_moves_become_policy_targets_in_the_positions(evaluator):
    game = GameSample(**SELFPLAY)
    before = positions_of(game)
    after = positions_of(reanalyse_game(native(evaluator), game, ReanalyseSettings(visits=8), "tiny"))
    assert before["weight"].tolist() == [0, 1, 0, 0, 0, 0]
    assert after["weight"].tolist() == [1] * 6
    assert np.array_equal(before["policy"][1], after["policy"][1])  # the recorded target is kept
    assert np.array_equal(before["value"], after["value"]) and np.array_equal(before["score"], after["score"])


def _games(folder, shards: int) -> None:
    for s in range(shards):
        moves = [["E5", "C3", "G7", "C7"], ["D4", "F6", "pass", "pass"]][s % 2]
        write_shard(folder / f"selfplay-{s:06d}.jsonl.gz",
                    [GameSample(**{**SELFPLAY, "moves": moves, "visits": [None, OLD, None, None],
                                   "root_values": [0.0] * 4, "seed": s * 10 + k}) for k in range(2)])


def test_run_reanalyses_every_shard_resumes_and_workers_agree(tmp_path, tiny_model):
    games = tmp_path / "games"
    _games(games, 3)
    settings = ReanalyseSettings(visits=8)
    one = ReanalyseConfig(tiny_model, games, tmp_path / "one", settings, progress=False)
    assert run(one) == (6, 18)
    assert [p.name for p in shard_paths(one.out)] == [p.name for p in shard_paths(games)]
    assert json.loads((one.out / "reanalysis.json").read_text())["visits"] == 8
    # Resuming: a lost shard is made again, the others are skipped.
    shard_paths(one.out)[1].unlink()
    assert run(one) == (2, 6)
    two = ReanalyseConfig(tiny_model, games, tmp_path / "two", settings, workers=2, progress=False)
    assert run(two) == (6, 18)
    for a, b in zip(shard_paths(one.out), shard_paths(two.out)):
        assert read_shard(a) == read_shard(b)
        assert all(v is not None for g in read_shard(a) for v in g.visits)


def test_a_folder_made_with_other_settings_is_refused(tmp_path, tiny_model, capsys):
    games = tmp_path / "games"
    _games(games, 1)
    out = tmp_path / "out"
    run(ReanalyseConfig(tiny_model, games, out, ReanalyseSettings(visits=8), progress=False))
    with pytest.raises(ValueError, match="reanalyse into another folder"):
        run(ReanalyseConfig(tiny_model, games, out, ReanalyseSettings(visits=16), progress=False))
    # The model is known by its bytes: a copy elsewhere is the same model, other bytes at its path are not.
    copy = tmp_path / "elsewhere" / "same.onnx"
    copy.parent.mkdir()
    copy.write_bytes(tiny_model.read_bytes())
    assert run(ReanalyseConfig(copy, games, out, ReanalyseSettings(visits=8), progress=False)) == (0, 0)
    build_tiny_model(size=9, blocks=1, channels=8, seed=8, name="tiny-other").save(copy)
    with pytest.raises(ValueError, match="reanalyse into another folder"):
        run(ReanalyseConfig(copy, games, out, ReanalyseSettings(visits=8), progress=False))
    with pytest.raises(SystemExit):
        parse_args(["--model", str(tiny_model), "--games", str(games), "--out", str(out), "--moves", "all",
                    "--visits", "8"])
    assert "holds games reanalysed with" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--visits", "0"], "visits must be >= 1"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--moves", "some"], "invalid choice"),
    (["--c-puct", "0"], "c_puct must be > 0"),
    (["--c-puct", "nan"], "c_puct must be > 0"),
])
def test_command_line_refuses_bad_settings(tmp_path, tiny_model, extra, message, capsys):
    (tmp_path / "games").mkdir()
    with pytest.raises(SystemExit):
        parse_args(["--model", str(tiny_model), "--games", str(tmp_path / "games"), "--out", str(tmp_path / "o"),
                    *extra])
    assert message in capsys.readouterr().err


def test_command_line_names_a_missing_folder_model_or_empty_folder(tmp_path, tiny_model, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--model", str(tiny_model), "--games", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")])
    assert "--games: no folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["--model", str(tiny_model), "--games", str(tmp_path / "empty"), "--out", str(tmp_path / "o"),
                 "--no-progress"]) == 2
    assert "no game shards" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--model", str(tmp_path / "missing.onnx"), "--games", str(tmp_path / "empty"), "--out",
              str(tmp_path / "o2")])
    assert "--model: no file" in capsys.readouterr().err


def test_games_of_a_size_the_model_does_not_play_name_their_shard(tmp_path, tiny_model, capsys):
    games = tmp_path / "games"
    write_shard(games / "selfplay-000000.jsonl.gz",
                [GameSample(size=13, komi=7.0, moves=["G7", "pass", "pass"], result="B+7", winner="B")])
    assert main(["--model", str(tiny_model), "--games", str(games), "--out", str(tmp_path / "o"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "selfplay-000000.jsonl.gz" in err and "13x13" in err
    assert not shard_paths(tmp_path / "o")  # nothing half made


def test_the_command_runs_end_to_end(tmp_path, tiny_model, capsys):
    games = tmp_path / "games"
    _games(games, 2)
    assert main(["--model", str(tiny_model), "--games", str(games), "--out", str(tmp_path / "o"), "--visits", "4",
                 "--workers", "2", "--no-progress"]) == 0
    assert "reanalysed 4 games (12 moves searched)" in capsys.readouterr().out
    assert len(shard_paths(tmp_path / "o")) == 2
