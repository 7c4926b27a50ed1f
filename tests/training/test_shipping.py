"""Shipping a model (``training.shipping``): the ONNX file, its torch weights and its
int8 twin are replaced together, or, when no twin agrees with the model, not at all
(the engines play the twin: a model shipped without one leaves them nothing to play)."""

from __future__ import annotations

from pathlib import Path

import pytest

from training import quantize as q
from training import shipping
from training.gating import main as gating_main
from training.make_model import file_digest

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture()
def folders(tmp_path, monkeypatch):
    """A candidate (the shipped 13x13 model) in a run folder and a models folder that
    ships the 9x9 model under the same name; twins calibrated on few positions (fast)."""
    monkeypatch.setattr(shipping, "make_twin", lambda model: q.make_twin(model, positions=64, check_positions=64))
    run, models = tmp_path / "run", tmp_path / "models"
    run.mkdir()
    models.mkdir()
    for src, dst in ((MODELS / "gobuddy-13x13.onnx", run / "model.onnx"),
                     (MODELS / "gobuddy-13x13.pt", run / "model.pt"),
                     (MODELS / "gobuddy-9x9.onnx", models / "gobuddy.onnx"),
                     (MODELS / "gobuddy-9x9.pt", models / "gobuddy.pt")):
        dst.write_bytes(src.read_bytes())
    q.make_twin(models / "gobuddy.onnx", positions=64, check_positions=64)
    return run / "model.onnx", models / "gobuddy.onnx"


def digests(shipped: Path) -> list[str]:
    return [file_digest(f) for f in (shipped, shipped.with_suffix(".pt"), q.twin_path(shipped))]


def test_a_model_ships_with_its_weights_and_its_own_twin(folders):
    candidate, shipped = folders
    assert shipping.is_shipped(shipped, shipped) and not shipping.is_shipped(shipped, candidate)
    shipping.ship(candidate, shipped)
    assert digests(shipped)[:2] == [file_digest(candidate), file_digest(candidate.with_suffix(".pt"))]
    assert q.twin_of(q.twin_path(shipped)) == file_digest(candidate)
    assert shipping.is_shipped(shipped, candidate) and shipping.has_current_twin(candidate)
    assert not list(shipped.parent.glob("*.partial"))


def test_the_twin_already_beside_the_candidate_is_the_one_shipped(folders, monkeypatch):
    """The twin a strength match played is not made again (a new calibration could differ)."""
    candidate, shipped = folders
    q.make_twin(candidate, positions=64, check_positions=64)
    played = file_digest(q.twin_path(candidate))
    monkeypatch.setattr(shipping, "make_twin", lambda model: pytest.fail("a current twin was made again"))
    shipping.ship(candidate, shipped)
    assert file_digest(q.twin_path(shipped)) == played


def test_a_twin_of_other_bytes_beside_the_candidate_is_made_again(folders):
    candidate, shipped = folders
    q.twin_path(candidate).write_bytes((MODELS / "gobuddy-9x9.int8.onnx").read_bytes())
    assert not shipping.has_current_twin(candidate)
    shipping.ship(candidate, shipped)
    assert shipping.is_shipped(shipped, candidate)


def test_a_twin_of_these_bytes_by_an_older_method_is_made_again(folders, monkeypatch):
    candidate, shipped = folders
    monkeypatch.setattr(q, "METHOD", "whole network int8, MinMax")  # as twins were made before
    q.make_twin(candidate, positions=64, check_positions=64)
    monkeypatch.undo()
    assert q.twin_of(q.twin_path(candidate)) == file_digest(candidate)
    assert not shipping.has_current_twin(candidate)
    shipping.ship(candidate, shipped)
    assert q.made_how(q.twin_path(shipped))["method"] == q.METHOD and shipping.is_shipped(shipped, candidate)


def test_no_twin_that_agrees_means_nothing_shipped(folders, monkeypatch):
    candidate, shipped = folders
    before = digests(shipped)
    monkeypatch.setattr(q, "MIN_TOP_MOVE", 1.01)  # no twin can agree on more than every move
    with pytest.raises(q.QuantizeError, match="same top move"):
        shipping.ship(candidate, shipped)
    assert digests(shipped) == before and shipping.is_shipped(shipped, shipped)


@pytest.mark.parametrize("missing, shipped_says", [
    ("gobuddy.int8.onnx", False),  # the engines' default model is gone
    ("gobuddy.pt", False),         # training starts from the weights
])
def test_a_shipped_model_lacking_a_part_is_not_shipped(folders, missing, shipped_says):
    _, shipped = folders
    (shipped.parent / missing).unlink()
    assert shipping.is_shipped(shipped, shipped) is shipped_says


def test_gating_promotes_only_a_candidate_with_its_weights(folders, capsys):
    candidate, shipped = folders
    candidate.with_suffix(".pt").unlink()
    with pytest.raises(SystemExit) as stop:
        gating_main(["--candidate", str(candidate), "--current", str(shipped), "--promote", str(shipped)])
    assert stop.value.code == 2 and "no torch weights" in capsys.readouterr().err
