"""Feature planes as tables: ASCII positions, GTP points, expected plane contents."""

from __future__ import annotations

import numpy as np
import pytest

from gobuddy.ai import features as F
from gobuddy.ai import symmetry
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position

KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def points(plane: np.ndarray) -> set[str]:
    """GTP names of the points set in a [size, size] plane."""
    from gobuddy.go.coords import to_gtp

    size = plane.shape[0]
    return {to_gtp(int(p), size) for p in np.flatnonzero(plane.ravel())}


def play(pos: Position, *vertices: str) -> F.History:
    history: F.History = ()
    for v in vertices:
        history = F.push_history(history, F.board_array(pos))
        pos.play(from_gtp(v, pos.size))
    return history


def test_plane_table_after_a_ko_capture():
    pos = Position.from_ascii(KO, to_play=BLACK)
    history = play(pos, "C3")  # black captures B3 and leaves a ko for white
    x = F.encode(pos, history)
    assert x.shape == (F.NUM_PLANES, 5, 5) and x.dtype == np.float32
    plane = dict(zip(F.PLANE_NAMES, x))
    # white is to move: "own" is white
    assert points(plane["own"]) == {"C4", "D3", "C2"}
    assert points(plane["opp"]) == {"B4", "A3", "B2", "C3"}
    assert points(plane["own_1"]) == {"C4", "B3", "D3", "C2"}        # before C3: B3 still there
    assert points(plane["opp_1"]) == {"B4", "A3", "B2"}
    assert points(plane["own_2"]) == points(plane["own_1"])        # no older board: repeated
    assert points(plane["opp_libs_1"]) == {"C3"}                      # the ko stone
    assert points(plane["opp_libs_3plus"]) == {"B4", "A3", "B2"}
    assert points(plane["ko"]) == {"B3"}
    assert "B3" not in points(plane["legal"]) and "E5" in points(plane["legal"])
    assert points(plane["last_move"]) == {"C3"}
    assert not plane["last_was_pass"].any() and not plane["black_to_move"].any()
    assert plane["ones"].all()


def test_pass_and_side_to_move_planes():
    pos = Position(5)
    history = play(pos, "C3", "pass")
    plane = dict(zip(F.PLANE_NAMES, F.encode(pos, history)))
    assert plane["last_was_pass"].all() and plane["black_to_move"].all()
    assert not plane["last_move"].any()
    assert points(plane["own"]) == {"C3"} and points(plane["own_1"]) == {"C3"}
    assert not plane["own_2"].any()  # two moves ago the board was empty


def test_start_position_has_only_legal_and_constant_planes():
    x = F.encode(Position(9))
    nonzero = {F.PLANE_NAMES[i] for i in range(F.NUM_PLANES) if x[i].any()}
    assert nonzero == {"legal", "black_to_move", "ones"}


def test_batch_equals_single_encodings_and_uint8_path():
    positions, histories = [], []
    pos = Position(7)
    history: F.History = ()
    for v in ["D4", "C3", "E5", "pass", "C5", "D5"]:
        positions.append(pos.copy())
        histories.append(history)
        history = F.push_history(history, F.board_array(pos))
        pos.play(from_gtp(v, 7))
    batch = F.encode_batch(positions, histories)
    for i, (p, h) in enumerate(zip(positions, histories)):
        assert np.array_equal(batch[i], F.encode(p, h))
    assert np.array_equal(F.encode_batch(positions, histories, dtype=np.uint8), batch.astype(np.uint8))


def test_replay_yields_the_positions_and_histories_of_a_game():
    moves = [from_gtp(v, 5) for v in ["C3", "D3", "pass", "B2"]]
    seen = list(F.replay(5, moves))
    assert [m for _, _, m in seen] == moves
    pos, history, _ = seen[3]
    assert pos.move_count == 3 and pos.to_play == WHITE
    c3, d3 = from_gtp("C3", 5), from_gtp("D3", 5)
    assert len(history) == 2
    assert (history[0][c3], history[0][d3]) == (BLACK, WHITE)  # before the pass
    assert (history[1][c3], history[1][d3]) == (BLACK, 0)      # before D3


@pytest.mark.parametrize("bad, message", [
    ("mixed sizes", "7x7 position among 5x5"),
    ("short history", "history board 0 has 3 points"),
])
def test_refusals_name_the_problem(bad, message):
    if bad == "mixed sizes":
        args = ([Position(5), Position(7)], None)
    else:
        args = ([Position(5)], [(np.zeros(3, np.int8),)])
    with pytest.raises(ValueError, match=message):
        F.encode_batch(*args)


def test_features_are_equivariant_under_the_8_symmetries():
    rows = [r.split() for r in KO.strip().splitlines()]
    grid = np.array([[{"X": 1, "O": -1, ".": 0}[c] for c in r] for r in rows])
    chars = {1: "X", -1: "O", 0: "."}
    base = Position.from_ascii(KO, to_play=WHITE)
    for k in range(symmetry.COUNT):
        turned = symmetry.apply_planes(grid, k)
        text = "\n".join(" ".join(chars[int(v)] for v in row) for row in turned)
        pos = Position.from_ascii(text, to_play=WHITE)
        assert np.array_equal(F.encode(pos), symmetry.apply_planes(F.encode(base), k)), f"symmetry {k}"


def test_extraction_is_fast_enough():
    """Guard against an accidental O(n^2) path: a 9x9 middle game position per batch
    entry stays well under a millisecond even on a loaded CI box."""
    import time

    pos = Position(9)
    for v in ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "D4", "F6"]:
        pos.play(from_gtp(v, 9))
    legal = pos.legal_mask()
    start = time.perf_counter()
    F.encode_batch([pos] * 256, [()] * 256, [legal] * 256)
    per = (time.perf_counter() - start) / 256
    assert per < 1e-3, f"{per * 1e6:.0f} us per position"
