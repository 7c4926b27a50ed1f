"""PUCT Monte Carlo tree search with batched leaf evaluation.

Each expanded node keeps its children's statistics in numpy arrays over its legal moves
(pass included): ``prior`` (policy, illegal moves masked and the rest renormalised),
``N`` visits, ``W`` summed values and ``S`` summed score leads, both from the point of
view of the node's side to move (the one choosing among the children). Selection is one
``argmax`` of ``Q + c_puct * P * sqrt(sum N) / (1 + N)``; an unvisited child gets the
first-play-urgency value ``net_value - fpu_reduction * sqrt(prior mass visited)``.

Leaves are collected ``batch_size`` at a time under virtual loss (each pending path
counts ``virtual_loss`` lost visits) and evaluated in one ``Evaluator.evaluate`` call.
With ``pipeline`` (the default) that call runs on a worker thread while the next batch
is collected and the previous one backed up (onnxruntime releases the GIL), so tree
work overlaps inference; the price is that a batch is chosen without the results of
the one before it. With a ``StagedEvaluator`` only its ``infer`` (the network) goes to
the worker; features and results are made on this thread, so the worker never waits
for the GIL that this thread holds while it walks the tree.
Two passes in a row end the game: such a node is terminal and its value is exact, the
Tromp-Taylor result with ``komi`` (+1 win, -1 loss, 0 draw; score = the margin), so the
search never passes away a won game or passes into a lost one when the opponent has just
passed. Positions longer than ``max_moves`` are also scored as they stand.

The tree is reused from one move to the next (``set_position`` finds the new position
among the descendants of the old root). Dirichlet noise at the root, forced playouts
(``forced_playouts``: KataGo's, a root child whose visits are below ``sqrt(k * prior *
sum N)`` is chosen first, so noise-raised moves get looked at; ``search_node.select``)
and temperature-proportional move choice serve self-play. Limits are root visits (reused
visits count) and wall time, plus an external ``threading.Event``; with ``early_stop``
the search ends once the rest of the budget can no longer change the move: ``True``
for the most visited move (no other move's visits plus the visits left can pass its), or
a ``SettledRule`` for another choice (``gobuddy.ai.lcb.settled`` for the lower
confidence bound). Without it the whole budget is spent.

A root policy of its own (``gobuddy.ai.gumbel``) drives the tree with ``evaluate_root``
and ``simulate`` (simulations whose first move it chooses, PUCT below the root).

Not handled here: resignation and which moves a GTP command allows (``player``), the
choice of komi (the caller's), thread safety (one thread drives a ``Search``).
"""

from __future__ import annotations

import math
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from gobuddy.ai.evaluator import Evaluation, Evaluator, Query
from gobuddy.ai.features import HISTORY_DEPTH, History
from gobuddy.ai.search_node import Node, add_score, change, expand, select, set_prior
from gobuddy.go.position import Position, legal_masks
from gobuddy.go.scoring import tromp_taylor_margin


class StopSignal(Protocol):
    """Anything with ``is_set()``, such as a ``threading.Event``."""

    def is_set(self) -> bool: ...


SettledRule = Callable[[Node, float], bool]
"""``rule(root, remaining)``: whether ``remaining`` more root visits (the real visits
still to come, a batch in flight included; ``inf`` when only a stop signal limits the
search) can no longer change the move chosen at ``root``."""


@dataclass(frozen=True)
class SearchConfig:
    """Tuning of the search. ``komi`` scores terminal positions (the model's value head
    assumes its own training komi). ``max_moves`` defaults to 3 x board points.
    ``pipeline``: evaluate on a worker thread, overlapping the tree work."""

    komi: float = 7.0
    c_puct: float = 1.5
    fpu_reduction: float = 0.25
    batch_size: int = 8
    virtual_loss: float = 1.0
    noise: bool = False
    dirichlet_alpha: float = 0.15
    noise_fraction: float = 0.25
    max_moves: int | None = None
    seed: int | None = None
    pipeline: bool = True
    forced_playouts: float = 0.0  # KataGo's forced playouts at the root: k (2 in KataGo), 0 for none
    # KataGo's score utility in selection: lambda * 2/pi * atan(mean score lead / scale) (0: off)
    score_utility: float = 0.0
    score_scale: float = 5.0  # points; how fast the utility saturates

    def __post_init__(self) -> None:
        if not (0 <= self.score_utility < math.inf and 0 < self.score_scale < math.inf):
            raise ValueError(f"score_utility must be >= 0 and score_scale > 0 (both finite), got {self.score_utility}, "
                             f"{self.score_scale}")

    @property
    def utility(self) -> tuple[float, float] | None:
        """``(factor, scale)`` for ``search_node.select``, or None when off."""
        return (self.score_utility * 2.0 / math.pi, self.score_scale) if self.score_utility > 0 else None


@dataclass
class SearchStats:
    """What one ``Search.run`` call did."""

    visits: int = 0
    evaluations: int = 0
    batches: int = 0
    collisions: int = 0
    elapsed: float = 0.0
    stopped_by: str = ""


@dataclass
class _Batch:
    """Leaves under evaluation: a future (pipelined) or the result itself."""

    leaves: list[tuple[list[tuple["Node", int]], "Node"]]
    legal: np.ndarray  # the leaves' legal masks, one row each
    future: Future | None
    result: list[Evaluation] | None = None
    prepared: Any = None  # a staged evaluator's prepared batch: the future gives its raw outputs


class Search:
    """A search tree over positions judged by ``evaluator``; see the module docstring."""

    def __init__(self, evaluator: Evaluator, config: SearchConfig = SearchConfig()) -> None:
        self.evaluator = evaluator
        self.config = config
        self.root: Node | None = None
        self.root_history: History = ()
        self._rng = np.random.default_rng(config.seed)
        self._pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ the root
    def set_position(self, position: Position, history: History = ()) -> bool:
        """Make ``position`` (with its previous boards, most recent first) the root.

        Reuses a subtree when ``position`` is a descendant (up to 3 moves) of the current
        root, and returns whether it did. ``position`` is copied, never kept."""
        self.root_history = tuple(history[:HISTORY_DEPTH])
        found = self._find(position, depth=3) if self.root is not None else None
        if found is not None and found.terminal is None and not found.pending:
            found.parent, found.index = None, -1
            self.root = found
            if self.config.noise and found.expanded:
                self._add_noise(found)
            return True
        self.root = Node(position.copy())
        return False

    def _find(self, position: Position, depth: int) -> Node | None:
        key, count = position.key(), position.move_count
        frontier = deque([(self.root, 0)])
        while frontier:
            node, d = frontier.popleft()
            p = node.position
            if p.move_count == count and p.key() == key and p.passes == position.passes and p.board == position.board:
                return node
            if d < depth and p.move_count < count:
                frontier.extend((c, d + 1) for c in node.children if c is not None)
        return None

    def clear(self) -> None:
        """Forget the tree."""
        self.root = None

    # ------------------------------------------------------------------ searching
    def run(self, visits: int | None = None, seconds: float | None = None,
            stop: StopSignal | None = None, early_stop: bool | SettledRule = False,
            on_progress: Callable[["Search"], None] | None = None, progress_every: float = 1.0) -> SearchStats:
        """Search until the root has ``visits`` visits, ``seconds`` have passed, ``stop``
        is set (checked after the first batch, so a set ``stop`` still yields one
        batch), or (``early_stop``, module docstring) the move is settled: then
        ``stopped_by`` is ``"settled"``. At least one limit or a
        ``stop`` signal is required. ``on_progress(self)`` is called every
        ``progress_every`` seconds from this thread, between batches, with no batch in
        flight (so no virtual loss shows)."""
        if self.root is None:
            raise RuntimeError("Search.run: no position; call set_position first")
        if visits is None and seconds is None and stop is None:
            raise ValueError("Search.run needs visits, seconds or a stop event")
        stats = SearchStats()
        start = time.perf_counter()
        next_progress = start + progress_every
        root = self.root
        inflight: _Batch | None = None
        try:
            if not root.expanded:
                self._finish(self._submit([([], root)], stats), stats)
                if self.config.noise:
                    self._add_noise(root)
            while True:
                pending = len(inflight.leaves) if inflight else 0
                reason = stop_reason(root, visits, seconds, stop, early_stop, time.perf_counter() - start,
                                     stats, pending)
                if reason:
                    stats.stopped_by = reason
                    break
                budget = self.config.batch_size
                if visits is not None:
                    budget = max(1, min(budget, visits - root.visits - pending))
                batch = self._collect(budget, stats)
                submitted = self._submit(batch, stats) if batch else None
                if inflight is not None:
                    self._finish(inflight, stats)
                inflight = submitted
                if not self.config.pipeline and inflight is not None:
                    self._finish(inflight, stats)
                    inflight = None
                if on_progress is not None and time.perf_counter() >= next_progress:
                    if inflight is not None:
                        self._finish(inflight, stats)
                        inflight = None
                    on_progress(self)
                    next_progress = time.perf_counter() + progress_every
            if inflight is not None:
                self._finish(inflight, stats)
        except BaseException:
            self.root = None  # virtual losses may be left in the tree: never reuse it
            raise
        stats.elapsed = time.perf_counter() - start
        return stats

    def _collect(self, size: int, stats: SearchStats) -> list[tuple[list[tuple[Node, int]], Node]]:
        """Descend up to ``size`` times under virtual loss; back up terminal leaves at
        once and return the leaves to evaluate (a collision ends the collection)."""
        batch: list[tuple[list[tuple[Node, int]], Node]] = []
        for _ in range(size):
            path, leaf = self._descend()
            claimed = self._claim(path, leaf, stats)
            if claimed is False:
                break
            if claimed:
                batch.append((path, leaf))
        stats.batches += 1
        return batch

    def _claim(self, path: list[tuple[Node, int]], leaf: Node, stats: SearchStats) -> bool | None:
        """What a descent found: a terminal leaf is backed up at once (``None``); a leaf
        already pending in this batch is a collision, its path's virtual loss undone
        (``False``); a new leaf is marked pending, to be evaluated (``True``)."""
        if leaf.terminal is not None:
            self._backup(path, leaf, *leaf.terminal)
            stats.visits += 1
            return None
        if leaf.pending:
            vl = self.config.virtual_loss
            for node, i in path:
                change(node, i, -vl, vl)
            stats.collisions += 1
            return False
        leaf.pending = True
        return True

    def _descend(self, first: int | None = None) -> tuple[list[tuple[Node, int]], Node]:
        """A path from the root under virtual loss, PUCT at every node (at the root, the
        child ``first`` instead when it is given) down to an unexpanded or terminal node."""
        node = self.root
        path: list[tuple[Node, int]] = []
        vl = self.config.virtual_loss
        c_puct, reduction = self.config.c_puct, self.config.fpu_reduction
        forced = self.config.forced_playouts
        utility = self.config.utility
        while node.terminal is None and node.moves is not None:
            if first is None:
                i = select(node, c_puct, reduction, forced if node is self.root else 0.0, utility)
            else:
                i, first = first, None
            change(node, i, vl, -vl)
            path.append((node, i))
            children = node.children
            child = children[i] if children else None
            if child is None:
                child = self._make_child(node, i)
            node = child
        return path, node

    def evaluate_root(self, stats: SearchStats) -> None:
        """Expand the root (one evaluation) unless it is expanded already; no noise."""
        if self.root is None:
            raise RuntimeError("Search.evaluate_root: no position; call set_position first")
        if not self.root.expanded:
            self._finish(self._submit([([], self.root)], stats), stats)

    def simulate(self, firsts: Sequence[int], stats: SearchStats) -> list[int]:
        """One batch of simulations with a chosen first move: for each root child index in
        ``firsts``, descend to that child, then by PUCT below it; evaluate the new leaves in
        one call and back everything up (a terminal leaf at once). Returns the entries of
        ``firsts`` that met a leaf already in this batch and were not simulated (try them
        again in the next batch); the first entry is always simulated. The root must be
        expanded (``evaluate_root``)."""
        batch: list[tuple[list[tuple[Node, int]], Node]] = []
        deferred: list[int] = []
        for i in firsts:
            path, leaf = self._descend(first=i)
            claimed = self._claim(path, leaf, stats)
            if claimed is False:
                deferred.append(i)
            elif claimed:
                batch.append((path, leaf))
        stats.batches += 1
        if batch:
            self._finish(self._submit(batch, stats), stats)
        return deferred

    def _make_child(self, parent: Node, i: int) -> Node:
        move = int(parent.moves[i])
        pos = parent.position.copy()
        color = pos.to_play
        captured = pos.play(move, check=False)
        board = parent.board  # the child's board follows from its parent's and the move
        if move != pos.pass_point:
            board = board.copy()
            board[move] = color
            if captured:
                board[captured] = 0
        child = Node(pos, parent, i, board)
        max_moves = self.config.max_moves if self.config.max_moves is not None else 3 * pos.n
        if pos.passes >= 2 or pos.move_count >= max_moves:
            margin = tromp_taylor_margin(pos, self.config.komi) * pos.to_play
            child.terminal = (float(np.sign(margin)), float(margin))
        if not parent.children:
            parent.children = [None] * len(parent.moves)
        parent.children[i] = child
        return child

    def history_of(self, node: Node) -> History:
        """The previous boards of ``node`` (its ancestors, then the root's history)."""
        out = []
        p = node.parent
        while p is not None and len(out) < HISTORY_DEPTH:
            out.append(p.board)
            p = p.parent
        if len(out) < HISTORY_DEPTH:
            out.extend(self.root_history[:HISTORY_DEPTH - len(out)])
        return tuple(out)

    def _submit(self, batch: list[tuple[list[tuple[Node, int]], Node]], stats: SearchStats) -> "_Batch":
        """Start evaluating ``batch``: on the worker thread when pipelining."""
        leaves = [leaf for _, leaf in batch]
        if all(leaf.legal is None for leaf in leaves):
            legal = legal_masks([leaf.position for leaf in leaves])
            for leaf, mask in zip(leaves, legal):
                leaf.legal = mask
        else:  # a root evaluated before (its search was interrupted)
            for leaf in leaves:
                if leaf.legal is None:
                    leaf.legal = leaf.position.legal_mask()
            legal = np.stack([leaf.legal for leaf in leaves])
        history_of = self.history_of
        queries = [Query(leaf.position, history_of(leaf), leaf.legal, leaf.board) for leaf in leaves]
        stats.evaluations += len(queries)
        if self.config.pipeline:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gobuddy-eval")
            evaluator = self.evaluator
            if hasattr(evaluator, "infer"):  # a StagedEvaluator: only the network on the worker
                prepared = evaluator.prepare(queries)
                return _Batch(batch, legal, self._pool.submit(evaluator.infer, prepared), prepared=prepared)
            return _Batch(batch, legal, self._pool.submit(evaluator.evaluate, queries))
        return _Batch(batch, legal, None, self.evaluator.evaluate(queries))

    def _finish(self, inflight: "_Batch", stats: SearchStats) -> None:
        """Wait for a batch's evaluations, expand its leaves and back them up."""
        if inflight.future is None:
            evaluations = inflight.result
        elif inflight.prepared is not None:
            evaluations = self.evaluator.finish(inflight.prepared, inflight.future.result())
        else:
            evaluations = inflight.future.result()
        expand([leaf for _, leaf in inflight.leaves], inflight.legal, evaluations)
        backup = self._backup
        for (path, leaf), ev in zip(inflight.leaves, evaluations):
            leaf.pending = False
            backup(path, leaf, ev.value, ev.score_lead if ev.score_lead is not None else 0.0)
        stats.visits += len(inflight.leaves)

    def _backup(self, path: list[tuple[Node, int]], leaf: Node, value: float, score: float) -> None:
        """Add one visit with ``value``/``score`` from the leaf's side to move upward."""
        vl = self.config.virtual_loss
        dn = 1.0 - vl
        square = value * value
        leaf.visits += 1
        leaf.value_sum += value
        leaf.square_sum += square
        leaf.score_sum += score
        for node, i in reversed(path):
            value, score = -value, -score
            # float(): a numpy scalar adds as float64 here, as it did in the arrays
            change(node, i, dn, float(value + vl))
            add_score(node, i, float(score))
            node.visits += 1
            node.value_sum += value
            node.square_sum += square
            node.score_sum += score

    def _add_noise(self, node: Node) -> None:
        set_prior(node, noisy_prior(node.prior_raw, self.config, self._rng))

    # ------------------------------------------------------------------ reading results
    def ranked(self, node: Node | None = None) -> list[int]:
        """Child indices of ``node`` (default root), most visited first; ties by value, then prior."""
        node = node or self.root
        if node is None or not node.expanded:
            return []
        return rank_children(node.N, node.W, node.prior_raw)

    def child_q(self, node: Node, i: int) -> float:
        """Mean value of child ``i`` for ``node``'s side to move (FPU-free: the node's q if unvisited)."""
        return float(node.W[i] / node.N[i]) if node.N[i] > 0 else node.q

    def pv(self, node: Node, i: int, max_len: int = 10) -> list[int]:
        """Principal variation starting with child ``i``: most visited replies while visited."""
        line = [int(node.moves[i])]
        child = node.children[i] if node.children else None
        while child is not None and child.expanded and len(line) < max_len and child.terminal is None:
            best = int(np.argmax(child.N))
            if child.N[best] < 1:
                break
            line.append(int(child.moves[best]))
            child = child.children[best]
        return line

    def choose(self, temperature: float = 0.0, exclude: set[int] = frozenset()) -> int:
        """A root move: the most visited (``temperature`` 0) or one drawn with probability
        proportional to ``N ** (1 / temperature)``; moves in ``exclude`` are skipped
        unless nothing else is left. Raises ``RuntimeError`` before any search."""
        root = self.root
        if root is None or not root.expanded:
            raise RuntimeError("Search.choose: the root has not been searched")
        return draw_move(root.moves, root.N, self.ranked(), temperature, exclude, self._rng)


def stop_reason(root: Any, visits: int | None, seconds: float | None, stop: StopSignal | None,
                early_stop: bool | SettledRule, elapsed: float, stats: SearchStats, pending: int) -> str:
    """Why ``Search.run`` ends now (``"visits"``, ``"time"``, ``"stop"``,
    ``"settled"``), or ``""`` to go on: ``root`` is the searched root (``visits``,
    ``moves``, ``N``; a ``SettledRule`` reads what it needs), ``elapsed`` the seconds
    since the start, ``stats`` the run's so far and ``pending`` the leaves in flight."""
    if visits is not None and root.visits + pending >= visits:
        return "visits"
    if seconds is not None and elapsed >= seconds:
        return "time"
    if stop is not None and stats.batches > 0 and stop.is_set():
        return "stop"
    if early_stop and len(root.moves) > 0:
        remaining = math.inf
        if visits is not None:
            remaining = visits - root.visits - pending
        if seconds is not None and stats.visits > 0 and elapsed > 0:
            remaining = min(remaining, stats.visits / elapsed * (seconds - elapsed))
        if len(root.moves) == 1:
            return "settled"
        if callable(early_stop):
            return "settled" if early_stop(root, remaining + pending) else ""
        if remaining < math.inf:
            top2 = np.partition(root.N, -2)[-2:]
            if top2[1] - top2[0] > remaining:
                return "settled"
    return ""


def noisy_prior(prior_raw: np.ndarray, config: SearchConfig, rng: np.random.Generator) -> np.ndarray:
    """The root's prior with Dirichlet noise (``config.dirichlet_alpha``, mixed in at
    ``config.noise_fraction``), drawn from ``rng``."""
    noise = rng.dirichlet([config.dirichlet_alpha] * len(prior_raw))
    return (1 - config.noise_fraction) * prior_raw + config.noise_fraction * noise


def rank_children(N: np.ndarray, W: np.ndarray, prior: np.ndarray) -> list[int]:
    """Child indices, most visited first; ties by mean value (an unvisited child counts
    -2), then by ``prior``."""
    q = np.where(N > 0, W / np.maximum(N, 1e-9), -2.0)
    return sorted(range(len(N)), key=lambda i: (-N[i], -q[i], -prior[i]))


def draw_move(moves: np.ndarray, N: np.ndarray, ranked: list[int], temperature: float, exclude: set[int],
              rng: np.random.Generator) -> int:
    """The move of ``Search.choose``: the first of ``ranked`` (child indices) not in
    ``exclude`` (all of them when every one is), or at a ``temperature`` above 0 one of
    those drawn from ``rng`` with probability proportional to ``N ** (1 / temperature)``."""
    allowed = [i for i in ranked if int(moves[i]) not in exclude] or ranked
    if temperature <= 0 or len(allowed) == 1:
        return int(moves[allowed[0]])
    n = N[allowed]
    if n.sum() <= 0:
        return int(moves[allowed[0]])
    weights = n ** (1.0 / temperature)
    pick = rng.choice(len(allowed), p=weights / weights.sum())
    return int(moves[allowed[pick]])
