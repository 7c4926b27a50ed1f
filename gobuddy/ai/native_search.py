"""The PUCT search compiled: ``gobuddy/ai/native/search.c`` behind ``gobuddy.ai.mcts.Search``'s
interface, for self-play (``training.selfplay``) and for play (``gobuddy.ai.search_engines``).

The Python search spends about 40% of a move in Python (the rules, the tree, the
input planes) beside the network. The C file does that work and leaves the network to
onnxruntime: per batch, one call collects the leaves and writes their planes,
onnxruntime runs the model, numpy takes the masked softmax (the Python evaluator's
float operations), and one call expands the leaves and backs them up. The arithmetic
is ``mcts``'s and ``search_node``'s operation for operation (float64, the same order,
numpy's pairwise sums), and the random draws (the root's Dirichlet noise, the move
drawn at a temperature) are made here with the same generator in the same order, so
that for the same model, position, seed and ``SearchConfig`` (the pipeline included:
with it the network runs on a worker thread while the next batch is collected, in
``Search``'s order) ``NativeSearch`` makes the same trees as ``Search`` and
``training.selfplay`` plays the same games (``tests/ai/test_native_search.py``,
``tests/ai/test_native_play_search.py``).

What it takes: any position (``set_position``: the stones, side to move, ko point,
passes, move count, the ko rule and the positions seen in the game come from the
``Position``, the boards before it from ``history``; the subtree of the same position
up to 3 moves below the old root is kept, as ``Search`` does); limits by visits,
seconds, a stop signal and ``early_stop`` (``mcts.stop_reason``, shared with
``Search``); progress callbacks between batches; results as ``Search`` gives them
(``root``, ``ranked``, ``child_q``, ``pv``, ``choose``), so ``gobuddy.ai.analysis``,
``gobuddy.ai.lcb`` and the player read either. One engine per board size, made on
first use; ``SearchConfig.komi`` scores terminal positions.

The library is built on first use with the system's C compiler (``gcc``, or ``cc``)
into ``build/native/`` of the repository (``--build-dir`` of the callers), named by a
digest of the source and flags, so an edited source is built again; a failed build
raises ``NativeBuildError`` with the compiler's output.

Not done here: the Gumbel root search (``gobuddy.ai.gumbel`` drives ``Search`` only); evaluators
other than ONNX models without symmetries (``supports``). Not checked: that a
``Position`` is one the rules can reach (its fields are taken as they are).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from gobuddy.ai import contract
from gobuddy.ai.features import HISTORY_DEPTH, NUM_PLANES, History
from gobuddy.ai.mcts import SearchConfig, SearchStats, SettledRule, StopSignal, draw_move, noisy_prior, rank_children, \
    stop_reason
from gobuddy.go.position import Position, zobrist_table

SOURCE = Path(__file__).resolve().with_name("native") / "search.c"
BUILD_DIR = Path(__file__).resolve().parents[2] / "build" / "native"
# -ffp-contract=off: no fused multiply-adds, so every float operation rounds as numpy's do
CFLAGS = ("-O2", "-std=c11", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math")
PV_MAX = 64  # the longest principal variation ``pv`` gives


class NativeBuildError(RuntimeError):
    """The C search could not be built (no compiler, or it failed: its output is in the message)."""


def _compiler() -> str:
    for name in ("gcc", "cc"):
        found = shutil.which(name)
        if found:
            return found
    raise NativeBuildError("no C compiler (gcc or cc) on PATH: install gcc (make deps does)")


def library_path(build_dir: Path = BUILD_DIR) -> Path:
    """Where the library of the current source and flags lies once built."""
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:16]
    return build_dir / f"gobuddy_search-{digest}.so"


def build(build_dir: Path = BUILD_DIR) -> Path:
    """Build the library unless it is there (atomically: concurrent builders are safe)."""
    target = library_path(build_dir)
    if target.is_file():
        return target
    build_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".gobuddy_search-", suffix=".so", dir=build_dir)
    os.close(fd)
    try:
        done = subprocess.run([_compiler(), *CFLAGS, "-o", tmp, str(SOURCE), "-lm"], capture_output=True, text=True)
        if done.returncode != 0:
            raise NativeBuildError(f"building {SOURCE.name} failed:\n{done.stderr.strip()}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


@lru_cache(maxsize=None)
def load(build_dir: Path = BUILD_DIR) -> ctypes.CDLL:
    """The built library with its functions' signatures (built first when needed)."""
    lib = ctypes.CDLL(str(build(build_dir)))
    # buffers go in as addresses (``ndarray.ctypes.data``): cheaper per call than typed pointers
    p, i, d, long = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_long
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "gs_new": (p, [i, d, i, d, d, i, d, p, p]),
        "gs_free": (None, [p]),
        "gs_set_root": (i, [p, p, i, i, i, i, i, i, p, long, p, i]),
        "gs_clear": (None, [p]),
        "gs_set_forced": (None, [p, d]),
        "gs_set_utility": (None, [p, d, d]),
        "gs_collect": (i, [p, i, i, p]),
        "gs_batch_legal": (None, [p, i, p]),
        "gs_finish": (i, [p, i, p, p, p, p]),
        "gs_root_visits": (long, [p]),
        "gs_root_children": (i, [p]),
        "gs_root_scalars": (None, [p, p]),
        "gs_root_stats": (None, [p] * 7),
        "gs_root_moments": (None, [p] * 4),
        "gs_root_ownership": (i, [p, p]),
        "gs_pv": (i, [p, i, i, p]),
        "gs_set_root_prior": (None, [p, p]),
        "gs_root_planes": (None, [p, p, p]),
        "gs_game_state": (i, [p, p]),
        "gs_game_ko": (i, [p]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def _unwrapped(evaluator: Any) -> Any:
    """The evaluator inside wrappers that only count (``engine_worker``'s
    ``CountingEvaluator``: ``inner``, and ``counted(n)`` told of every ``n`` positions
    the search evaluates past it)."""
    while hasattr(evaluator, "inner"):
        evaluator = evaluator.inner
    return evaluator


def _parts(evaluator: Any) -> list[Any]:
    """The evaluators behind ``evaluator``: one per size of a ``SizedEvaluator``, else itself."""
    evaluator = _unwrapped(evaluator)
    by_size = getattr(evaluator, "by_size", None)
    return list(by_size.values()) if isinstance(by_size, dict) else [evaluator]


def supports(evaluator: Any) -> bool:
    """Whether ``NativeSearch`` can run ``evaluator``: ONNX models (``OnnxEvaluator``,
    alone or by size in a ``SizedEvaluator``, maybe inside a counting wrapper, whose
    ``counted(n)`` is then called with the positions evaluated) without symmetries."""
    return all(hasattr(part, "run_planes") and getattr(part, "symmetry", "none") == "none"
               for part in _parts(evaluator))


def _softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``evaluator.masked_softmax`` in fewer numpy calls, the same values bit for bit
    (the same float64 operations in the same order); rows need not be checked here (the
    engine's legal moves always include pass)."""
    x = logits.astype(np.float64)
    x[~legal] = -np.inf
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


class ChildStats(NamedTuple):
    """A root child's own real visits, summed values and summed squared values, for the
    child's side to move (what ``gobuddy.ai.lcb.moments`` reads of a ``Node``)."""

    visits: float
    value_sum: float
    square_sum: float


@dataclass(frozen=True)
class NativeRoot:
    """The root after a search, as ``Search.root`` shows it: ``moves`` (flat, pass =
    n), per child ``N``, ``W``, ``S``, ``prior`` (selection's, noise included) and
    ``prior_raw``; the root's own ``visits``, ``value_sum``, ``square_sum``,
    ``score_sum``, ``net_value``, ``net_score`` (``None`` without a score head) and
    ``ownership`` (the network's, ``None`` without that head); ``position`` (a copy of
    the searched position); per child its own statistics (``children``)."""

    position: Position
    moves: np.ndarray
    N: np.ndarray
    W: np.ndarray
    S: np.ndarray
    prior: np.ndarray
    prior_raw: np.ndarray
    child_visits: np.ndarray
    child_value_sum: np.ndarray
    child_square_sum: np.ndarray
    visits: int
    value_sum: float
    square_sum: float
    score_sum: float
    net_value: float
    net_score: float | None
    ownership: np.ndarray | None

    @property
    def expanded(self) -> bool:
        return len(self.moves) > 0

    @property
    def q(self) -> float:
        """Mean value for the side to move (the network's value before any visit)."""
        return self.value_sum / self.visits if self.visits else self.net_value

    @property
    def children(self) -> list[ChildStats | None]:
        """Per child its ``ChildStats`` (``None`` where never visited), as ``Node.children`` reads."""
        return [ChildStats(n, w, s) if n > 0 else None
                for n, w, s in zip(self.child_visits.tolist(), self.child_value_sum.tolist(),
                                   self.child_square_sum.tolist())]


class _Engine:
    """One C engine (one board size) with the buffers of its two batch slots (one under
    evaluation while the next is collected) and the network of its size."""

    def __init__(self, lib: ctypes.CDLL, network: Any, config: SearchConfig, size: int) -> None:
        self.lib, self.network, self.size, self.n = lib, network, size, size * size
        self.has_score = bool(getattr(network, "has_score", False))
        self.has_ownership = bool(getattr(network, "has_ownership", False))
        max_moves = config.max_moves if config.max_moves is not None else 3 * self.n
        black, white = (np.array(keys, dtype=np.uint64) for keys in zobrist_table(size))
        self.handle = lib.gs_new(size, config.komi, max_moves, config.c_puct, config.fpu_reduction,
                                 config.batch_size, config.virtual_loss, black.ctypes.data, white.ctypes.data)
        if not self.handle:
            raise MemoryError("gs_new failed")
        self.planes = np.zeros((2, config.batch_size, NUM_PLANES, size, size), dtype=np.float32)
        self.legal = np.zeros((2, config.batch_size, self.n + 1), dtype=np.int8)
        # the buffers live as long as the engine
        self.planes_ptr = [self.planes[slot].ctypes.data for slot in (0, 1)]
        self.legal_ptr = [self.legal[slot].ctypes.data for slot in (0, 1)]

    def __del__(self) -> None:
        handle, self.handle = getattr(self, "handle", None), None
        if handle:
            self.lib.gs_free(handle)


@dataclass
class _RootVisits:
    """The root's visits alone: all that ``mcts.stop_reason`` reads without early stop."""

    visits: int


@dataclass
class _Flight:
    """A batch given to the network: its slot, its leaves, and the future of the
    network's outputs (pipelined) or the outputs themselves."""

    slot: int
    count: int
    future: Future | None
    result: dict[str, np.ndarray] | None = None


def _check(status: int) -> int:
    if status < 0:
        raise MemoryError("the native search ran out of memory")
    return status


class NativeSearch:
    """A search tree in C over positions judged by ``evaluator`` (see the module
    docstring). ``config`` may be replaced between moves (``noise``); ``size``, when
    given, makes (and checks) that size's engine at once."""

    def __init__(self, evaluator: Any, config: SearchConfig = SearchConfig(), size: int | None = None,
                 build_dir: Path = BUILD_DIR) -> None:
        if not supports(evaluator):
            raise ValueError("NativeSearch needs ONNX models without symmetries")
        self.evaluator = evaluator
        self.config = config
        counted = getattr(evaluator, "counted", None)  # a counting wrapper's hook (``supports``)
        self._counted: Callable[[int], None] | None = counted if callable(counted) else None
        self._lib = load(build_dir)
        self._rng = np.random.default_rng(config.seed)
        self._engines: dict[int, _Engine] = {}
        self._engine: _Engine | None = None
        self._position: Position | None = None
        self._root: NativeRoot | None = None
        self._pool: ThreadPoolExecutor | None = None
        if size is not None:
            self._engine_for(size)

    def _engine_for(self, size: int) -> _Engine:
        engine = self._engines.get(size)
        if engine is None:
            inner = _unwrapped(self.evaluator)
            network = inner.part(size) if hasattr(inner, "part") else inner
            if size not in network.board_sizes:
                raise ValueError(f"model {network.name!r} supports board sizes {network.board_sizes}, "
                                 f"not {size}x{size}")
            engine = self._engines[size] = _Engine(self._lib, network, self.config, size)
        return engine

    # ------------------------------------------------------------------ the root
    def set_position(self, position: Position, history: History = ()) -> bool:
        """Make ``position`` (with its previous boards, most recent first) the root.

        Keeps the subtree of the same position up to 3 moves below the current root
        (``Search.set_position``) and returns whether it did; ``ValueError`` for a size
        the model does not play. ``position`` is copied, never kept."""
        engine = self._engine_for(position.size)
        n = engine.n
        stones = np.array(position.board, dtype=np.int8)
        seen = np.fromiter(position.seen, dtype=np.uint64, count=len(position.seen))
        boards = history[:HISTORY_DEPTH]
        past = np.zeros((max(1, len(boards)), n), dtype=np.int8)
        for j, board in enumerate(boards):
            past[j] = np.asarray(board, dtype=np.int8).reshape(n)
        kept = _check(engine.lib.gs_set_root(
            engine.handle, stones.ctypes.data, position.to_play, -1 if position.ko is None else position.ko,
            -1 if position.last_move is None else position.last_move, position.passes, position.move_count,
            int(position.superko), seen.ctypes.data, len(seen), past.ctypes.data, len(boards)))
        self._engine = engine
        self._position = position.copy()
        self._root = None
        if kept and self.config.noise and engine.lib.gs_root_children(engine.handle) >= 0:
            self._add_noise()
        return bool(kept)

    def clear(self) -> None:
        """Forget the tree (``root`` is ``None`` until the next ``set_position``)."""
        for engine in self._engines.values():
            engine.lib.gs_clear(engine.handle)
        self._engine = None
        self._position = None
        self._root = None

    @property
    def root(self) -> NativeRoot | None:
        """The root's statistics now (``None`` before ``set_position``)."""
        if self._position is None or self._engine is None:
            return None
        if self._root is None:
            self._root = self._read_root(self._engine)
        return self._root

    def _read_root(self, engine: _Engine) -> NativeRoot:
        lib, handle = engine.lib, engine.handle
        m = max(0, lib.gs_root_children(handle))
        moves = np.zeros(m, dtype=np.int32)
        stats = [np.zeros(m) for _ in range(5)]
        moments = [np.zeros(m) for _ in range(3)]
        if m:
            lib.gs_root_stats(handle, moves.ctypes.data, *(a.ctypes.data for a in stats))
            lib.gs_root_moments(handle, *(a.ctypes.data for a in moments))
        scalars = np.zeros(6)
        lib.gs_root_scalars(handle, scalars.ctypes.data)
        visits, value_sum, square_sum, score_sum, net_value, net_score = scalars.tolist()
        ownership = None
        if engine.has_ownership:
            own = np.zeros(engine.n, dtype=np.float32)
            if lib.gs_root_ownership(handle, own.ctypes.data):
                ownership = own
        return NativeRoot(self._position, moves.astype(np.int64), *stats, *moments, visits=int(visits),
                          value_sum=value_sum, square_sum=square_sum, score_sum=score_sum, net_value=net_value,
                          net_score=net_score if engine.has_score else None, ownership=ownership)

    def _add_noise(self) -> None:
        self._root = None
        prior = np.ascontiguousarray(noisy_prior(self.root.prior_raw, self.config, self._rng))
        self._engine.lib.gs_set_root_prior(self._engine.handle, prior.ctypes.data)
        self._root = None

    # ------------------------------------------------------------------ searching
    def run(self, visits: int | None = None, seconds: float | None = None, stop: StopSignal | None = None,
            early_stop: bool | SettledRule = False, on_progress: Callable[["NativeSearch"], None] | None = None,
            progress_every: float = 1.0) -> SearchStats:
        """``Search.run``, step for step: search until the root has ``visits`` visits
        (reused ones count), ``seconds`` have passed, ``stop`` is set (checked after the
        first batch) or, with ``early_stop``, the move is settled; ``on_progress(self)``
        every ``progress_every`` seconds between batches, none in flight. With
        ``config.pipeline`` the network runs on a worker thread while the next batch is
        collected. At least one limit or a ``stop`` signal is required."""
        engine = self._engine
        if self._position is None or engine is None:
            raise RuntimeError("NativeSearch.run: no position; call set_position first")
        if visits is None and seconds is None and stop is None:
            raise ValueError("NativeSearch.run needs visits, seconds or a stop event")
        lib, handle = engine.lib, engine.handle
        lib.gs_set_forced(handle, self.config.forced_playouts)  # the config may change between moves
        factor, scale = self.config.utility or (0.0, 1.0)
        lib.gs_set_utility(handle, factor, scale)
        stats = SearchStats()
        start = time.perf_counter()
        next_progress = start + progress_every
        before = int(lib.gs_root_visits(handle))
        pipeline, batch_size = self.config.pipeline, self.config.batch_size
        inflight: _Flight | None = None
        try:
            if lib.gs_root_children(handle) < 0:
                self._finish(engine, self._submit(engine, 0, self._collect(engine, 0, 1), stats, False))
                if self.config.noise:
                    self._add_noise()
            while True:
                pending = inflight.count if inflight else 0
                self._root = None
                # the whole root only where early stop reads its children; else its visits
                root = self.root if early_stop else _RootVisits(int(lib.gs_root_visits(handle)))
                stats.visits = root.visits - before
                reason = stop_reason(root, visits, seconds, stop, early_stop, time.perf_counter() - start, stats,
                                     pending)
                if reason:
                    stats.stopped_by = reason
                    break
                budget = batch_size
                if visits is not None:
                    budget = max(1, min(budget, visits - root.visits - pending))
                slot = 1 - inflight.slot if inflight else 0
                count = self._collect(engine, slot, budget)
                stats.batches += 1
                submitted = self._submit(engine, slot, count, stats, pipeline) if count else None
                if inflight is not None:
                    self._finish(engine, inflight)
                inflight = submitted
                if not pipeline and inflight is not None:
                    self._finish(engine, inflight)
                    inflight = None
                if on_progress is not None and time.perf_counter() >= next_progress:
                    if inflight is not None:
                        self._finish(engine, inflight)
                        inflight = None
                    self._root = None
                    on_progress(self)
                    next_progress = time.perf_counter() + progress_every
            if inflight is not None:
                self._finish(engine, inflight)
        except BaseException:
            self.clear()  # virtual losses may be left in the tree: never reuse it
            raise
        self._root = None
        stats.visits = int(lib.gs_root_visits(handle)) - before
        stats.elapsed = time.perf_counter() - start
        return stats

    def _collect(self, engine: _Engine, slot: int, budget: int) -> int:
        """Collect up to ``budget`` leaves into batch ``slot``; how many."""
        return _check(engine.lib.gs_collect(engine.handle, slot, budget, engine.planes_ptr[slot]))

    def _submit(self, engine: _Engine, slot: int, count: int, stats: SearchStats, pipeline: bool) -> "_Flight":
        """Start the network on the ``count`` leaves of ``slot``: on the worker thread
        when pipelining, else at once."""
        stats.evaluations += count
        planes = engine.planes[slot, :count]
        if not pipeline:
            return _Flight(slot, count, None, engine.network.run_planes(planes))
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gobuddy-native-eval")
        return _Flight(slot, count, self._pool.submit(engine.network.run_planes, planes))

    def _finish(self, engine: _Engine, flight: "_Flight") -> None:
        """Wait for a batch's network outputs, expand its leaves and back them up."""
        out = flight.result if flight.future is None else flight.future.result()
        lib, handle, slot, k = engine.lib, engine.handle, flight.slot, flight.count
        if k == 0:
            return
        lib.gs_batch_legal(handle, slot, engine.legal_ptr[slot])
        policy = _softmax(out[contract.POLICY], engine.legal[slot, :k].view(np.bool_))
        values = np.ascontiguousarray(out[contract.VALUE], dtype=np.float32)  # [k, 1]: k floats
        scores = out.get(contract.SCORE_LEAD) if engine.has_score else None
        scores = np.ascontiguousarray(scores, dtype=np.float32) if scores is not None else None
        own = out.get(contract.OWNERSHIP) if engine.has_ownership else None
        own = np.ascontiguousarray(own, dtype=np.float32) if own is not None else None
        _check(lib.gs_finish(handle, slot, policy.ctypes.data, values.ctypes.data,
                             scores.ctypes.data if scores is not None else None,
                             own.ctypes.data if own is not None else None))
        if self._counted is not None:
            self._counted(k)

    # ------------------------------------------------------------------ reading results
    def ranked(self, node: NativeRoot | None = None) -> list[int]:
        """Child indices of the root, most visited first; ties by value, then prior
        (``Search.ranked``). ``node`` may only be the root."""
        root = self.root
        if root is None or not root.expanded:
            return []
        return rank_children(root.N, root.W, root.prior_raw)

    def child_q(self, node: NativeRoot, i: int) -> float:
        """Mean value of child ``i`` for ``node``'s side to move (the node's ``q`` if unvisited)."""
        return float(node.W[i] / node.N[i]) if node.N[i] > 0 else node.q

    def pv(self, node: NativeRoot, i: int, max_len: int = 10) -> list[int]:
        """Principal variation from root child ``i`` (``Search.pv``; ``node`` is the root)."""
        out = np.zeros(PV_MAX, dtype=np.int32)
        length = self._engine.lib.gs_pv(self._engine.handle, i, max(1, min(max_len, PV_MAX)), out.ctypes.data)
        return out[:length].tolist()

    def choose(self, temperature: float = 0.0, exclude: set[int] = frozenset()) -> int:
        """A root move as ``Search.choose`` draws it (the same generator, the same draws)."""
        root = self.root
        if root is None or not root.expanded:
            raise RuntimeError("NativeSearch.choose: the root has not been searched")
        return draw_move(root.moves, root.N, self.ranked(), temperature, exclude, self._rng)

    def root_planes(self) -> tuple[np.ndarray, np.ndarray]:
        """The input planes and legal mask of the root position (for tests)."""
        engine = self._engine
        planes = np.zeros((NUM_PLANES, engine.size, engine.size), dtype=np.float32)
        legal = np.zeros(engine.n + 1, dtype=np.int8)
        engine.lib.gs_root_planes(engine.handle, planes.ctypes.data, legal.ctypes.data)
        return planes, legal.view(np.bool_)

    def game_ko(self) -> int | None:
        """The engine's simple-ko point of the root position (for tests)."""
        ko = self._engine.lib.gs_game_ko(self._engine.handle)
        return None if ko < 0 else int(ko)


__all__ = ["BUILD_DIR", "ChildStats", "NativeBuildError", "NativeRoot", "NativeSearch", "build", "library_path",
           "load", "supports"]
