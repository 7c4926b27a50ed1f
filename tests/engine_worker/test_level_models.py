"""The opponent levels play the model their calibration played (``models/levels/``),
not whatever model was promoted since: the files ship, match their reports, and are
the defaults of the GTP front end's levels; 'full' stays the shipped model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dashboard.rank_estimate import levels_file
from engine_worker.gtp import LEVEL_MODELS, SHIPPED_MODELS, parse_args
from engine_worker.shipped import SHIPPED_SIZES, level_models


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("size, model", list(zip(SHIPPED_SIZES, level_models())))
def test_each_size_ships_the_model_its_calibration_report_names(size, model):
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    assert model.is_file(), f"{model} is missing: the {size}x{size} levels would play another model"
    assert size in OnnxEvaluator(model).board_sizes
    (line,) = [row for row in levels_file(size).read_text().splitlines() if row.startswith("Model:")]
    assert f"SHA-256 {digest(model)[:12]}" in line  # the report's ranks are this file's
    assert f"`models/levels/{model.name}`" in line


@pytest.mark.parametrize("argv, expected", [
    (["--level", "5 kyu"], LEVEL_MODELS),              # a level below full: the calibrated models
    (["--level", "30 kyu", "--boardsize", "13"], LEVEL_MODELS),
    (["--level", "full"], SHIPPED_MODELS),             # full: the shipped (promoted) models
    ([], SHIPPED_MODELS),
    (["--level", "5 kyu", "--model", "mine.onnx"], ("mine.onnx",)),  # a model given is played
])
def test_the_gtp_front_end_plays_a_level_with_its_calibrated_model(argv, expected):
    assert parse_args(argv).models == tuple(str(path) for path in expected)


def test_the_level_defaults_are_the_shipped_level_files():
    assert LEVEL_MODELS == level_models()  # every size has one: none falls back to the shipped model
