"""The base of every typed message: a frozen dataclass that maps 1:1 onto its JSON Schema.

Contract of every subclass (``KIND`` names its schema in ``schemas/``):

- ``to_dict()`` returns plain JSON data (dicts, lists, str, int, float, bool, None) with
  every field present (``None`` becomes ``null``) but those named in ``LEFT_OFF``, left
  off when ``None`` or ``False``; it does not validate.
- ``from_dict(data)`` validates ``data`` against the schema (raising
  ``validation.MessageError`` naming the field) and builds the object (nested
  dataclasses from the type hints: ``typed``); optional fields missing from ``data``
  take their documented defaults.
- ``from_dict(x.to_dict()) == x`` for every valid ``x``.
- Sequences are tuples inside objects and lists on the wire.
"""

from __future__ import annotations

import dataclasses
import time
import types
from functools import cache
from typing import Any, ClassVar, TypeVar, get_args, get_origin, get_type_hints

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


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def typed(hint: Any, value: Any) -> Any:
    """Validated JSON ``value`` as a value of type ``hint``: a dataclass built from its
    fields (keys that are not fields skipped), also when optional, in a tuple or as the
    values of a dict; any other list a tuple (``frozen``)."""
    if not isinstance(value, (dict, list)):
        return value  # None, or a scalar
    if isinstance(hint, types.UnionType):  # X | None
        hint = next(arg for arg in get_args(hint) if arg is not type(None))
    if dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        return hint(**{f.name: typed(hints[f.name], value[f.name]) for f in dataclasses.fields(hint)
                       if f.name in value})
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple:
        return tuple(typed(args[0 if args[-1] is Ellipsis else index], item) for index, item in enumerate(value))
    if origin is dict:
        return {key: typed(args[1], item) for key, item in value.items()}
    return frozen(value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Message:
    """A message of one kind; subclasses set ``KIND`` and declare the schema's fields."""

    KIND: ClassVar[str] = ""
    LEFT_OFF: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON payload of this message (not validated)."""
        data = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        for name in self.LEFT_OFF:
            if data[name] is None or data[name] is False:
                del data[name]
        return data

    @classmethod
    def from_dict(cls: type[M], data: Any) -> M:
        """Validate ``data`` against ``KIND``'s schema, then build the message."""
        validate(cls.KIND, data)
        return cls.build(data)

    @classmethod
    def build(cls: type[M], data: dict[str, Any]) -> M:
        """Build from already validated data (``typed``)."""
        return typed(cls, data)

    def validate(self) -> None:
        """Raise ``MessageError`` unless this message is valid on the wire."""
        validate(self.KIND, self.to_dict())
