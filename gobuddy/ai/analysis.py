"""Analysis of a position: the ranked top moves and the root summary, as the engine
library's own ``Analysis`` (flat points; modelled on KataGo's analysis engine). The
engine worker turns it into the wire's ``engine_answer`` (``engine_worker.answer``): this
library builds no message.

Meanings: ``winrate`` is the search's win probability for the side to move, in [0, 1]
(``winrate_black`` the same for black); ``root.value`` is the network's raw value of the
position for the side to move, in [-1, 1], before any search; ``score_lead`` is in points
for the side to move (``None`` when the model has no score head); ``prior`` is the
policy probability; moves are ranked by visits (ties: win rate, then prior), except
that with ``play_first`` the move a player would play comes first (``gobuddy.ai.lcb``:
the most visited unless another's lower confidence bound is clearly better, as the
GTP player chooses); ``order`` is the rank, and ``pv`` starts with the move. ``ownership`` is the network's ownership
of the root position, row-major from the top-left, + = black, or ``None``.
``position_hash`` is ``gobuddy.go.game.position_hash`` of the root.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from gobuddy.ai import lcb
from gobuddy.ai.features import History
from gobuddy.ai.mcts import Search, StopSignal
from gobuddy.go.coords import BLACK, color_from_str
from gobuddy.go.game import position_hash
from gobuddy.go.position import Position

DEFAULT_TOP_K = 5
DEFAULT_VISITS = 200
"""The default analysis budget: keeps p99 latency under 1 s for the 6x64 model on a
2-core machine with one inference thread (see bench/RESULTS.md)."""


@dataclass(frozen=True)
class RootSummary:
    """The search's summary of the position itself (meanings in the module docstring)."""

    visits: int
    winrate: float
    winrate_black: float
    score_lead: float | None
    value: float


@dataclass(frozen=True)
class Candidate:
    """One candidate move: flat ``point`` (pass is ``size * size``); ``pv`` starts with it."""

    point: int
    order: int
    visits: int
    winrate: float
    winrate_black: float
    score_lead: float | None
    prior: float
    pv: tuple[int, ...]


@dataclass(frozen=True)
class Analysis:
    """Ranked moves for a position of ``size``: which position (``move_count`` moves in,
    ``position_hash``, ``to_play`` as ``BLACK``/``WHITE``), the root summary, the
    candidates best first, ``ownership``; partial while ``is_during_search``."""

    size: int
    move_count: int
    position_hash: str
    to_play: int
    root: RootSummary
    moves: tuple[Candidate, ...]
    model: str
    elapsed_ms: float
    ownership: tuple[float, ...] | None = None
    is_during_search: bool = False

    @property
    def best(self) -> Candidate | None:
        """The top-ranked move, or None when no move was searched."""
        return self.moves[0] if self.moves else None


def _winrate(value: float) -> float:
    return min(1.0, max(0.0, (value + 1.0) / 2.0))


def snapshot(search: Search, top_k: int = DEFAULT_TOP_K, elapsed_ms: float = 0.0, is_during_search: bool = False,
             ownership: bool = True, max_pv: int = 10, play_first: bool = False) -> Analysis:
    """The ``Analysis`` of the search's current root (call between batches)."""
    root = search.root
    if root is None or not root.expanded:
        raise RuntimeError("snapshot: the root has not been evaluated")
    pos = root.position
    sign = 1 if pos.to_play == BLACK else -1
    has_score = search.evaluator.has_score
    root_q = root.q
    summary = RootSummary(
        visits=int(root.visits), winrate=_winrate(root_q), winrate_black=_winrate(sign * root_q),
        score_lead=(root.score_sum / root.visits if root.visits else root.net_score) if has_score else None,
        value=float(root.net_value))
    moves = []
    ranked = search.ranked()
    visited = [i for i in ranked if root.N[i] >= 1] or ranked[:1]
    if play_first:
        best = lcb.pick(lcb.moments(root), np.ones(len(root.moves), dtype=bool)).index
        if best in visited:
            visited.insert(0, visited.pop(visited.index(best)))
    for order, i in enumerate(visited[:top_k]):
        n = int(round(root.N[i]))
        q = search.child_q(root, i)
        score = (float(root.S[i] / root.N[i]) if n else summary.score_lead) if has_score else None
        moves.append(Candidate(
            point=int(root.moves[i]), order=order, visits=n, winrate=_winrate(q), winrate_black=_winrate(sign * q),
            score_lead=score, prior=float(root.prior_raw[i]), pv=tuple(search.pv(root, i, max_pv))))
    own = None
    if ownership and root.ownership is not None:
        own = tuple(round(float(v), 4) for v in np.clip(np.asarray(root.ownership) * sign, -1.0, 1.0))
    name_for = getattr(search.evaluator, "name_for", None)  # one model per size (gobuddy.ai.sized_evaluator)
    model = name_for(pos.size) if name_for is not None else search.evaluator.name
    return Analysis(size=pos.size, move_count=pos.move_count, position_hash=position_hash(pos), to_play=pos.to_play,
                    root=summary, moves=tuple(moves), model=model, elapsed_ms=elapsed_ms,
                    ownership=own, is_during_search=is_during_search)


def analyse(search: Search, position: Position, history: History = (), visits: int | None = DEFAULT_VISITS,
            seconds: float | None = None, top_k: int = DEFAULT_TOP_K, ownership: bool = True,
            to_play: str | None = None, stop: StopSignal | None = None,
            on_partial: Callable[[Analysis], None] | None = None, partial_every: float = 0.5,
            play_first: bool = False) -> Analysis:
    """Search ``position`` (history: previous boards, most recent first) and return the
    final ``Analysis``; ``on_partial`` receives ``is_during_search`` snapshots every
    ``partial_every`` seconds. ``to_play`` ("B"/"W") overrides the side to move.
    ``play_first``: the final answer lists the move to play first (module docstring).

    No early stop: the budget is spent so that every listed move's figures are as
    good as the budget allows. The search tree is reused when the position continues
    the previous one."""
    start = time.perf_counter()
    if to_play is not None and color_from_str(to_play) != position.to_play:
        position = position.copy()
        position.to_play = color_from_str(to_play)
        position.ko = None
    search.set_position(position, history)

    def partial(s: Search) -> None:
        on_partial(snapshot(s, top_k, (time.perf_counter() - start) * 1000.0, True, ownership))

    search.run(visits=visits, seconds=seconds, stop=stop, on_progress=partial if on_partial else None,
               progress_every=partial_every)
    return snapshot(search, top_k, (time.perf_counter() - start) * 1000.0, False, ownership, play_first=play_first)
