"""Shipping a model: the ONNX file in ``models/``, its torch weights and its int8 twin
are replaced together or not at all.

The engines play the twin (``engine_worker.shipped``), so a model shipped without one
would leave every engine without its default model. The twin is therefore made beside
the source first (``training.quantize``). One already there, made from these bytes by
today's method, is kept, so the twin a strength match played is the one shipped; one
made by an older method is made again. Only when the twin agrees with its source are
the three files copied. ``make_model``'s ship stages, ``training.improve``'s promote
stage and ``training.gating --promote`` all ship this way.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from training.quantize import METHOD, made_how, make_twin, twin_path


def has_current_twin(model: Path) -> bool:
    """Whether the int8 twin beside ``model`` exists, was made from its bytes and by
    today's method (``training.quantize.METHOD``)."""
    from training.make_model import file_digest  # (make_model imports this module)

    made = made_how(twin_path(model)) if model.exists() else None
    return made is not None and made.get("source_sha256") == file_digest(model) and made.get("method") == METHOD


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
