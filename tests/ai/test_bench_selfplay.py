"""The self-play bench runs the training rounds' own self-play command for each model
at once and reads each process's CPU time and its games back from the shards."""

from __future__ import annotations

from pathlib import Path

from bench.bench_selfplay import SHIPPED, command, measure
from training.make_model import Plan
from training.quantize import twin_path


def test_the_command_is_a_training_rounds_self_play() -> None:
    argv = command(SHIPPED, Path("/tmp/x"), 5, 3)
    plan = Plan()
    settings = dict(zip(argv[3::2], argv[4::2]))  # after python -m training.selfplay
    assert settings["--visits"] == str(plan.selfplay_visits) and settings["--fast-visits"] == str(plan.selfplay_fast_visits)
    assert settings["--full-fraction"] == str(plan.selfplay_full_fraction) and settings["--games"] == "5"
    assert settings["--search"] == "puct" and settings["--workers"] == "1" and settings["--engine"] == "native"
    python = command(SHIPPED, Path("/tmp/x"), 5, 3, "python")
    assert python[python.index("--engine") + 1] == "python"


def test_every_arm_plays_its_games_and_is_timed() -> None:
    arms = {"float, Python": (SHIPPED, "python"), "twin, compiled": (twin_path(SHIPPED), "native"),
            "twin, Python": (twin_path(SHIPPED), "python")}
    results = measure(arms, games=1, seed=5)
    assert list(results) == list(arms)
    # the same model, seed and settings: the two searches play the same game
    assert results["twin, compiled"]["moves"] == results["twin, Python"]["moves"]
    for name, r in results.items():
        assert r["games"] == 1, name
        assert r["moves"] >= 10 and 0 < r["full"] <= r["moves"], (name, r)
        assert 0.1 < r["cpu_s"] < 120, (name, r)  # start-up and one game, this process's own CPU
