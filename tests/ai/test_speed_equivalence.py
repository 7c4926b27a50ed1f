"""The fast rules and search code gives exactly the answers of the straightforward code.

1. Legality: ``Position.legal_mask``/``legal_moves``/``legal_bits`` (bitsets, whole
   board at once) and ``illegal_reason`` against the rules applied directly: put the
   stone on a copy of the board, remove opponent chains left without liberties (flood
   fill), refuse suicide, recompute the Zobrist hash from scratch and look it up in the
   superko history. Every position of seeded random games on 4x4 to 9x9, superko on
   and off, both colours, with setup edits (``remove``) mixed in. Liberty counts and
   chains are checked by flood fill too.
2. ``copy`` is independent: playing on the copy leaves the original as it was.
3. Search and features: digests of whole search trees (every expanded node's moves,
   visits, values, score sums) and of feature planes, recorded with the code as it
   was before the speed work (bitset liberties, shared chains, the leaner ``_select``).
   A digest that changes means the search now behaves differently: if that was meant,
   record the new digest with ``digest_*`` below and say so in the change.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation, masked_softmax
from gobuddy.ai.features import board_array, encode_batch, push_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.go.coords import BLACK, EMPTY, WHITE
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position, _zobrist_points, neighbours, zobrist_table


# ---------------------------------------------------------------------- the reference rules
def flood(board: list[int], start: int, nbrs) -> tuple[set[int], set[int]]:
    """(stones, liberties) of the chain at ``start``, by flood fill."""
    color = board[start]
    stones, libs, todo = {start}, set(), [start]
    while todo:
        p = todo.pop()
        for q in nbrs[p]:
            if board[q] == EMPTY:
                libs.add(q)
            elif board[q] == color and q not in stones:
                stones.add(q)
                todo.append(q)
    return stones, libs


def reference_reason(pos: Position, point: int, color: int) -> str | None:
    """Why ``color`` may not play ``point``, straight from the rules (see module doc)."""
    nbrs = neighbours(pos.size)
    board = list(pos.board)
    if board[point] != EMPTY:
        return "occupied"
    if point == pos.ko and color == pos.to_play:
        return "ko"
    board[point] = color
    for q in nbrs[point]:
        if board[q] == -color:
            stones, libs = flood(board, q, nbrs)
            if not libs:
                for s in stones:
                    board[s] = EMPTY
    if not flood(board, point, nbrs)[1]:
        return "suicide"
    if pos.superko:
        zb, zw = zobrist_table(pos.size)
        h = 0
        for p, v in enumerate(board):
            if v == BLACK:
                h ^= zb[p]
            elif v == WHITE:
                h ^= zw[p]
        if h in pos.seen:
            return "superko"
    return None


def check_position(pos: Position, seen_reasons: dict[str, int]) -> None:
    """Every fast answer about ``pos`` equals the reference (both colours)."""
    nbrs = neighbours(pos.size)
    for color in (pos.to_play, -pos.to_play):
        reasons = [reference_reason(pos, p, color) for p in range(pos.n)]
        for p, why in enumerate(reasons):
            if why is not None:
                captures = any(pos.board[q] == -color and pos.liberties(q) == 1 for q in nbrs[p])
                key = why + (" by capture" if why == "superko" and captures else "")
                seen_reasons[key] = seen_reasons.get(key, 0) + 1
        expected = [p for p, why in enumerate(reasons) if why is None]
        assert [pos.illegal_reason(p, color) for p in range(pos.n)] == reasons, pos.to_ascii()
        assert pos.legal_moves(color) == expected, pos.to_ascii()
        assert pos.legal_bits(color) == sum(1 << p for p in expected)
        mask = pos.legal_mask(color)
        assert mask.dtype == np.bool_ and mask.shape == (pos.n + 1,) and mask.flags.writeable
        assert mask.tolist() == [why is None for why in reasons] + [True]
    counts = []
    for p in range(pos.n):
        if pos.board[p] == EMPTY:
            counts.append(0)
            continue
        stones, libs = flood(pos.board, p, nbrs)
        chain, chain_libs = pos.chain_at(p)
        assert (set(chain), chain_libs, len(chain)) == (stones, libs, len(stones))
        counts.append(len(libs))
    assert pos.liberty_counts() == counts


@pytest.mark.parametrize("superko", [True, False])
def test_legality_equals_the_rules_in_random_games(superko):
    rng = random.Random(11 if superko else 12)
    reasons: dict[str, int] = {}
    positions = 0
    for size, games in ((2, 6), (3, 8), (4, 14), (5, 8), (7, 2), (9, 1)):
        for _ in range(games):
            pos = Position(size, superko=superko)
            while pos.passes < 2 and pos.move_count < 3 * pos.n:
                check_position(pos, reasons)
                positions += 1
                if rng.random() < 0.02 and any(pos.board):  # a setup edit: chains rebuilt
                    edited = pos.copy()
                    edited.remove(rng.choice([p for p, v in enumerate(pos.board) if v]))
                    check_position(edited, reasons)
                moves = pos.legal_moves()
                pos.play(rng.choice(moves) if moves and rng.random() > 0.03 else pos.pass_point)
    assert positions > 500
    # The games reach every rule, so the comparison covers each branch of the fast code.
    wanted = {"occupied", "suicide", "ko"} | ({"superko", "superko by capture"} if superko else set())
    assert wanted <= set(reasons), reasons


@pytest.mark.parametrize("history", ["short", "long"])
def test_superko_with_planted_histories(history):
    """``seen`` holds the positions after some legal moves (capturing ones included), so
    those moves become superko. A history shorter than the non-capturing candidates
    (the position itself and the planted ones) is searched by key; a long one (the
    game's own plus 200 unrelated hashes) candidate by candidate."""
    rng = random.Random(3)
    reasons: dict[str, int] = {}
    checked = 0
    for size in (5, 9):
        pos = Position(size)
        while pos.passes < 2 and pos.move_count < 2 * pos.n:
            moves = pos.legal_moves()
            captures = [p for p in moves
                        if any(pos.board[q] == -pos.to_play and pos.liberties(q) == 1 for q in neighbours(size)[p])]
            planted = pos.copy()
            if history == "short":
                planted.seen = {pos.hash}
            else:
                planted.seen |= {rng.getrandbits(64) for _ in range(200)}
            for p in rng.sample(moves, min(3, len(moves))) + captures[:2]:
                after = pos.copy()
                after.play(p)
                planted.seen.add(after.hash)
            plain = pos.copy()
            plain.superko = False
            quiet = len(set(plain.legal_moves()) - set(captures))
            if (len(planted.seen) < quiet) == (history == "short"):
                check_position(planted, reasons)
                checked += 1
            pos.play(rng.choice(moves) if moves else pos.pass_point)
    assert checked > 40 and reasons["superko"] > 50 and reasons["superko by capture"] > 5, (checked, reasons)


def test_zobrist_keys_differ_so_the_lookup_by_key_is_exact():
    for size in range(2, 26):
        assert _zobrist_points(size) is not None


def test_copy_is_independent():
    rng = random.Random(5)
    pos = Position(9)
    for _ in range(60):
        pos.play(random_move(pos, rng))
    before = (list(pos.board), pos.liberty_counts(), pos.legal_mask().tolist(), set(pos.seen), pos.hash,
              dict(pos.captures))
    other = pos.copy()
    for _ in range(80):
        other.play(random_move(other, rng))
    assert other.board != pos.board
    assert (list(pos.board), pos.liberty_counts(), pos.legal_mask().tolist(), set(pos.seen), pos.hash,
            dict(pos.captures)) == before
    check_position(pos, {})
    check_position(other, {})


# ---------------------------------------------------------------------- search and features
class HashEvaluator:
    """A deterministic stand-in network: policy logits, value and score drawn from a
    generator seeded by the position's key."""

    name = "hash"
    has_score = True
    has_ownership = False
    board_sizes = tuple(range(2, 26))

    def evaluate(self, queries):
        out = []
        for q in queries:
            rng = np.random.default_rng(q.position.key())
            policy = masked_softmax(rng.normal(size=len(q.legal)) * 2.0, q.legal)
            out.append(Evaluation(policy, float(rng.uniform(-0.8, 0.8)), float(rng.normal() * 5.0)))
        return out


def sample_positions(count: int, seed: int = 7, size: int = 9):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pos, history = Position(size), ()
        for _ in range(rng.randrange(5, 60)):
            history = push_history(history, board_array(pos))
            pos.play(random_move(pos, rng))
        out.append((pos, history))
    return out


def rounded(values) -> bytes:
    """``values`` as float64 rounded to ``DIGITS`` decimals: sums and softmaxes differ in
    the last bits between numpy builds and CPUs (SIMD width), the trees do not."""
    return np.round(np.asarray(values, dtype=np.float64), DIGITS).tobytes()


DIGITS = 9


def tree_digest(search: Search) -> str:
    """SHA-256 over every expanded node (breadth first): moves, visits, and priors, N,
    W, S and values rounded (``rounded``)."""
    digest = hashlib.sha256()
    todo = [search.root]
    while todo:
        node = todo.pop(0)
        if not node.expanded:
            continue
        digest.update(np.asarray(node.moves, dtype=np.int64).tobytes())
        for array in (node.prior, node.N, node.W, node.S):
            digest.update(rounded(array))
        digest.update(str(node.visits).encode() + rounded([node.value_sum, node.score_sum, node.net_value]))
        todo.extend(c for c in node.children if c is not None)
    return digest.hexdigest()[:16]


SEARCHES = {
    "batch 8": dict(batch_size=8, pipeline=False),
    "batch 16, pipeline": dict(batch_size=16, pipeline=True),
    "noise, virtual loss 0.5": dict(batch_size=8, noise=True, seed=3, virtual_loss=0.5),
    "batch 1, fpu 0": dict(batch_size=1, fpu_reduction=0.0, pipeline=False),
}


def digest_searches() -> dict[str, str]:
    """One tree digest per configuration over three positions, with tree reuse."""
    out = {}
    for name, config in SEARCHES.items():
        digest = hashlib.sha256()
        for pos, history in sample_positions(3):
            search = Search(HashEvaluator(), SearchConfig(**config))
            search.set_position(pos, history)
            search.run(visits=300)
            digest.update(tree_digest(search).encode())
            move = search.choose()
            after = pos.copy()
            after.play(move)
            assert search.set_position(after, push_history(history, board_array(pos)))
            search.run(visits=200)
            digest.update(tree_digest(search).encode())
        out[name] = digest.hexdigest()[:16]
    return out


def digest_features() -> str:
    sample = sample_positions(12, seed=9)
    planes = encode_batch([p for p, _ in sample], [h for _, h in sample])
    return hashlib.sha256(planes.tobytes()).hexdigest()[:16]


# Recorded with the code before the speed work; the search digests again, rounded, on
# 2026-11-24 with the search of commit 79d3867 (whose exact digests were these trees'),
# when an AMD machine without AVX-512 gave other last bits.
SEARCH_DIGESTS = {
    "batch 8": "909df639ba392ccd",
    "batch 16, pipeline": "641127cac2a07b87",
    "noise, virtual loss 0.5": "66a42dc85181399d",
    "batch 1, fpu 0": "5213fdfda247996c",
}
FEATURES_DIGEST = "5a5162ba18248b3f"


def test_search_trees_are_the_same_as_before():
    assert digest_searches() == SEARCH_DIGESTS


def test_feature_planes_are_the_same_as_before():
    assert digest_features() == FEATURES_DIGEST


def test_legal_masks_of_many_positions_are_their_legal_masks():
    from gobuddy.go.position import legal_masks

    sample = [pos for pos, _ in sample_positions(10, seed=5)]
    assert np.array_equal(legal_masks(sample), np.stack([pos.legal_mask() for pos in sample]))
