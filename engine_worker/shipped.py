"""The models that ship in ``models/``: one per board size, played through their int8
twins (``training.quantize``: the same play at equal visits, about twice the visits in
the same time on CPU; models/MODEL_CARD.md). The engine worker, the GTP front end and
``make run`` all default to these. The opponent levels below ``full`` play the models
their calibration played, kept in ``models/levels/`` (``level_models``). Light on
purpose: the GTP front end imports it at start.
"""

from __future__ import annotations

from pathlib import Path

SHIPPED_SIZES = (9, 13)  # the board sizes with a shipped model: models/gobuddy-NxN.onnx
REPO_MODELS = Path(__file__).resolve().parent.parent / "models"


LEVELS_DIR = "levels"  # models/levels/: the model each size's level calibration played


def shipped_twins(models_dir: Path = REPO_MODELS) -> tuple[Path, ...]:
    """The int8 twins of the shipped models in ``models_dir``, in ``SHIPPED_SIZES`` order
    (not checked: that the files exist)."""
    return tuple(models_dir / f"gobuddy-{n}x{n}.int8.onnx" for n in SHIPPED_SIZES)


def level_models(models_dir: Path = REPO_MODELS) -> tuple[Path, ...]:
    """The models the opponent levels play, one per size in ``SHIPPED_SIZES`` order:
    ``models_dir/levels/gobuddy-NxN.int8.onnx``, the file the size's calibration
    (``python -m training.levels``, ``models/LEVELS*.md``) pinned and played. Every
    level but ``full`` plays it, so promoting a stronger model leaves the calibrated
    ranks true; ``full`` is the shipped model. Not checked: that the files exist."""
    return tuple(models_dir / LEVELS_DIR / f"gobuddy-{n}x{n}.int8.onnx" for n in SHIPPED_SIZES)


__all__ = ["LEVELS_DIR", "REPO_MODELS", "SHIPPED_SIZES", "level_models", "shipped_twins"]
