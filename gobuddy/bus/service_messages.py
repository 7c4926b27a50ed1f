"""Typed messages services publish about themselves: presence (``Status``) and
rejections (``ErrorReport``). The client wrapper publishes both for you: a retained
online ``Status`` on every connect, an offline one as last will and on ``stop()``, and an
``ErrorReport`` for every message it rejects.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field  # ErrorReport has a field named 'field'
from typing import Any

from gobuddy.bus.message import Message, now_ms

EXCERPT_CHARS = 200


@dataclass(frozen=True, kw_only=True)
class Status(Message):
    """Presence of one client; ``details`` are small scalars (model, queue_depth, ...)."""

    KIND = "status"
    client_id: str
    role: str
    state: str  # online | offline
    reason: str  # connected | shutdown | connection_lost
    version: str
    details: dict[str, Any] = dataclass_field(default_factory=dict)
    ts: int = dataclass_field(default_factory=now_ms)


@dataclass(frozen=True, kw_only=True)
class ErrorReport(Message):
    """``client_id`` (of ``role``) rejected a message that arrived on ``topic``."""

    KIND = "error"
    client_id: str
    role: str
    topic: str
    kind: str  # invalid_utf8 | invalid_json | schema | topic | too_large | handler
    message: str
    field: str | None = None
    excerpt: str = ""
    ts: int = dataclass_field(default_factory=now_ms)

    @staticmethod
    def excerpt_of(payload: bytes) -> str:
        """The start of a payload as text, safe for the ``excerpt`` field."""
        return payload[: EXCERPT_CHARS * 2].decode("utf-8", "replace")[:EXCERPT_CHARS]
