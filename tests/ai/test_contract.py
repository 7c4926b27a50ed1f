"""The model contract: what a model file must declare, and the clear refusals."""

from __future__ import annotations

import json

import pytest

from gobuddy.ai import contract
from gobuddy.ai.contract import ModelContractError, check_model
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from tests.tiny_model import build_tiny_model

META = contract.metadata_for("m", [9], {"data": "gnugo", "steps": 10}, komi=7.0)
INPUTS = {"features": ["batch", 18, 9, 9]}
OUTPUTS = {"policy": ["batch", 82], "value": ["batch", 1], "score_lead": ["batch", 1], "ownership": ["batch", 81]}


def test_a_conforming_description_gives_model_info():
    info = check_model(META, INPUTS, OUTPUTS)
    assert (info.name, info.feature_version, info.board_sizes, info.komi) == ("m", 1, (9,), 7.0)
    assert info.provenance == {"data": "gnugo", "steps": 10}
    assert info.has_score and info.has_ownership


def test_optional_heads_and_dynamic_board_axes():
    meta = contract.metadata_for("multi", [9, 13], {})
    info = check_model(meta, {"features": [None, 18, "h", "w"]}, {"policy": [None, None], "value": [None, 1]})
    assert info.board_sizes == (9, 13) and not info.has_score and not info.has_ownership and info.komi is None


def _without(d, key):
    return {k: v for k, v in d.items() if k != key}


@pytest.mark.parametrize("meta, inputs, outputs, message", [
    (_without(META, "gobuddy.feature_version"), INPUTS, OUTPUTS, "metadata is missing gobuddy.feature_version"),
    ({**META, "gobuddy.feature_version": "2"}, INPUTS, OUTPUTS, "built for feature version 2.*computes feature version 1"),
    ({**META, "gobuddy.feature_version": "one"}, INPUTS, OUTPUTS, "is not an integer"),
    ({**META, "gobuddy.board_sizes": "nine"}, INPUTS, OUTPUTS, "not a comma-separated list"),
    ({**META, "gobuddy.board_sizes": "1"}, INPUTS, OUTPUTS, "names no valid board size"),
    ({**META, "gobuddy.board_sizes": "13"}, INPUTS, OUTPUTS, "axis 2 is 9, expected 13"),
    ({**META, "gobuddy.provenance": "{oops"}, INPUTS, OUTPUTS, "provenance is not JSON"),
    ({**META, "gobuddy.provenance": "[1]"}, INPUTS, OUTPUTS, "must be a JSON object"),
    ({**META, "gobuddy.komi": "seven"}, INPUTS, OUTPUTS, "komi='seven' is not a number"),
    (META, {"input": ["batch", 18, 9, 9]}, OUTPUTS, "missing tensor 'features'"),
    (META, {"features": ["batch", 17, 9, 9]}, OUTPUTS, "'features' axis 1 is 17, expected 18"),
    (META, {"features": ["batch", 18, 81]}, OUTPUTS, "'features' has rank 3"),
    (META, INPUTS, _without(OUTPUTS, "value"), "missing tensor 'value'"),
    (META, INPUTS, {**OUTPUTS, "policy": ["batch", 81]}, "'policy' axis 1 is 81, expected 82"),
    (META, INPUTS, {**OUTPUTS, "value": ["batch", 3]}, "'value' axis 1 is 3, expected 1"),
    (META, INPUTS, {**OUTPUTS, "ownership": ["batch", 82]}, "'ownership' axis 1 is 82, expected 81"),
    ({**META, "gobuddy.board_sizes": "9,13"}, INPUTS, {"policy": [None, None], "value": [None, 1]},
     "fixed board side 9 but gobuddy.board_sizes lists"),
])
def test_refusal_table(meta, inputs, outputs, message):
    with pytest.raises(ModelContractError, match=message):
        check_model(meta, inputs, outputs, source="x.onnx")


def test_metadata_round_trips_through_an_onnx_file(tiny5):
    model, path = tiny5
    ev = OnnxEvaluator(path)
    assert ev.info.name == "tiny-5x5" and ev.board_sizes == (5,) and ev.info.komi == 7.0
    assert json.loads(contract.metadata_for("a", [5], ev.info.provenance)["gobuddy.provenance"]) == ev.info.provenance


@pytest.mark.parametrize("change, message", [
    ({"feature_version": 2}, "built for feature version 2"),
    ({"planes": 17}, "axis 1 is 17, expected 18"),
])
def test_model_files_that_break_the_contract_are_refused(tmp_path, change, message):
    path = build_tiny_model(size=5, blocks=1, channels=4, **change).save(tmp_path / "bad.onnx")
    with pytest.raises(ModelContractError, match=message):
        OnnxEvaluator(path)


def test_a_model_without_metadata_or_not_onnx_is_refused(tmp_path):
    model = build_tiny_model(size=5, blocks=1, channels=4)
    del model.proto.metadata_props[:]
    path = model.save(tmp_path / "bare.onnx")
    with pytest.raises(ModelContractError, match="metadata is missing gobuddy.feature_version"):
        OnnxEvaluator(path)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelContractError, match="onnxruntime cannot load it"):
        OnnxEvaluator(junk)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        OnnxEvaluator(tmp_path / "missing.onnx")
