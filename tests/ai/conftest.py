"""Shared fixtures: small random-weight models that follow the contract, built once."""

from __future__ import annotations

import pytest

from tests.tiny_model import TinyModel, build_tiny_model


@pytest.fixture(scope="session")
def tiny5(tmp_path_factory) -> tuple[TinyModel, str]:
    """A 5x5 model (2 blocks x 8 channels) and its file."""
    model = build_tiny_model(size=5, blocks=2, channels=8, seed=3, name="tiny-5x5")
    return model, str(model.save(tmp_path_factory.mktemp("models") / "tiny5.onnx"))


@pytest.fixture(scope="session")
def tiny9(tmp_path_factory) -> tuple[TinyModel, str]:
    """A 9x9 model (2 blocks x 16 channels) and its file."""
    model = build_tiny_model(size=9, blocks=2, channels=16, seed=4, name="tiny-9x9")
    return model, str(model.save(tmp_path_factory.mktemp("models") / "tiny9.onnx"))
