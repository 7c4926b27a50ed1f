"""From an engine request's position (GTP on the wire) to a ``Position`` with its history,
checked move by move, or to a ``RequestError`` naming the request field at fault.

Rules decide the ko rule (``gobuddy.go.game.Ruleset``: positional superko, except
``japanese`` and ``korean``), as everywhere. Colours need not alternate (the request says who played
each move). ``to_play`` (when given) overrides the side to move after the last move,
which clears a simple-ko point. What is NOT checked: that the model's komi equals the
request's (komi only scores finished games inside the search).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from gobuddy.ai.features import HISTORY_DEPTH, History, game_history
from gobuddy.bus.engine_messages import Position as WirePosition
from gobuddy.go.game import Game, GameError, Ruleset
from gobuddy.go.position import Position


class RequestError(ValueError):
    """A request the worker cannot answer; ``field`` is the request field as a path."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Prepared:
    """The position to search, its history (previous boards, most recent first) and
    ``key``: what makes two requests the same search (see ``search_key``)."""

    position: Position
    history: History
    key: str


def build(wire: WirePosition, board_sizes: tuple[int, ...]) -> tuple[Position, History]:
    """Replay ``wire`` (setup, then moves) with full legality (``gobuddy.go.game``); raise
    ``RequestError`` naming the request field at fault."""
    size = wire.size
    if size not in board_sizes:
        supported = ", ".join(f"{s}x{s}" for s in board_sizes)
        raise RequestError("position.size", f"the engine plays {supported} boards, not {size}x{size}")
    try:
        game = Game.from_position(size, Ruleset(wire.rules, wire.komi), wire.setup, wire.moves, wire.to_play)
    except GameError as exc:
        if exc.move_number:
            raise RequestError(f"position.moves[{exc.move_number - 1}][1]", str(exc)) from None
        where = "position.setup" if exc.setup_index is None else f"position.setup[{exc.setup_index}][1]"
        raise RequestError(where, str(exc)) from None
    return game.position, game_history(game)


def search_key(pos: Position, history: History, komi: float, rules: str, visits: int, top_k: int,
               ownership: bool, play_first: bool = False) -> str:
    """What identifies a search's answer: the position (``Position.key()``: stones, side to
    move, ko point), what the network also sees (the previous boards and whether the last
    move was a pass), komi, rules, the visit budget and the answer's shape (top_k,
    ownership, ``play_first``: the move to play listed first). Not in the key: the move count and the rest of the superko history."""
    digest = hashlib.blake2b(digest_size=16)
    for board in history[:HISTORY_DEPTH]:
        digest.update(board.tobytes())
    last_pass = pos.last_move == pos.pass_point
    return (f"{pos.size}:{pos.key():016x}:{digest.hexdigest()}:{int(last_pass)}:{pos.passes}:"
            f"{float(komi)}:{rules}:{visits}:{top_k}:{int(ownership)}:{int(play_first)}")


def prepare(wire: WirePosition, board_sizes: tuple[int, ...], visits: int, top_k: int,
            ownership: bool, play_first: bool = False) -> Prepared:
    """``build`` plus the search key of the answer."""
    pos, history = build(wire, board_sizes)
    return Prepared(pos, history, search_key(pos, history, wire.komi, wire.rules, visits, top_k, ownership, play_first))
