"""Typed engine messages, modelled on KataGo's analysis engine JSON protocol.

``EngineRequest`` asks about a ``Position``; a worker replies with an ``EngineAnswer``
(ranked ``MoveInfo``s, a ``RootInfo`` summary, optionally ownership) or an
``EngineError`` naming the request field at fault. ``id`` is echoed; answers are matched
to requests by MQTT Correlation Data and ``id``, and to board positions by
``position_key``. See the schemas for units (win rates in [0, 1]; ``deadline_ms`` absolute
epoch ms). Positions are plain data: nothing here checks legality.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field  # EngineError has a field named 'field'
from gobuddy.bus.message import Message, now_ms

Move = tuple[str, str]  # (colour, vertex or "pass")


@dataclass(frozen=True)
class Position:
    """A position as setup stones plus moves; ``to_play`` None: derived from the last move."""

    size: int
    komi: float
    rules: str
    moves: tuple[Move, ...] = ()
    setup: tuple[Move, ...] = ()
    to_play: str | None = None

    def side_to_play(self) -> str:
        """``to_play`` if given, else the colour after the last move, else ``"B"``."""
        if self.to_play is not None:
            return self.to_play
        if self.moves:
            return "W" if self.moves[-1][0] == "B" else "B"
        return "B"


@dataclass(frozen=True)
class Judge:
    """A request's ask for the teacher's judgement: ``move`` (GTP vertex or ``pass``)
    just played by the side to play in the request's position, by a learner of
    ``level`` (a name of ``gobuddy.ai.levels``)."""

    move: str
    level: str


@dataclass(frozen=True, kw_only=True)
class EngineRequest(Message):
    """A query for the engine workers; ``deadline_ms`` is the requester's absolute Unix epoch
    milliseconds, ``timeout_ms`` the time it has from when it was sent (set at each send).
    ``level``: a named opponent level (``gobuddy.ai.levels``) for a ``genmove``, ``None``
    for the search as before; ``seed``: repeatable draws of a level (``None``: 0);
    ``judge``: judge a learner's move in this position (the answer's ``judgement``);
    ``final_status``: which stones count dead at the end (the answer's ``final_status``);
    ``explain``: why the first move (the answer's ``reason``); both left off the wire
    when false."""

    KIND = "engine_request"
    LEFT_OFF = ("final_status", "explain")
    id: str
    board_id: str | None
    purpose: str  # hint | analysis | genmove
    position: Position
    max_visits: int
    deadline_ms: int
    timeout_ms: int | None = None
    max_time_ms: int | None = None
    top_k: int = 5
    include_ownership: bool = False
    report_every_ms: int | None = None
    level: str | None = None
    seed: int | None = None
    judge: Judge | None = None
    final_status: bool = False
    explain: bool = False


@dataclass(frozen=True)
class PositionKey:
    """Which position an answer is for: number of moves and hex Zobrist hash (gobuddy.go)."""

    move_count: int
    hash: str


@dataclass(frozen=True)
class RootInfo:
    """The search's summary of the position itself (``gobuddy.ai.analysis`` gives the meanings)."""

    visits: int
    winrate: float
    winrate_black: float
    score_lead: float | None
    value: float


@dataclass(frozen=True)
class MoveInfo:
    """One candidate move (GTP vertex or ``pass``); ``pv`` starts with the move."""

    move: str
    order: int
    visits: int
    winrate: float
    winrate_black: float
    score_lead: float | None
    prior: float
    pv: tuple[str, ...]


@dataclass(frozen=True)
class Tolerance:
    """What a level forgives (``gobuddy.ai.teaching.Tolerance``): points lost, win
    rate lost without a score head, and the win rate that makes any move safe (or None)."""

    points: float
    winrate: float
    safe_winrate: float | None


@dataclass(frozen=True)
class MoveJudgement:
    """The teacher's judgement of a learner's move (the schema gives the meanings):
    ``move`` and ``best`` are GTP vertices, figures for the mover."""

    move: str
    color: str
    level: str
    points_lost: float | None
    winrate_lost: float
    best: str
    winrate: float
    score_lead: float | None
    mistake: bool
    tolerance: Tolerance
    visits: int
    searched: str  # candidate | after


@dataclass(frozen=True)
class DeadStones:
    """The end-of-game verdict of a position (``gobuddy.ai.final_status``): every stone
    counted ``dead`` and the stones of ``unsure`` groups, GTP vertices."""

    dead: tuple[str, ...]
    unsure: tuple[str, ...]


@dataclass(frozen=True)
class MoveReason:
    """Why the answer's first move (``gobuddy.explain.Reason``, its heaviest): ``kind``,
    the ``text`` a person reads, and ``where``, the GTP vertices it is about (its group
    first)."""

    kind: str
    text: str
    where: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class EngineAnswer(Message):
    """Ranked moves for a position; partial while ``is_during_search``; ``judgement``
    of a learner's move when the request asked for one (final answers only);
    ``final_status`` and ``reason`` only when asked for (else left off the wire)."""

    KIND = "engine_answer"
    LEFT_OFF = ("final_status", "reason")
    id: str
    board_id: str | None
    position_key: PositionKey
    to_play: str
    root: RootInfo
    moves: tuple[MoveInfo, ...]
    model: str
    worker: str
    elapsed_ms: float
    ownership: tuple[float, ...] | None = None
    is_during_search: bool = False
    judgement: MoveJudgement | None = None
    final_status: DeadStones | None = None
    reason: MoveReason | None = None
    ts: int = dataclass_field(default_factory=now_ms)

    @property
    def best(self) -> MoveInfo | None:
        """The top-ranked move, or None when no move was searched."""
        return self.moves[0] if self.moves else None


@dataclass(frozen=True, kw_only=True)
class EngineError(Message):
    """A worker's refusal; ``field`` is the request field at fault as a path, or None;
    ``code`` what kind of refusal (invalid, unplayable, deadline, busy, shutdown, internal)."""

    KIND = "engine_error"
    id: str
    error: str
    field: str | None = None
    worker: str
    code: str | None = None
    retry_after_ms: int | None = None
    ts: int = dataclass_field(default_factory=now_ms)


@dataclass(frozen=True, kw_only=True)
class EngineProgress(Message):
    """A worker accepted a request: ``queued`` behind ``ahead`` others, or ``searching``;
    it expects to answer in ``expected_ms`` (its own clock)."""

    KIND = "engine_progress"
    id: str
    state: str
    ahead: int
    expected_ms: int
    worker: str
    ts: int = dataclass_field(default_factory=now_ms)
