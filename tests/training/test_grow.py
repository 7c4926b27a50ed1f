"""The growers' command lines (``python -m training.deepen``, ``python -m
training.widen``): each writes a step-0 checkpoint with its provenance that training
starts from, and refuses with a reason, writing nothing."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from training import deepen, widen  # noqa: E402
from training.grow import read_network  # noqa: E402
from training.train import TrainConfig, train  # noqa: E402

from tests.training.test_aux_policy import SIZE, write_positions  # noqa: E402
from tests.training.test_deepen import SHIPPED, outputs  # noqa: E402

GROWERS = [  # the command, its option, the small network's value, the grown one's, the provenance's verb
    pytest.param(deepen.main, "blocks", 1, 3, "deepened", id="deepen"),
    pytest.param(widen.main, "channels", 8, 12, "widened", id="widen"),
]


@pytest.mark.parametrize("main, field, before, after, verb", GROWERS)
def test_the_command_writes_a_checkpoint_that_training_starts_from(tmp_path, capsys, main, field, before, after, verb):
    data = tmp_path / "data"
    rng = np.random.default_rng(1)
    write_positions(data, [int(r) for r in rng.integers(-1, SIZE * SIZE + 1, 40)])
    shape = {"blocks": 1, "channels": 8, field: before}
    small = TrainConfig(data=data, run=tmp_path / "small", size=SIZE, steps=2, batch_size=8, lr=0.01, warmup=1,
                        validate_every=2, checkpoint_every=1, threads=1, progress=False, **shape)
    train(small, NUM_PLANES)
    grown_path = tmp_path / "grown.pt"
    assert main(["--checkpoint", str(tmp_path / "small" / "last.pt"), f"--{field}", str(after),
                 "--out", str(grown_path)]) == 0
    assert f"{field}_before" in capsys.readouterr().out
    state = torch.load(grown_path, weights_only=False)
    assert state["net"][field] == after and state["step"] == 0
    assert state["provenance"][f"{field}_before"] == before
    assert state["provenance"][f"{verb}_from"] == str(tmp_path / "small" / "last.pt")
    again = TrainConfig(data=data, run=tmp_path / "grown", size=SIZE, steps=2, batch_size=8, lr=0.01, warmup=1,
                        validate_every=2, checkpoint_every=1, threads=1, progress=False, init=grown_path)
    train(again, NUM_PLANES)
    resumed = torch.load(tmp_path / "grown" / "last.pt", weights_only=False)
    assert resumed["net"][field] == after and resumed["step"] == 2


# the shipped network's shape (the growers refuse to shrink it), read from its weights
SHIPPED_NET = torch.load(SHIPPED, map_location="cpu", weights_only=False)["net"] if SHIPPED.exists() else {
    "blocks": 6, "channels": 64}
BLOCKS, CHANNELS = SHIPPED_NET["blocks"], SHIPPED_NET["channels"]


@pytest.mark.parametrize("main, argv, message", [
    (deepen.main, ["--blocks", str(BLOCKS - 2)], f"already has {BLOCKS} blocks"),
    (deepen.main, ["--blocks", "8", "--checkpoint", "missing.pt"], "No such file"),
    (widen.main, ["--channels", str(CHANNELS)], f"already has {CHANNELS} channels"),
    (widen.main, ["--channels", "96", "--checkpoint", "missing.pt"], "No such file"),
    (widen.main, ["--channels", "96", "--checkpoint", __file__], "test_grow.py: not a checkpoint torch can read"),
])
def test_the_command_refuses_with_a_reason(tmp_path, capsys, main, argv, message):
    args = ["--checkpoint", str(SHIPPED), "--out", str(tmp_path / "x.pt")] + argv
    assert main(args) == 1
    said = capsys.readouterr().out
    assert "] refused: " in said and message in said, said
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.skipif(not SHIPPED.exists(), reason="the shipped 9x9 model")
@pytest.mark.parametrize("main, argv", [(deepen.main, ["--blocks", str(BLOCKS + 1)]),
                                        (widen.main, ["--channels", str(CHANNELS + 16)])], ids=["deepen", "widen"])
def test_the_shipped_model_grown_plays_as_before(tmp_path, main, argv):
    assert main(["--checkpoint", str(SHIPPED), "--out", str(tmp_path / "g.pt")] + argv) == 0
    old, _ = read_network(SHIPPED)
    grown, _ = read_network(tmp_path / "g.pt")
    x = (torch.rand(8, NUM_PLANES, 9, 9) > 0.7).float()
    for a, b in zip(outputs(old, x), outputs(grown, x)):
        assert torch.allclose(a, b, atol=1e-5)
