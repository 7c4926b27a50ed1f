"""The int8 twin of a model (``training.quantize``): written only when it follows its
source on positions it was not calibrated on, with the model contract kept; refused,
with what differs named, when it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from training import quantize as q

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def planes():
    """Positions of the shipped model's own policy games: 128 to calibrate, 256 to check."""
    return q.policy_game_positions(MODELS / "gobuddy-9x9.onnx", 384, seed=5)


def test_the_twin_follows_its_source_and_keeps_the_contract(planes, tmp_path):
    out = tmp_path / "twin.onnx"
    found = q.quantize(MODELS / "gobuddy-9x9.onnx", out, planes[:128], planes[128:])
    assert found.problems() == [] and found.positions == 256
    assert found.top_move >= q.MIN_TOP_MOVE and found.value_error <= q.MAX_VALUE_ERROR
    source, twin = OnnxEvaluator(MODELS / "gobuddy-9x9.onnx"), OnnxEvaluator(out)
    assert twin.name == source.name + "-int8"
    assert (twin.board_sizes, twin.has_score, twin.has_ownership) == (source.board_sizes, True, True)
    meta = twin.session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["gobuddy.provenance"])["quantized"]["from"] == source.name
    assert out.stat().st_size < (MODELS / "gobuddy-9x9.onnx").stat().st_size / 2


@pytest.mark.parametrize("bound, value, words", [
    ("MIN_TOP_MOVE", 1.01, "same top move"),
    ("MAX_POLICY_KL", 0.0, "policy divergence"),
    ("MAX_VALUE_ERROR", 0.0, "value off by"),
    ("MAX_OWNERSHIP_ERROR", 0.0, "ownership off by"),
])
def test_a_twin_that_differs_is_refused_and_nothing_is_written(planes, tmp_path, monkeypatch, bound, value, words):
    out = tmp_path / "twin.onnx"
    out.write_bytes(b"the twin from before")
    monkeypatch.setattr(q, bound, value)
    with pytest.raises(q.QuantizeError, match=words):
        q.quantize(MODELS / "gobuddy-9x9.onnx", out, planes[:64], planes[128:192])
    assert out.read_bytes() == b"the twin from before"


def test_policy_games_are_games_and_seeded():
    a = q.policy_game_positions(MODELS / "gobuddy-9x9.onnx", 40, seed=1)
    assert a.shape == (40, 18, 9, 9)
    assert (a == q.policy_game_positions(MODELS / "gobuddy-9x9.onnx", 40, seed=1)).all()
    stones = a[:, 0:2].sum(axis=(1, 2, 3))  # own + opponent stones: one game, growing
    assert list(stones[:6]) == [0, 1, 2, 3, 4, 5]


def test_calibration_shards_must_exist(tmp_path):
    with pytest.raises(q.QuantizeError, match="no position shards"):
        q.shard_positions(tmp_path, 10, seed=0)


@pytest.mark.parametrize("model", ["gobuddy-9x9.onnx", "gobuddy-13x13.onnx"])
def test_the_shipped_twins_are_of_the_shipped_models(model):
    """Each shipped model ships with its int8 twin, made from it (a promoted model
    without a new twin fails here)."""
    source = OnnxEvaluator(MODELS / model)
    twin = OnnxEvaluator(q.twin_path(MODELS / model))
    meta = twin.session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["gobuddy.provenance"])["quantized"]["from"] == source.name
    assert q.twin_is_current(MODELS / model)
    planes = q.policy_game_positions(MODELS / model, 96, seed=9)
    assert q.agreement(MODELS / model, q.twin_path(MODELS / model), planes).problems() == []


def test_only_the_trunk_is_quantized_and_the_heads_keep_their_range(tmp_path):
    """Calibrated on close positions only, the twin still gives the lead of lopsided ones:
    the heads are float, so no head output is clipped to the calibration's range."""
    import numpy as np
    import onnx

    # more games than the module's fixture: a stronger model's policy games hold fewer close
    # positions (the 9x96 model: about a third of them within 4 points)
    planes = q.policy_game_positions(MODELS / "gobuddy-9x9.onnx", 1024, seed=5)
    source = OnnxEvaluator(MODELS / "gobuddy-9x9.onnx")
    lead = source.run_planes(planes)["score_lead"].ravel()
    close, lopsided = planes[np.abs(lead) < 4], np.abs(lead) > 12
    assert len(close) >= 240 and lopsided.sum() >= 10, "the fixture's games lack close or lopsided positions"
    out = tmp_path / "twin.onnx"
    # calibrated on 200 close positions; checked on the other close ones and every other position
    # (128 close positions alone left r18's value 0.08 off on the close check: too few to calibrate)
    q.quantize(MODELS / "gobuddy-9x9.onnx", out, close[:200], np.concatenate([close[200:], planes[np.abs(lead) >= 4]]))
    twin_lead = OnnxEvaluator(out).run_planes(planes[lopsided])["score_lead"].ravel()
    # clipped to the calibration's range it would be off by tens of points (leads up to 70)
    assert np.abs(twin_lead - lead[lopsided]).mean() < 2.0
    graph = onnx.load(str(out)).graph
    made_by = {output: node.op_type for node in graph.node for output in node.output}
    for node in graph.node:
        if node.op_type in ("Conv", "Gemm"):
            weight = made_by.get(node.input[1], "float initializer")
            trunk = node.name.startswith(q.TRUNK)
            assert weight == ("DequantizeLinear" if trunk else "float initializer"), node.name


def test_a_model_without_our_trunk_is_refused():
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="/other/Relu")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(q.QuantizeError, match="no residual trunk"):
        q.heads_of(onnx.helper.make_model(graph))
