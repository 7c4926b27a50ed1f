"""Shipping a model: the ONNX file in ``models/``, its torch weights and its int8 twin
are replaced together or not at all.

The engines play the twin (``engine_worker.shipped``), so a model shipped without one
would leave every engine without its default model. The twin is therefore made beside
the source first (``training.quantize``; one already there and made from these bytes is
kept, so the twin a strength match played is the one shipped), and only when it agrees
with its source are the three files copied. ``make_model``'s ship stages and
``training.improve``'s promote stage both ship this way.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from training.quantize import make_twin, twin_of, twin_path


def has_current_twin(model: Path) -> bool:
    """Whether the int8 twin beside ``model`` exists and was made from its bytes."""
    from training.make_model import file_digest  # (make_model imports this module)

    twin = twin_path(model)
    return model.exists() and twin.exists() and twin_of(twin) == file_digest(model)


def is_shipped(shipped: Path, source: Path) -> bool:
    """Whether ``shipped`` holds ``source``'s bytes, with its torch weights and its twin."""
    from training.make_model import file_digest

    return (shipped.exists() and file_digest(shipped) == file_digest(source)
            and shipped.with_suffix(".pt").exists() and has_current_twin(shipped))


def ship(source: Path, shipped: Path) -> None:
    """Replace ``shipped``, ``shipped.with_suffix('.pt')`` and ``shipped``'s twin by
    ``source``'s (its ``.pt`` must lie beside it). ``QuantizeError`` when no twin of
    ``source`` agrees with it, and then nothing at ``shipped`` has changed. Not atomic
    as a whole: each file is replaced atomically, the twin last; a run stopped between
    them leaves a model whose twin is not current, which ``is_shipped`` reports."""
    if not has_current_twin(source):
        make_twin(source)
    for src, dst in ((source.with_suffix(".pt"), shipped.with_suffix(".pt")), (source, shipped),
                     (twin_path(source), twin_path(shipped))):
        partial = dst.with_name(dst.name + ".partial")
        shutil.copyfile(src, partial)
        partial.replace(dst)


__all__ = ["has_current_twin", "is_shipped", "ship"]
