"""The base of every typed message: a frozen dataclass that maps 1:1 onto its JSON Schema.

Contract of every subclass (``KIND`` names its schema in ``schemas/``):

- ``to_dict()`` returns plain JSON data (dicts, lists, str, int, float, bool, None) with
  every field present (``None`` becomes ``null``); it does not validate.
- ``from_dict(data)`` validates ``data`` against the schema (raising
  ``validation.MessageError`` naming the field) and builds the object; optional fields
  missing from ``data`` take their documented defaults.
- ``from_dict(x.to_dict()) == x`` for every valid ``x``.
- Sequences are tuples inside objects and lists on the wire.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, ClassVar, TypeVar

from gobuddy.bus.validation import validate

M = TypeVar("M", bound="Message")


def now_ms() -> int:
    """Current wall-clock time as integer Unix epoch milliseconds (the ``ts`` of messages)."""
    return time.time_ns() // 1_000_000


def plain(value: Any) -> Any:
    """Turn dataclasses, tuples and dicts into JSON data, recursively."""
    if isinstance(value, Message):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def frozen(value: Any) -> Any:
    """Turn JSON lists into tuples, recursively (dicts are kept, their values frozen)."""
    if isinstance(value, list):
        return tuple(frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: frozen(item) for key, item in value.items()}
    return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class Message:
    """A message of one kind; subclasses set ``KIND`` and declare the schema's fields."""

    KIND: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON payload of this message (not validated)."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls: type[M], data: Any) -> M:
        """Validate ``data`` against ``KIND``'s schema, then build the message."""
        validate(cls.KIND, data)
        return cls.build(data)

    @classmethod
    def build(cls: type[M], data: dict[str, Any]) -> M:
        """Build from already validated data; subclasses with nested objects override."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: frozen(value) for key, value in data.items() if key in names})

    def validate(self) -> None:
        """Raise ``MessageError`` unless this message is valid on the wire."""
        validate(self.KIND, self.to_dict())
