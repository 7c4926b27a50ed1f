"""The dashboard's engine request for a position: a fresh id, the position in wire terms,
the budget and a deadline from now."""

from __future__ import annotations

import uuid
from typing import Sequence

from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import EngineRequest, Position


def position_request(purpose: str, *, size: int, komi: float, rules: str, setup: Sequence[tuple[str, str]] = (),
                     moves: Sequence[tuple[str, str]] = (), to_play: str | None = None, visits: int,
                     timeout_s: float, board_id: str | None = None, top_k: int = 5,
                     include_ownership: bool = False, report_every_ms: int | None = None) -> EngineRequest:
    """An ``EngineRequest`` with a fresh id (``dash-<purpose>-<hex>``) and a deadline
    ``timeout_s`` from now; ``report_every_ms`` asks for partial answers."""
    return EngineRequest(id=f"dash-{purpose}-{uuid.uuid4().hex[:12]}", board_id=board_id, purpose=purpose,
                         position=Position(size=size, komi=komi, rules=rules, moves=tuple(map(tuple, moves)),
                                           setup=tuple(map(tuple, setup)), to_play=to_play),
                         max_visits=visits, deadline_ms=now_ms() + int(timeout_s * 1000), top_k=top_k,
                         include_ownership=include_ownership, report_every_ms=report_every_ms)
