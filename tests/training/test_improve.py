"""A round of ``python -m training.improve`` from a shipped model that has only its ONNX
file: real self-play and GNU Go games for a few seconds, positions, the weights read back
from the file, fine-tuning, export with weights, gating, and promotion only when the
candidate passed; a second run finds every stage done."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from tests.training.conftest import needs_gnugo  # noqa: E402
from training.export import export_onnx  # noqa: E402
from training.game_shards import count_games  # noqa: E402

from training.improve import RoundPlan, generator_commands, improve, link_mix, main as improve_main  # noqa: E402
from training.make_model import file_digest  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.onnx_import import max_difference  # noqa: E402
from training.position_shards import load_shard  # noqa: E402
from training.quantize import twin_is_current  # noqa: E402


def tiny_shipped(root):
    torch.manual_seed(0)
    net = GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8, head_channels=4, value_hidden=8))
    return export_onnx(net.eval(), root / "models" / "gobuddy-9x9.onnx", 9, model_name="tiny-shipped",
                       provenance={}, komi=7.0)


def test_the_generators_resume_into_the_round_folders(tmp_path):
    plan = RoundPlan("r9", root=tmp_path, selfplay_workers=1, engine_workers=0, visits=16, fast_visits=4)
    (selfplay,) = generator_commands(plan)
    assert selfplay[1:3] == ["-m", "training.selfplay"]
    assert selfplay[selfplay.index("--out") + 1] == str(tmp_path / "data/improve/r9/selfplay")
    assert selfplay[selfplay.index("--model") + 1] == str(tmp_path / "models/gobuddy-9x9.onnx")
    assert len(generator_commands(RoundPlan("r9", root=tmp_path, engine_workers=1))) == 2
    assert "--forced-playouts" not in selfplay  # off unless asked
    (forced,) = generator_commands(replace(plan, forced_playouts=2.0))
    assert forced[forced.index("--forced-playouts") + 1] == "2.0"
    assert "--score-utility" not in selfplay
    (leaning,) = generator_commands(replace(plan, score_utility=0.3))
    assert leaning[leaning.index("--score-utility") + 1] == "0.3"


@pytest.mark.parametrize("size, model", [(9, "models/gobuddy-9x9.int8.onnx"),
                                         (13, "runs/improve/r9/base.int8.onnx")])
def test_int8_self_play_is_played_by_the_twin_of_the_base(tmp_path, size, model):
    plan = RoundPlan("r9", root=tmp_path, engine_workers=0, selfplay_model="int8", size=size,
                     base_weights=None if size == 9 else tmp_path / "w.pt")
    (selfplay,) = generator_commands(plan)
    assert selfplay[selfplay.index("--model") + 1] == str(tmp_path / model)


def test_the_mix_links_every_shard_under_a_tagged_name(tmp_path):
    for tag in ("a", "b"):
        (tmp_path / tag).mkdir()
        for name in ("train-00000.npz", "val-00000.npz"):
            (tmp_path / tag / name).write_bytes(b"x")
    mix = link_mix({"sp": tmp_path / "a", "eg": tmp_path / "b"}, tmp_path / "mix")
    assert sorted(p.name for p in mix.iterdir()) == [
        "train-eg-00000.npz", "train-sp-00000.npz", "val-eg-00000.npz", "val-sp-00000.npz"]
    assert (mix / "train-sp-00000.npz").resolve() == (tmp_path / "a" / "train-00000.npz").resolve()


def test_bad_counts_are_refused(tmp_path, capsys):
    tiny_shipped(tmp_path)
    with pytest.raises(SystemExit):
        improve_main(["--round", "x", "--root", str(tmp_path), "--minutes", "-1"])
    assert "--minutes must be >= 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        improve_main(["--round", "x", "--root", str(tmp_path), "--value-weight", "-0.5"])
    assert "--value-weight must be >= 0, got -0.5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        improve_main(["--round", "x", "--root", str(tmp_path), "--reply-policy-weight", "-1"])
    assert "--reply-policy-weight must be >= 0, got -1.0" in capsys.readouterr().err


@pytest.mark.slow
@needs_gnugo
def test_a_round_from_an_onnx_only_model(tmp_path, capsys):
    shipped = tiny_shipped(tmp_path)
    before = file_digest(shipped)
    plan = RoundPlan("r1", root=tmp_path, minutes=0.4, selfplay_workers=1, engine_workers=1, visits=8,
                     fast_visits=2, mix="gnugo:1", max_moves=40, steps=4, batch_size=16, warmup=1,
                     value_weight=0.5, threads=1, gate_games=2, gate_visits=2, gate_parallel=1, progress=False)
    promoted = improve(plan)

    assert count_games(plan.data("selfplay")) > 0 and count_games(plan.data("games")) > 0
    assert {p.name.split("-")[1] for p in plan.data("positions", "mix").iterdir()} == {"selfplay", "games"}
    assert torch.load(plan.run("last.pt"), map_location="cpu", weights_only=False)["train"]["value_weight"] == "0.5"
    init = torch.load(plan.run("init.pt"), map_location="cpu", weights_only=False)
    assert init["imported_from"].endswith("gobuddy-9x9.onnx")  # no .pt shipped: read back from the ONNX
    weights = torch.load(plan.run("model.pt"), map_location="cpu", weights_only=False)
    net = GoNet(NetConfig(**weights["net"]))
    net.load_state_dict(weights["model"])
    features = load_shard(sorted(plan.data("positions", "mix").glob("train-*"))[0])["features"][:8]
    assert max(max_difference(net, plan.run("model.onnx"), features).values()) < 1e-4
    verdict = json.loads(plan.run("gating", "gating.json").read_text())
    assert promoted == verdict["accepted"]
    if promoted:
        assert file_digest(shipped) == file_digest(plan.run("model.onnx"))
        assert shipped.with_suffix(".pt").exists() and twin_is_current(shipped)
    else:
        assert file_digest(shipped) == before and not shipped.with_suffix(".pt").exists()
    capsys.readouterr()

    assert improve(plan) == promoted
    out = capsys.readouterr().out
    assert out.count("already done") == 6 + promoted
    assert json.loads(plan.run("stages.json").read_text())["games"]["seconds"] >= 0.4 * 60


def test_an_earlier_round_without_positions_is_named(tmp_path):
    from training.game_shards import GameSample, write_shard
    from training.improve import build_positions

    plan = RoundPlan("r2", root=tmp_path, earlier=("r1",))
    write_shard(plan.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, ["E5", "pass", "pass"], "B+74", "B", source="selfplay", visits=[None] * 3)])
    with pytest.raises(RuntimeError, match="--earlier r1: no positions in"):
        build_positions(plan)


def test_an_earlier_round_with_self_play_only_is_mixed_in(tmp_path):
    """A round played on a lent GPU has self-play and no engine games: its positions join
    the mix under its own name."""
    from training.game_shards import GameSample, write_shard
    from training.improve import build_positions

    plan = RoundPlan("r2", root=tmp_path, earlier=("r1",))
    write_shard(plan.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, ["E5", "pass", "pass"], "B+74", "B", source="selfplay", visits=[None] * 3)])
    earlier = tmp_path / "data/improve/r1/positions/selfplay"
    earlier.mkdir(parents=True)
    (earlier / "train-00000.npz").write_bytes(b"")
    build_positions(plan)
    mixed = sorted(p.name for p in plan.data("positions", "mix").iterdir())
    assert "train-r1selfplay-00000.npz" in mixed
    assert not any("r1games" in name for name in mixed)


@pytest.mark.slow
@needs_gnugo
def test_a_13x13_round_starts_from_9x9_weights(tmp_path):
    """A size with no model yet: the 9x9 weights are exported at 13x13 as the round's base,
    which plays the self-play games (13x13) and is gated against; the candidate is a 13x13
    model; nothing 9x9 is touched."""
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator
    from training.export import save_weights
    from training.game_shards import iter_samples, shard_paths

    shipped = tiny_shipped(tmp_path)
    before = file_digest(shipped)
    torch.manual_seed(0)
    weights = save_weights(GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8, head_channels=4, value_hidden=8)),
                           tmp_path / "models" / "gobuddy-9x9.pt", 0, {})
    plan = RoundPlan("s13", root=tmp_path, minutes=0.3, selfplay_workers=1, engine_workers=0, visits=4,
                     fast_visits=2, max_moves=30, steps=2, batch_size=16, warmup=1, threads=1, gate_games=2,
                     gate_visits=2, gate_parallel=1, progress=False, size=13, base_weights=weights)
    promoted = improve(plan)

    assert OnnxEvaluator(plan.base).board_sizes == (13,)
    games = list(iter_samples(shard_paths(plan.data("selfplay"))))
    assert games and {g.size for g in games} == {13}
    assert OnnxEvaluator(plan.run("model.onnx")).board_sizes == (13,)
    assert plan.shipped == tmp_path / "models" / "gobuddy-13x13.onnx"
    assert plan.shipped.exists() == promoted
    assert file_digest(shipped) == before
    if not promoted:  # the two gating games decide; an accepted verdict must still ship the first 13x13 file
        verdict = plan.run("gating", "gating.json")
        verdict.write_text(json.dumps({**json.loads(verdict.read_text()), "accepted": True}))
        assert improve(plan)
    assert file_digest(plan.shipped) == file_digest(plan.run("model.onnx"))
    assert file_digest(shipped) == before


@pytest.mark.parametrize("size, board", [(13, " --size 13")])  # a 9x9 round's --until base never stops
def test_a_round_not_gated_prints_no_strength_matches(tmp_path, capsys, size, board):
    from training.export import save_weights

    tiny_shipped(tmp_path)
    weights = save_weights(GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8, head_channels=4, value_hidden=8)),
                           tmp_path / "models" / "gobuddy-9x9.pt", 0, {})
    argv = ["--round", "t", "--root", str(tmp_path), "--until", "base", "--no-progress",
            "--size", str(size), "--base-weights", str(weights)]
    assert improve_main(argv) == 0
    out = capsys.readouterr().out
    assert "training.match" not in out and "no candidate accepted by gating" in out


# (the round's gating verdict, whether the candidate is the shipped model, the model the
# printed matches play, the games of the GNU Go and raw-policy matches)
STATES = [
    (False, False, None, None),                                       # rejected: nothing to measure
    (True, False, "runs/improve/t/model.onnx", 80),                   # accepted, --until gating: the bars first
    (True, True, "models/gobuddy-13x13.onnx", 40),                    # promoted: the card's rows
]


@pytest.mark.parametrize("accepted, promoted, model, games", STATES)
def test_the_strength_matches_printed_follow_the_rounds_verdict(tmp_path, accepted, promoted, model, games):
    """The match commands a round prints: for the model it would ship or shipped, on
    the round's board (a 13x13 model refuses 9x9)."""
    from training.improve import strength_commands

    plan = RoundPlan("t", root=tmp_path, size=13)
    plan.run("gating").mkdir(parents=True)
    plan.run("gating", "gating.json").write_text(json.dumps({"accepted": accepted}))
    plan.run("model.onnx").write_bytes(b"candidate")
    plan.shipped.parent.mkdir(parents=True)
    plan.shipped.write_bytes(b"candidate" if promoted else b"shipped before")
    commands = [line for line in strength_commands(plan).splitlines() if "training.match" in line]
    if model is None:
        assert commands == []
        return
    assert len(commands) == 4 and all(f"--model {tmp_path / model}" in c and " --size 13" in c for c in commands)
    assert [c.split("--games ")[1].split()[0] for c in commands] == [str(games), "40", "40", str(games)]
    assert ("without --until promotes it" in strength_commands(plan)) == (not promoted)


def test_sigterm_stops_the_generators_and_keeps_the_time_spent(tmp_path):
    """A session that ends with SIGTERM: the self-play child is stopped and the seconds
    already spent are recorded (the next run generates only the minutes left)."""
    import signal
    import subprocess
    import sys
    import time

    tiny_shipped(tmp_path)
    cmd = [sys.executable, "-m", "training.improve", "--round", "t", "--root", str(tmp_path), "--minutes", "5",
           "--engine-workers", "0", "--visits", "8", "--fast-visits", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(6)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=150)
    assert proc.returncode == 130, out
    assert "stopped; run it again to continue" in out
    stages = json.loads((tmp_path / "runs/improve/t/stages.json").read_text())
    assert 4 <= stages["games"]["seconds"] < 60
    assert not [cmdline for cmdline in process_command_lines()
                if "training.selfplay" in cmdline and str(tmp_path) in cmdline]  # none left behind


def process_command_lines() -> list[str]:
    """The command lines of the running processes (Linux /proc; no procps needed)."""
    from pathlib import Path

    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue
    return lines


def test_the_games_stage_keeps_its_time_while_it_runs(tmp_path, monkeypatch):
    """``generate`` ticks every ``CHECKPOINT_S`` (improve passes ``StageLog.checkpoint``):
    a round killed without warning resumes with the minutes it had left."""
    import training.improve as improve_module

    monkeypatch.setattr(improve_module, "CHECKPOINT_S", 0.2)
    monkeypatch.setattr(improve_module, "generator_commands", lambda plan: [["sleep", "30"]])
    ticks = []
    improve_module.generate(RoundPlan("t", root=tmp_path, selfplay_model="float"), 3.2, lambda: ticks.append(1))
    assert 2 <= len(ticks) <= 4  # due every 0.2 s, looked at every second
    monkeypatch.setattr(improve_module, "CHECKPOINT_S", 60.0)
    ticks.clear()
    improve_module.generate(RoundPlan("t", root=tmp_path, selfplay_model="float"), 1.5, lambda: ticks.append(1))
    assert ticks == []


def shipped_weights(root, blocks: int):
    """A tiny shipped 9x9 model with its torch weights (``blocks`` residual blocks)."""
    from training.export import save_weights

    tiny_shipped(root)
    torch.manual_seed(0)
    net = GoNet(NetConfig(planes=NUM_PLANES, blocks=blocks, channels=8, head_channels=4, value_hidden=8))
    return save_weights(net, root / "models" / "gobuddy-9x9.pt", 0, {})


@pytest.mark.parametrize("shipped_blocks, deepen, init_blocks", [
    (1, None, 1),  # no --deepen: the shipped weights as they are
    (1, 4, 4),  # grown by three identity blocks
    (4, 4, 4),  # as many already (the round after a deepened one): kept
])
def test_the_init_stage_grows_the_starting_weights_when_asked(tmp_path, shipped_blocks, deepen, init_blocks):
    from training.improve import make_init

    weights = shipped_weights(tmp_path, shipped_blocks)
    plan = RoundPlan("r2", root=tmp_path, deepen=deepen)
    make_init(plan)
    init = torch.load(plan.run("init.pt"), map_location="cpu", weights_only=False)
    assert init["net"]["blocks"] == init_blocks
    grown = GoNet(NetConfig(**init["net"]))
    grown.load_state_dict(init["model"])
    old_state = torch.load(weights, map_location="cpu", weights_only=False)
    old = GoNet(NetConfig(**old_state["net"]))
    old.load_state_dict(old_state["model"])
    x = torch.rand(2, NUM_PLANES, 9, 9)
    with torch.no_grad():
        for a, b in zip(old.eval()(x), grown.eval()(x)):
            assert torch.allclose(a, b, atol=1e-6)  # growing does not change what the network says
    assert sorted(p.name for p in plan.run().iterdir()) == ["init.pt"]  # nothing staged is left behind


def test_deepen_to_fewer_blocks_than_the_weights_is_refused(tmp_path):
    from training.improve import make_init

    shipped_weights(tmp_path, 3)
    plan = RoundPlan("r2", root=tmp_path, deepen=2)
    with pytest.raises(RuntimeError, match="--deepen 2: the starting weights have 3 blocks already"):
        make_init(plan)
    assert not plan.run("init.pt").exists()  # the stage is not marked done
    with pytest.raises(SystemExit):
        improve_main(["--round", "x", "--root", str(tmp_path), "--deepen", "0"])


def test_surprise_weighting_is_judged_by_the_model_that_played(tmp_path):
    from training.game_shards import GameSample, write_shard
    from training.improve import build_positions
    from training.positions import WEIGHTING
    from training.surprise import SurpriseWeighting

    tiny_shipped(tmp_path)
    plan = RoundPlan("r2", root=tmp_path, surprise_weighting=True)
    moves = ["E5", "C3", "G7", "C7", "G3", "pass", "pass"]
    write_shard(plan.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, moves, "B+5", "B", source="selfplay", visits=[{m: 50} for m in moves])])
    build_positions(plan)
    record = json.loads(plan.data("positions", "selfplay", WEIGHTING).read_text())
    assert record == {"surprise_model": SurpriseWeighting(plan.player).digest(), "surprise_value": "copies"}
    even = RoundPlan("r4", root=tmp_path, surprise_weighting=True, surprise_value="even")
    write_shard(even.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, moves, "B+5", "B", source="selfplay", visits=[{m: 50} for m in moves])])
    build_positions(even)
    assert json.loads(even.data("positions", "selfplay", WEIGHTING).read_text())["surprise_value"] == "even"
    plain = RoundPlan("r3", root=tmp_path)
    write_shard(plain.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, moves, "B+5", "B", source="selfplay", visits=[{m: 50} for m in moves])])
    build_positions(plain)
    assert json.loads(plain.data("positions", "selfplay", WEIGHTING).read_text())["surprise_model"] is None


def test_reanalysis_fills_the_fast_moves_targets_before_the_positions(tmp_path, capsys):
    from training.game_shards import GameSample, read_shard, shard_paths, write_shard
    from training.improve import build_positions

    tiny_shipped(tmp_path)
    plan = RoundPlan("r2", root=tmp_path, reanalyse_visits=4, threads=1, progress=False)
    moves = ["E5", "C3", "G7", "C7", "G3", "pass", "pass"]
    fast = [None, {"C3": 3}, None, None, {"G3": 3}, None, None]  # two full searches, five fast ones
    write_shard(plan.data("selfplay", "selfplay-000000.jsonl.gz"),
                [GameSample(9, 7.0, moves, "B+5", "B", source="selfplay", visits=fast, seed=k) for k in range(3)])
    build_positions(plan)
    record = json.loads(plan.data("reanalysed", "reanalysis.json").read_text())
    assert (record["model"], record["visits"], record["moves"]) == (str(plan.player), 4, "missing")
    games = read_shard(shard_paths(plan.data("reanalysed"))[0])
    assert [g.seed for g in games] == [0, 1, 2]
    for game in games:
        assert all(v is not None for v in game.visits) and game.visits[1] == {"C3": 3}
        assert game.notes == ["reanalysed by tiny-shipped at 4 visits: 5 moves"]
    weights = np.concatenate([load_shard(p)["weight"] for p in plan.data("positions", "selfplay").glob("*.npz")])
    assert weights.tolist() == [1.0] * 21  # every move of the three games now teaches the policy
    with pytest.raises(SystemExit):
        improve_main(["--round", "x", "--root", str(tmp_path), "--reanalyse-visits", "-1"])
    assert "--reanalyse-visits must be >= 0" in capsys.readouterr().err
