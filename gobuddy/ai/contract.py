"""The model contract in code: tensor names, shapes and metadata of a Go Learning Buddy
ONNX model, and the check that refuses a model that does not fit (``MODEL_CONTRACT.md``
says the same in prose).

``check_model`` works on plain data (metadata dict, input and output shapes as
onnxruntime reports them: ints for fixed axes, strings or ``None`` for dynamic ones), so
it needs neither onnx nor onnxruntime; ``stamp`` writes the metadata into an
``onnx.ModelProto`` (duck-typed, no import). Not checked: the numerical meaning of the
outputs (that value really is a tanh, that policy is logits): only names, ranks and
fixed axis lengths.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gobuddy.ai.features import FEATURE_VERSION, NUM_PLANES
from gobuddy.go.coords import MAX_SIZE, MIN_SIZE

INPUT = "features"
POLICY = "policy"
VALUE = "value"
SCORE_LEAD = "score_lead"
OWNERSHIP = "ownership"

META_FEATURE_VERSION = "gobuddy.feature_version"
META_BOARD_SIZES = "gobuddy.board_sizes"
META_MODEL_NAME = "gobuddy.model_name"
META_PROVENANCE = "gobuddy.provenance"
META_KOMI = "gobuddy.komi"  # optional: the komi the value head was trained for
REQUIRED_METADATA = (META_FEATURE_VERSION, META_BOARD_SIZES, META_MODEL_NAME, META_PROVENANCE)

Dim = int | str | None
Shape = Sequence[Dim]


class ModelContractError(ValueError):
    """A model file that does not follow the contract; the message names the model and the rule."""


@dataclass(frozen=True)
class ModelInfo:
    """What a checked model declares about itself."""

    name: str
    feature_version: int
    board_sizes: tuple[int, ...]
    provenance: dict[str, Any] = field(default_factory=dict)
    komi: float | None = None
    has_score: bool = False
    has_ownership: bool = False


def metadata_for(name: str, board_sizes: Sequence[int], provenance: Mapping[str, Any],
                 komi: float | None = None, feature_version: int = FEATURE_VERSION) -> dict[str, str]:
    """The ``metadata_props`` a model file must carry, as strings."""
    meta = {
        META_FEATURE_VERSION: str(feature_version),
        META_BOARD_SIZES: ",".join(str(s) for s in board_sizes),
        META_MODEL_NAME: name,
        META_PROVENANCE: json.dumps(dict(provenance), sort_keys=True),
    }
    if komi is not None:
        meta[META_KOMI] = repr(float(komi))
    return meta


def stamp(model: Any, metadata: Mapping[str, str]) -> None:
    """Replace the ``metadata_props`` of an ``onnx.ModelProto`` with ``metadata``."""
    del model.metadata_props[:]
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value


def _fixed(dim: Dim) -> int | None:
    return dim if isinstance(dim, int) and dim > 0 else None


def _check_shape(source: str, what: str, shape: Shape | None, expected: Sequence[int | None]) -> None:
    if shape is None:
        raise ModelContractError(f"{source}: missing tensor {what!r}")
    if len(shape) != len(expected):
        raise ModelContractError(
            f"{source}: tensor {what!r} has rank {len(shape)} (shape {list(shape)}), expected rank {len(expected)}")
    for axis, (dim, want) in enumerate(zip(shape, expected)):
        got = _fixed(dim)
        if want is not None and got is not None and got != want:
            raise ModelContractError(
                f"{source}: tensor {what!r} axis {axis} is {got}, expected {want} (shape {list(shape)})")


def _parse_sizes(source: str, text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ModelContractError(f"{source}: {META_BOARD_SIZES}={text!r} is not a comma-separated list of sizes") from None
    if not sizes or any(not MIN_SIZE <= s <= MAX_SIZE for s in sizes):
        raise ModelContractError(f"{source}: {META_BOARD_SIZES}={text!r} names no valid board size")
    return sizes


def check_model(metadata: Mapping[str, str], inputs: Mapping[str, Shape], outputs: Mapping[str, Shape],
                source: str = "model") -> ModelInfo:
    """Check metadata and tensor shapes against the contract; return the ``ModelInfo``.

    ``source`` names the model in error messages (usually its path). Raises
    ``ModelContractError`` for: missing metadata, a feature version other than
    ``FEATURE_VERSION``, bad board sizes, malformed provenance JSON or komi, a missing
    ``features`` input or ``policy``/``value`` output, wrong ranks, or a fixed axis of
    the wrong length (planes, board side, policy/ownership length, value width)."""
    missing = [key for key in REQUIRED_METADATA if key not in metadata]
    if missing:
        raise ModelContractError(f"{source}: metadata is missing {', '.join(missing)} (see MODEL_CONTRACT.md)")
    try:
        version = int(metadata[META_FEATURE_VERSION])
    except ValueError:
        raise ModelContractError(
            f"{source}: {META_FEATURE_VERSION}={metadata[META_FEATURE_VERSION]!r} is not an integer") from None
    if version != FEATURE_VERSION:
        raise ModelContractError(
            f"{source}: model was built for feature version {version}, but this code computes "
            f"feature version {FEATURE_VERSION}; use a model made for version {FEATURE_VERSION}")
    sizes = _parse_sizes(source, metadata[META_BOARD_SIZES])
    try:
        provenance = json.loads(metadata[META_PROVENANCE])
    except json.JSONDecodeError as exc:
        raise ModelContractError(f"{source}: {META_PROVENANCE} is not JSON ({exc})") from None
    if not isinstance(provenance, dict):
        raise ModelContractError(f"{source}: {META_PROVENANCE} must be a JSON object")
    komi = None
    if META_KOMI in metadata:
        try:
            komi = float(metadata[META_KOMI])
        except ValueError:
            raise ModelContractError(f"{source}: {META_KOMI}={metadata[META_KOMI]!r} is not a number") from None
    side = sizes[0] if len(sizes) == 1 else None
    points = side * side if side is not None else None
    _check_shape(source, INPUT, inputs.get(INPUT), [None, NUM_PLANES, side, side])
    for axis in (2, 3):
        got = _fixed(inputs[INPUT][axis])
        if got is not None and got not in sizes:
            raise ModelContractError(f"{source}: input board side {got} is not among {META_BOARD_SIZES} {sizes}")
        if got is not None and len(sizes) > 1:
            raise ModelContractError(
                f"{source}: input has a fixed board side {got} but {META_BOARD_SIZES} lists {sizes}")
    _check_shape(source, POLICY, outputs.get(POLICY), [None, None if points is None else points + 1])
    _check_shape(source, VALUE, outputs.get(VALUE), [None, 1])
    if SCORE_LEAD in outputs:
        _check_shape(source, SCORE_LEAD, outputs[SCORE_LEAD], [None, 1])
    if OWNERSHIP in outputs:
        _check_shape(source, OWNERSHIP, outputs[OWNERSHIP], [None, points])
    return ModelInfo(name=metadata[META_MODEL_NAME], feature_version=version, board_sizes=sizes,
                     provenance=provenance, komi=komi, has_score=SCORE_LEAD in outputs,
                     has_ownership=OWNERSHIP in outputs)
