"""The self-play search compiled: ``gobuddy/ai/native/search.c`` behind the part of the
``gobuddy.ai.mcts.Search`` interface that self-play uses (``training.selfplay``).

Self-play spends about 40% of a move in Python (the rules, the tree, the input planes)
beside the network. The C file does that work and leaves the network to onnxruntime:
per batch, one call collects the leaves and writes their planes, onnxruntime runs the
model, numpy takes the masked softmax (the Python evaluator's float operations), and
one call expands the leaves and backs them up. The arithmetic is ``mcts``'s and
``search_node``'s operation for operation (float64, the same order, numpy's pairwise
sums), and the random draws (the root's Dirichlet noise, the move drawn at a
temperature) are made here with the same generator in the same order, so that for the
same model and seed ``NativeSearch`` makes the same trees and ``training.selfplay``
plays the same games as with ``Search`` (``tests/ai/test_native_search.py``).

The library is built on first use with the system's C compiler (``gcc``, or ``cc``)
into ``build/native/`` of the repository (``--build-dir`` of the callers), named by a
digest of the source and flags, so an edited source is built again; a failed build
raises ``NativeBuildError`` with the compiler's output.

Scope and what is not checked: games from the empty board, played one move at a time
(``set_position`` must be given the position after exactly one move, else
``ValueError``; each step is checked against the engine's own board); a visit budget
only (``run(visits=...)``: no time limit, stop signal, early stop or pipeline); an
``OnnxEvaluator`` without symmetries; PUCT only (no Gumbel root search).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from gobuddy.ai import contract
from gobuddy.ai.features import NUM_PLANES, History
from gobuddy.ai.mcts import SearchConfig, SearchStats, draw_move, noisy_prior, rank_children
from gobuddy.go.position import Position

SOURCE = Path(__file__).resolve().with_name("native") / "search.c"
BUILD_DIR = Path(__file__).resolve().parents[2] / "build" / "native"
# -ffp-contract=off: no fused multiply-adds, so every float operation rounds as numpy's do
CFLAGS = ("-O2", "-std=c11", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math")


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
    p, i, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "gs_new": (p, [i, d, i, d, d, i, d]),
        "gs_free": (None, [p]),
        "gs_reset": (i, [p]),
        "gs_play": (i, [p, i]),
        "gs_collect": (i, [p, i, p]),
        "gs_batch_legal": (None, [p, p]),
        "gs_finish": (i, [p, p, p, p]),
        "gs_root_visits": (ctypes.c_long, [p]),
        "gs_root_value_sum": (d, [p]),
        "gs_root_net_value": (d, [p]),
        "gs_root_children": (i, [p]),
        "gs_root_stats": (None, [p] * 7),
        "gs_set_root_prior": (None, [p, p]),
        "gs_root_planes": (None, [p, p, p]),
        "gs_game_state": (i, [p, p]),
        "gs_game_ko": (i, [p]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


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


@dataclass(frozen=True)
class NativeRoot:
    """The root after a search, as ``Search.root`` shows it: ``moves`` (flat, pass =
    n), per child ``N``, ``W``, ``S``, ``prior`` (selection's, noise included) and
    ``prior_raw``; ``visits``; ``q`` (mean value for the side to move, the network's
    value before any visit); ``position`` (a copy of the game position)."""

    position: Position
    moves: np.ndarray
    N: np.ndarray
    W: np.ndarray
    S: np.ndarray
    prior: np.ndarray
    prior_raw: np.ndarray
    visits: int
    q: float

    @property
    def expanded(self) -> bool:
        return len(self.moves) > 0


class NativeSearch:
    """A self-play search tree in C over positions judged by ``evaluator`` (see the
    module docstring). ``config`` may be replaced between moves (``noise``)."""

    def __init__(self, evaluator: Any, config: SearchConfig, size: int, build_dir: Path = BUILD_DIR) -> None:
        if getattr(evaluator, "symmetry", "none") != "none" or not hasattr(evaluator, "run_planes"):
            raise ValueError("NativeSearch needs an OnnxEvaluator without symmetries")
        if size not in evaluator.board_sizes:
            raise ValueError(f"model {evaluator.name!r} supports board sizes {evaluator.board_sizes}, not {size}x{size}")
        self.evaluator = evaluator
        self.config = config
        self.size, self.n = size, size * size
        max_moves = config.max_moves if config.max_moves is not None else 3 * self.n
        self._lib = load(build_dir)
        self._e = self._lib.gs_new(size, config.komi, max_moves, config.c_puct, config.fpu_reduction,
                                   config.batch_size, config.virtual_loss)
        if not self._e:
            raise MemoryError("gs_new failed")
        self._rng = np.random.default_rng(config.seed)
        self._position: Position | None = None
        self._root: NativeRoot | None = None
        self._planes = np.zeros((config.batch_size, NUM_PLANES, size, size), dtype=np.float32)
        self._legal = np.zeros((config.batch_size, self.n + 1), dtype=np.int8)
        self._planes_ptr = self._planes.ctypes.data  # the buffers live as long as the search
        self._legal_ptr = self._legal.ctypes.data

    def __del__(self) -> None:
        e, self._e = getattr(self, "_e", None), None
        if e:
            self._lib.gs_free(e)

    # ------------------------------------------------------------------ the root
    def set_position(self, position: Position, history: History = ()) -> bool:
        """Make ``position`` the root: the empty board (a new game), or the game's
        position after one more move (the subtree of that move is kept when the search
        made it). Returns whether a subtree was kept. ``history`` is not read: the
        engine keeps the game's boards itself."""
        del history
        known = self._position
        if known is not None and position.move_count == known.move_count + 1 and position.last_move is not None:
            kept = self._check(self._lib.gs_play(self._e, int(position.last_move)))
        elif position.move_count == 0 and not any(position.board) and position.to_play == 1:
            self._check(self._lib.gs_reset(self._e))
            kept = False
        elif known is not None and position.move_count == known.move_count:
            kept = True  # the same position again: the tree stands
        else:
            raise ValueError("NativeSearch follows a game from the empty board one move at a time")
        stones = np.zeros(self.n, dtype=np.int8)
        to_play = self._lib.gs_game_state(self._e, stones.ctypes.data)
        if stones.tolist() != position.board or to_play != position.to_play:
            raise ValueError(f"the native game and the position given differ at move {position.move_count}")
        self._position = position.copy()
        self._root = None
        if self.config.noise and self._lib.gs_root_children(self._e) >= 0:
            self._add_noise()
        return bool(kept)

    def _check(self, status: int) -> int:
        if status < 0:
            raise MemoryError("the native search ran out of memory")
        return status

    @property
    def root(self) -> NativeRoot:
        """The root's statistics now (read from the engine once per search)."""
        if self._position is None:
            raise RuntimeError("NativeSearch: no position; call set_position first")
        if self._root is None:
            m = max(0, self._lib.gs_root_children(self._e))
            moves = np.zeros(m, dtype=np.int32)
            stats = [np.zeros(m) for _ in range(5)]
            if m:
                self._lib.gs_root_stats(self._e, moves.ctypes.data, *(a.ctypes.data for a in stats))
            visits = int(self._lib.gs_root_visits(self._e))
            q = (self._lib.gs_root_value_sum(self._e) / visits) if visits else self._lib.gs_root_net_value(self._e)
            self._root = NativeRoot(self._position, moves.astype(np.int64), *stats, visits=visits, q=float(q))
        return self._root

    def _add_noise(self) -> None:
        self._root = None
        prior = np.ascontiguousarray(noisy_prior(self.root.prior_raw, self.config, self._rng))
        self._lib.gs_set_root_prior(self._e, prior.ctypes.data)
        self._root = None

    # ------------------------------------------------------------------ searching
    def run(self, visits: int | None = None, seconds: float | None = None, stop: Any = None,
            early_stop: bool = False) -> SearchStats:
        """Search until the root has ``visits`` visits (reused ones count)."""
        if visits is None or seconds is not None or stop is not None or early_stop:
            raise ValueError("NativeSearch.run takes a visit budget only")
        if self._position is None:
            raise RuntimeError("NativeSearch.run: no position; call set_position first")
        stats = SearchStats()
        self._root = None
        if self._lib.gs_root_children(self._e) < 0:
            self._batch(1, stats)
            if self.config.noise:
                self._add_noise()
        batch = self.config.batch_size
        while (done := self._lib.gs_root_visits(self._e)) < visits:
            self._batch(max(1, min(batch, visits - done)), stats)
        stats.visits = int(self._lib.gs_root_visits(self._e))
        stats.stopped_by = "visits"
        self._root = None
        return stats

    def _batch(self, budget: int, stats: SearchStats) -> None:
        k = self._check(self._lib.gs_collect(self._e, budget, self._planes_ptr))
        stats.batches += 1
        if k == 0:
            return
        self._lib.gs_batch_legal(self._e, self._legal_ptr)
        out = self.evaluator.run_planes(self._planes[:k])
        policy = _softmax(out[contract.POLICY], self._legal[:k].view(np.bool_))
        values = np.ascontiguousarray(out[contract.VALUE], dtype=np.float32)  # [k, 1]: k floats
        scores = out.get(contract.SCORE_LEAD)
        scores = np.ascontiguousarray(scores, dtype=np.float32) if scores is not None else None
        self._check(self._lib.gs_finish(self._e, policy.ctypes.data, values.ctypes.data,
                                        scores.ctypes.data if scores is not None else None))
        stats.evaluations += k

    # ------------------------------------------------------------------ reading results
    def ranked(self) -> list[int]:
        """Child indices of the root, most visited first; ties by value, then prior (``Search.ranked``)."""
        root = self.root
        return rank_children(root.N, root.W, root.prior_raw) if root.expanded else []

    def choose(self, temperature: float = 0.0, exclude: set[int] = frozenset()) -> int:
        """A root move as ``Search.choose`` draws it (the same generator, the same draws)."""
        root = self.root
        if not root.expanded:
            raise RuntimeError("NativeSearch.choose: the root has not been searched")
        return draw_move(root.moves, root.N, self.ranked(), temperature, exclude, self._rng)

    def root_planes(self) -> tuple[np.ndarray, np.ndarray]:
        """The input planes and legal mask of the game position (for tests)."""
        planes = np.zeros((NUM_PLANES, self.size, self.size), dtype=np.float32)
        legal = np.zeros(self.n + 1, dtype=np.int8)
        self._lib.gs_root_planes(self._e, planes.ctypes.data, legal.ctypes.data)
        return planes, legal.view(np.bool_)

    def game_ko(self) -> int | None:
        """The engine's simple-ko point of the game position (for tests)."""
        ko = self._lib.gs_game_ko(self._e)
        return None if ko < 0 else int(ko)


__all__ = ["BUILD_DIR", "NativeBuildError", "NativeRoot", "NativeSearch", "build", "library_path", "load"]
