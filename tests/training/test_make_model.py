"""``make model`` (``training.make_model``), its gating (``training.gating``) and its model
card (``training.model_card``)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from tests.tiny_model import build_tiny_model
from tests.training.conftest import needs_gnugo
from training.game_shards import GameSample, write_shard
from training.gating import GateConfig, decide, distinct_games, gate
from training.gtp_game import GameRules
from training.dagger import link_mix as dagger_mix
from training.make_model import (Plan, grown_runs, link_mix, main as make_model_main, quick_plan, round_specs,
                                 ship_source, stage_names)
from training.match_report import summarize
from training.network import GoNet, NetConfig
from training.onnx_import import max_difference
from training.position_shards import load_shard
from training.model_card import CardFacts, engine_kind, games_by_source, machine, render, strength_row


@pytest.mark.parametrize("score, decided, remaining, expected", [
    (22, 22, 18, True),      # 22 of 40 is 55%: passed whatever comes
    (21, 21, 19, None),      # one more win needed
    (21.5, 40, 0, False),    # 53.75%
    (22, 40, 0, True),       # exactly 55%
    (3, 21, 19, None),       # 3 + 19 = 22 still reachable
    (2, 21, 19, False),      # 21 at best
    (0, 0, 0, False),        # nothing decided
    (10.5, 19, 0, True),     # voids left out: 10.5 / 19 = 55.3%
])
def test_gating_verdict_settles_as_soon_as_it_cannot_change(score, decided, remaining, expected):
    assert decide(score, decided, remaining, 0.55) is expected


@pytest.mark.slow
def test_a_gating_match_through_the_gtp_front_end(tmp_path):
    candidate = build_tiny_model(9, 1, 8, seed=1, name="cand").save(tmp_path / "cand.onnx")
    current = build_tiny_model(9, 1, 8, seed=2, name="cur").save(tmp_path / "cur.onnx")
    config = GateConfig(candidate, current, tmp_path / "gate", games=2, visits=2, step=2,
                        rules=GameRules(max_moves=30, move_timeout=30), progress=False)
    result = gate(config)
    assert result.games == 2 and result.wins + result.losses + result.jigo + result.void == 2
    assert result.accepted == (result.win_rate is not None and result.win_rate >= 0.55)
    assert result.distinct_games == distinct_games(tmp_path / "gate") == 2
    games = [json.loads(line) for line in (tmp_path / "gate" / "games.jsonl").read_text().splitlines()]
    assert sorted((g["black"], g["white"]) for g in games) == [("candidate", "current"), ("current", "candidate")]
    assert json.loads((tmp_path / "gate" / "gating.json").read_text())["accepted"] == result.accepted
    assert gate(config) == result  # the verdict is read back, nothing replayed
    build_tiny_model(9, 1, 8, seed=3, name="cand").save(candidate)  # another model under the same name
    with pytest.raises(SystemExit, match="other model files"):
        gate(config)


@pytest.mark.parametrize("name, kind", [("gnugo-7", "gnugo"), ("pachi-2000", "pachi"), ("tiny-9x9", "tiny-9x9")])
def test_engine_kind(name, kind):
    assert engine_kind(name) == kind


def test_model_card_tables(tmp_path):
    moves = ["E5", "pass", "pass"]
    write_shard(tmp_path / "games" / "engine-000000.jsonl.gz", [
        GameSample(9, 7.0, moves, "B+R", "B", black="gnugo-7", white="pachi-2000"),
        GameSample(9, 7.0, moves, "B+R", "B", black="pachi-1000", white="gnugo-5"),
        GameSample(9, 7.0, moves, "B+R", "B", black="gnugo-5", white="gnugo-9")])
    write_shard(tmp_path / "sp" / "selfplay-000000.jsonl.gz", [
        GameSample(9, 7.0, moves, "B+R", "B", source="selfplay", visits=[None] * 3)])
    assert games_by_source({"engine": tmp_path / "games", "round 1": tmp_path / "sp", "none": tmp_path / "x"}) == [
        ("engine: gnugo vs gnugo", 1), ("engine: gnugo vs pachi", 2), ("round 1", 1)]

    entries = [{"black": "gobuddy", "white": "gnugo-10", "winner": "gobuddy", "result": "B+5", "reason": "score",
                "seconds": {"gobuddy": [0.5, 0.7], "gnugo-10": [0.2]}},
               {"black": "gnugo-10", "white": "gobuddy", "winner": "gnugo-10", "result": "B+R", "reason": "resign",
                "seconds": {"gobuddy": [0.6], "gnugo-10": [0.1]}},
               {"black": "gobuddy", "white": "gnugo-10", "winner": "gobuddy", "result": "B+1", "reason": "score",
                "seconds": {"gobuddy": [0.8], "gnugo-10": [0.3]}}]
    summary = summarize(entries, "gobuddy", "gnugo-10", {"argv_a": "/py -m engine_worker.gtp --model m.onnx"})
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    row = strength_row("search vs GNU Go level 10", tmp_path / "summary.json")
    assert (row["wins"], row["losses"], row["win_rate"]) == (2, 1, 2 / 3)
    assert row["seconds_per_move"] == pytest.approx(0.65)

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU 3000\n")
    facts = CardFacts(model="models/gobuddy-9x9.onnx", model_name="gobuddy-9x9-b6c64-r2", file_bytes=1_900_000,
                      provenance={"architecture": "6 blocks x 64 channels", "parameters": 480_123, "komi": 7.0},
                      data=[("engine: gnugo vs pachi", 2)], steps=[("supervised", 20000), ("round 1", 5000)],
                      speed={1: 1100.0, 16: 1900.0}, stages={"engine-games": {"seconds": 7260.0}},
                      machine=machine(cpuinfo), strength=[row],
                      gating=[{"round": 1, "wins": 23, "losses": 16, "jigo": 1, "win_rate": 0.5875, "threshold": 0.55,
                               "games": 40, "planned": 40, "distinct_games": 40, "accepted": True}])
    card = render(facts)
    for line in ["# Model card: gobuddy-9x9-b6c64-r2",
                 "- parameters: 480,123",
                 "- speed (onnxruntime, 1 thread): 1,100 evals/s at batch 1, 1,900 evals/s at batch 16",
                 "| engine: gnugo vs pachi | 2 |",
                 "| supervised | 20,000 |",
                 "| 1 | 23-16-1 | 58.8% | 55% | 40/40 | 40 | accepted |",
                 "| search vs GNU Go level 10 | gnugo-10 | 2-1 | 66.7% | 20.8% – 93.9% | 0.65 | `--model m.onnx` |",
                 "| engine-games | 2h 01m |",
                 "Machine: " + f"{machine()['nproc']} cores, Test CPU 3000."]:
        assert line in card.splitlines(), line


def test_the_mix_of_a_round_holds_the_window_of_rounds_and_their_engine_games(tmp_path):
    # Rounds 1-4 on disk, window 3: round 4 trains on rounds 2-4 (self-play and engine
    # games) and on the last supervised training shard; every validation shard of them.
    positions = tmp_path / "data" / "positions"
    for folder in ["engine"] + [f"round-{r}{e}" for r in range(1, 5) for e in ("", "-engine")]:
        (positions / folder).mkdir(parents=True)
        for name in ("train-00000.npz", "train-00001.npz", "val-00000.npz"):
            (positions / folder / name).write_bytes(b"")
    plan = Plan(root=tmp_path, rounds=4, window=3, engine_shards_in_mix=1)
    mix = link_mix(plan, round_specs(plan)[3])
    names = sorted(p.name for p in mix.iterdir())
    expected = ["train-engine-00001.npz", "val-engine-00000.npz"]
    for r in (2, 3, 4):
        for tag in (f"r{r}", f"r{r}engine"):
            expected += [f"train-{tag}-00000.npz", f"train-{tag}-00001.npz", f"val-{tag}-00000.npz"]
    assert names == sorted(expected)
    assert (mix / "train-r2engine-00001.npz").resolve() == positions / "round-2-engine" / "train-00001.npz"


def test_a_dagger_mix_copies_each_batch_s_training_shards_and_keeps_the_base_split(tmp_path):
    # base: r21's mix (train and val); two DAgger batches; round 2 of dagger_copies 10: 5 copies each
    base, one, two = tmp_path / "base", tmp_path / "b1", tmp_path / "b2"
    for folder, names in [(base, ["train-r19-00000.npz", "val-r19-00000.npz"]),
                          (one, ["train-00000.npz", "train-00001.npz", "val-00000.npz"]),
                          (two, ["train-00000.npz", "val-00000.npz"])]:
        folder.mkdir()
        for name in names:
            (folder / name).write_bytes(b"")
    mix = dagger_mix(base, [one, two], 10 // 2, tmp_path / "mix")
    names = sorted(p.name for p in mix.iterdir())
    assert len(names) == 2 + 5 * 2 + 5 * 1
    assert [n for n in names if n.startswith("val-")] == ["val-r19-00000.npz"]  # the batches' val shards stay out
    assert (mix / "train-d1-5-00001.npz").resolve() == one / "train-00001.npz"
    assert (mix / "train-d2-3-00000.npz").resolve() == two / "train-00000.npz"
    with pytest.raises(ValueError, match="copies"):
        dagger_mix(base, [one], 0, tmp_path / "mix")
    with pytest.raises(ValueError, match="no training shards"):
        dagger_mix(base, [base / "nothing"], 1, tmp_path / "mix")


def test_the_grown_line_runs_after_the_6x64_rounds_and_ships_only_by_winning_at_equal_time(tmp_path):
    plan = Plan(root=tmp_path)  # the shipped 9x9 model is the grown line's (twenty-eighth session)
    assert plan.grow and (plan.grow_selfplay_games, plan.grow_blocks, plan.grow_channels) == (30_000, 9, 96)   # r19-r21, r21-w96d9
    assert plan.grow_schedule == ((5_000, 0.01, 500), (5_000, 0.003, 500))  # r21-w96d9, then -more
    assert (plan.dagger_rounds, plan.dagger_games, plan.dagger_opening, plan.dagger_visits) == (2, 400, 4, 400)
    assert (plan.dagger_copies, plan.dagger_steps, plan.dagger_lr) == (10, 3_000, 0.003)  # dagger1: 10, 2b: 5 each
    names = stage_names(plan)
    assert names[names.index("round-7-gating") + 1:names.index("ship")] == [
        "grow-selfplay", "grow-positions", "grow-init", "grow-train-1", "grow-train-2", "grow-export",
        "dagger-1-games", "dagger-1-import", "dagger-1-relabel", "dagger-1-positions", "dagger-1-train",
        "dagger-1-export",
        "dagger-2-games", "dagger-2-import", "dagger-2-relabel", "dagger-2-positions", "dagger-2-train",
        "dagger-2-export", "grow-gating"]
    assert not any(n.startswith(("grow", "dagger")) for n in stage_names(Plan(root=tmp_path, grow=False)))
    best = tmp_path / "runs/make_model/round-7/model.onnx"
    assert ship_source(plan, best) == best  # no verdict yet
    verdict = tmp_path / "runs/make_model/gating/grow/gating.json"
    verdict.parent.mkdir(parents=True)
    for accepted, shipped in [(False, best), (True, tmp_path / "runs/make_model/dagger-2/model.onnx")]:
        verdict.write_text(json.dumps({"accepted": accepted}))
        assert ship_source(plan, best) == shipped
    assert grown_runs(plan)[-1].name == "dagger-2" and grown_runs(Plan(root=tmp_path, grow=False)) == []


def test_the_13x13_line_trains_on_every_game_of_its_own_rounds_only(tmp_path):
    positions = tmp_path / "data" / "positions"
    for folder in ["engine", "round-1", "s13-round-1", "s13-round-2"]:
        (positions / folder).mkdir(parents=True)
        for name in ("train-00000.npz", "val-00000.npz"):
            (positions / folder / name).write_bytes(b"")
    plan = Plan(root=tmp_path, rounds=1, late_rounds=0, s13_rounds=2, engine_shards_in_mix=1)
    spec = round_specs(plan)[-1]
    assert (spec.name, spec.size, spec.window, spec.late) == ("s13-round-2", 13, (1, 2), True)
    names = sorted(p.name for p in link_mix(plan, spec).iterdir())
    assert names == ["train-s13-r1-00000.npz", "train-s13-r2-00000.npz", "val-s13-r1-00000.npz",
                     "val-s13-r2-00000.npz"]  # no 9x9 games, no supervised shards


# the rounds of the default plan: (name, board size, self-play games, engine games, steps, lr, window, late)
ROUNDS = [
    ("round-1", 9, 1_400, 300, 3_000, 0.015, (1,), False),
    ("round-5", 9, 1_400, 300, 3_000, 0.015, (3, 4, 5), False),
    ("round-6", 9, 10_000, 800, 3_000, 0.003, (6,), True),            # r12's recipe: from the best, its twin plays
    ("round-7", 9, 10_000, 0, 2_000, 0.003, (7,), True),              # r18's: the twin's games, surprise-weighted
    ("s13-round-1", 13, 700, 0, 600, 0.003, (1,), True),              # from the best 6x64 9x9 weights at 13x13
    ("s13-round-4", 13, 700, 0, 600, 0.003, (1, 2, 3, 4), True),
]


@pytest.mark.parametrize("name, size, games, engine, steps, lr, window, late", ROUNDS)
def test_the_default_plan_has_the_rounds_of_both_shipped_lines(name, size, games, engine, steps, lr, window, late):
    spec = next(s for s in round_specs(Plan()) if s.name == name)
    assert (spec.size, spec.selfplay_games, spec.engine_games, spec.steps, spec.lr, spec.window, spec.late) == (
        size, games, engine, steps, lr, window, late)
    assert spec.surprise == (name == "round-7")


def test_the_default_plan_is_the_shipped_lines_recipe():
    plan = Plan()
    assert (plan.engine_games, plan.steps, plan.batch_size, plan.lr) == (1_600, 4_000, 128, 0.05)
    assert (plan.rounds, plan.selfplay_games, plan.round_engine_games, plan.window) == (5, 1_400, 300, 3)
    assert (plan.round_steps, plan.round_lr, plan.round_batch_size) == (3_000, 0.015, 256)
    assert (plan.selfplay_visits, plan.selfplay_fast_visits, plan.selfplay_full_fraction) == (200, 50, 0.35)
    assert plan.round_engine_mix == "gnugo:8-10,pachi:2000-5000*2" and plan.needs_pachi
    assert stage_names(plan)[4:11] == ["export", "round-1-selfplay", "round-1-engine-games", "round-1-positions",
                                       "round-1-train", "round-1-export", "round-1-gating"]
    names = stage_names(plan)
    assert names.index("round-6-gating") < names.index("ship") < names.index("s13-start") < names.index(
        "s13-round-4-gating") < names.index("s13-ship") < names.index("strength-13x13-gnugo") < names.index("card")


def test_until_must_name_a_stage(capsys):
    assert "round-1-gating" in stage_names(quick_plan(".")) and "strength-pachi" not in stage_names(quick_plan("."))
    with pytest.raises(SystemExit):
        make_model_main(["--quick", "--until", "everything"])
    assert "is not a stage" in capsys.readouterr().err


@pytest.mark.slow
@needs_gnugo
def test_quick_make_model_runs_every_stage_then_skips_them(tmp_path, capsys):
    root = tmp_path / "mm"
    assert make_model_main(["--quick", "--root", str(root), "--no-progress"]) == 0
    for path in ["data/games/engine-000000.jsonl.gz", "data/positions/engine/built.json",
                 "runs/make_model/supervised/last.pt", "runs/make_model/supervised/model.onnx",
                 "data/selfplay/round-1/selfplay-000000.jsonl.gz", "data/round-games/round-1/engine-000000.jsonl.gz",
                 "data/positions/round-1-engine/built.json", "runs/make_model/round-1/model.onnx",
                 "runs/make_model/gating/round-1/gating.json", "models/candidate.onnx", "models/gobuddy-9x9.onnx",
                 "runs/make_model/supervised/model.pt", "models/gobuddy-9x9.pt",
                 "data/selfplay/round-2/selfplay-000000.jsonl.gz", "runs/make_model/gating/round-2/gating.json",
                 "data/selfplay/round-3/selfplay-000000.jsonl.gz", "runs/make_model/gating/round-3/gating.json",
                 "runs/make_model/s13-start/model.onnx", "data/selfplay/s13-round-1/selfplay-000000.jsonl.gz",
                 "runs/make_model/gating/s13-round-1/gating.json", "models/gobuddy-13x13.onnx",
                 "models/gobuddy-13x13.pt", "data/selfplay/grow/selfplay-000000.jsonl.gz",
                 "runs/make_model/grow/init.pt", "runs/make_model/grow-2/model.onnx",
                 "data/dagger/round-1/match/game-0000.sgf", "data/dagger/round-2/reanalysed/reanalysis.json",
                 "data/positions/mix-dagger-2", "runs/make_model/dagger-2/model.onnx",
                 "runs/make_model/gating/grow/gating.json"]:
        assert (root / path).exists(), path
    # r18's recipe: round 3's positions were written by policy surprise under the twin that played
    weighting = json.loads((root / "data/positions/round-3/weighting.json").read_text())
    assert weighting["surprise_model"] and weighting["surprise_value"] == "copies"
    assert not (root / "data/positions/round-2/weighting.json").exists() or json.loads(
        (root / "data/positions/round-2/weighting.json").read_text())["surprise_model"] is None
    shipped_weights = torch.load(root / "models/gobuddy-9x9.pt", map_location="cpu", weights_only=False)
    net = GoNet(NetConfig(**shipped_weights["net"]))
    net.load_state_dict(shipped_weights["model"])
    features = load_shard(sorted((root / "data/positions/engine").glob("*.npz"))[0])["features"][:8]
    assert max(max_difference(net, root / "models/gobuddy-9x9.onnx", features).values()) < 1e-4
    stages = json.loads((root / "runs/make_model/stages.json").read_text())
    assert list(stages) == stage_names(quick_plan(root))
    # the grown line: 2x12 from the 6x64 line's best (here 1x8); DAgger round 2 trained on both batches
    grown = torch.load(root / "runs/make_model/dagger-2/model.pt", map_location="cpu", weights_only=False)
    assert (grown["net"]["blocks"], grown["net"]["channels"]) == (2, 12)
    mix = sorted(p.name for p in (root / "data/positions/mix-dagger-2").iterdir())
    assert any(n.startswith("train-d1-1-") for n in mix) and any(n.startswith("train-d2-1-") for n in mix)
    assert not any(n.startswith("train-d1-2-") for n in mix)  # dagger_copies 2 // round 2
    verdict = json.loads((root / "runs/make_model/gating/grow/gating.json").read_text())
    shipped_net = (shipped_weights["net"]["blocks"], shipped_weights["net"]["channels"])
    assert shipped_net == ((2, 12) if verdict["accepted"] else (1, 8))
    s13 = torch.load(root / "runs/make_model/s13-start/model.pt", map_location="cpu", weights_only=False)
    assert (s13["net"]["blocks"], s13["net"]["channels"]) == (1, 8)  # the 13x13 line starts from the 6x64 line
    card = (root / "models/MODEL_CARD.md").read_text()
    assert "| raw policy (1 visit) vs GNU Go level 1 | gnugo-1 |" in card
    assert "| 13x13: search vs GNU Go level 1 | gnugo-1 |" in card and "| s13-round-1 |" in card
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    assert OnnxEvaluator(root / "models/gobuddy-13x13.onnx").board_sizes == (13,)
    assert "| engine games: gnugo vs gnugo | 2 |" in card
    assert "| engine games round 1: gnugo vs gnugo | 2 |" in card
    assert any(p.name.startswith("train-r1engine-") for p in (root / "data/positions/mix-round-1").iterdir())
    capsys.readouterr()

    assert make_model_main(["--quick", "--root", str(root), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.count("already done") == len(stage_names(quick_plan(root))) - 1  # all but the card
    assert json.loads((root / "runs/make_model/stages.json").read_text())["train"] == stages["train"]


def test_a_stage_keeps_its_time_on_disk_as_it_goes(tmp_path):
    """A stage that checkpoints leaves its time so far on disk (what a process killed at a
    session's end keeps), and the time is counted once in all."""
    import time

    from training.make_model import StageLog

    log, path = StageLog(tmp_path / "stages.json", None), tmp_path / "stages.json"
    on_disk = []

    def work() -> None:
        time.sleep(0.3)
        log.checkpoint()
        on_disk.append(json.loads(path.read_text())["games"]["seconds"])
        time.sleep(0.3)

    log.run("games", work, None)
    assert 0.3 <= on_disk[0] < 0.6
    assert 0.6 <= json.loads(path.read_text())["games"]["seconds"] < 0.9  # not 0.9+: no second count
    log.checkpoint()  # no stage running: nothing changes
    assert json.loads(path.read_text())["games"]["seconds"] < 0.9
