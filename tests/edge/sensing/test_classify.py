"""Reading frames: levels to classes with hysteresis, ambient tracking, shade, stability."""

from __future__ import annotations

import pytest

from edge.calibration.levels import Calibration
from edge.sensing.classify import STONE, Classifier, Frame, Sighting
from edge.sensing.stability import StabilityConfig, Stabiliser
from gobuddy.go.coords import BLACK, EMPTY, WHITE, from_gtp

SIZE = 9
N = SIZE * SIZE
BASE = 500.0
COLOUR = Calibration(SIZE, (BASE,) * N, black_level=0.2, white_level=0.55, colour_sensing=True,
                     stone_level=0.55)
OCCUPANCY = Calibration(SIZE, (BASE,) * N, stone_level=0.4)
D4, E5 = from_gtp("D4", SIZE), from_gtp("E5", SIZE)


def frame(t: float, ratios: dict[int, float], ambient: float = 1.0) -> Frame:
    """Every point at ``ambient`` times the baseline, except ``ratios``."""
    return Frame(t, [round(BASE * ambient * ratios.get(p, 1.0)) for p in range(N)])


@pytest.mark.parametrize("ratio,expected,uncertain", [
    (1.00, EMPTY, False),
    (0.95, EMPTY, False),
    (0.55, WHITE, False),
    (0.64, WHITE, False),   # a white stone set off-centre
    (0.20, BLACK, False),
    (0.31, BLACK, False),   # a black stone set off-centre
    (0.36, BLACK, False),   # ... far off-centre
    (0.78, EMPTY, True),    # by the empty/white threshold (midway)
    (0.40, WHITE, True),    # by the white/black threshold (55% of the way from black to white)
])
def test_levels_to_classes(ratio: float, expected: int, uncertain: bool) -> None:
    s = Classifier(COLOUR).classify(frame(0.0, {D4: ratio}))
    assert s.board[D4] == expected
    assert (D4 in s.uncertain) == uncertain
    assert s.board.count(EMPTY) == N - (expected != EMPTY)


@pytest.mark.parametrize("first,then,expected", [
    (1.00, 0.74, EMPTY),   # inside the band below the threshold: stays empty
    (1.00, 0.70, WHITE),   # past the band: a stone
    (0.55, 0.81, WHITE),   # inside the band above the threshold: stays white
    (0.55, 0.85, EMPTY),
    (0.55, 0.38, WHITE),   # white/black band: stays white
    (0.20, 0.40, BLACK),   # ... and black stays black
])
def test_hysteresis_keeps_the_class_inside_the_band(first: float, then: float, expected: int) -> None:
    c = Classifier(COLOUR)
    for k in range(5):
        c.classify(frame(k * 0.04, {D4: first}))
    assert c.classify(frame(0.2, {D4: then})).board[D4] == expected


def test_occupancy_sensing_sees_stones_of_unknown_colour() -> None:
    c = Classifier(OCCUPANCY)
    s = c.classify(frame(0.0, {D4: 0.2, E5: 0.55}))
    assert (s.board[D4], s.board[E5]) == (STONE, STONE)
    assert s.rows()[5] == "...#....."  # D4 is on the 6th row from the top


@pytest.mark.parametrize("levels", [
    [1.0] * 60 + [1.0 - 0.01 * k for k in range(1, 31)] + [0.7] * 30,  # dims 30% in 1.2 s
    [1.0] * 60 + [0.7] * 60,  # a lamp goes off
    [0.7] * 60,  # starts in a darker room than at calibration
    [1.0] * 60 + [1.25] * 60,  # a lamp goes on
    [1.0] * 60 + [0.5] * 60,  # half the light goes at once
], ids=["dimming", "lamp-off", "dark-start", "lamp-on", "half-off"])
def test_ambient_light_is_tracked(levels: list[float]) -> None:
    c = Classifier(COLOUR)
    stones = {D4: 0.2, E5: 0.55}
    t = 0.0
    for ambient in levels:
        s = c.classify(frame(t, stones, ambient))
        t += 0.04
    assert c.ambient == pytest.approx(levels[-1], abs=0.02)
    assert s.board[D4] == BLACK and s.board[E5] == WHITE
    assert s.board.count(EMPTY) == N - 2 and s.uncertain == ()


def test_a_settled_stone_that_darkens_is_shaded() -> None:
    c = Classifier(COLOUR)
    t = 0.0
    for _ in range(60):  # 2.4 s: both stones settle
        c.classify(frame(t, {D4: 0.2, E5: 0.55}))
        t += 0.04
    for _ in range(3):  # a hand takes 30% of the light over both
        s = c.classify(frame(t, {D4: 0.14, E5: 0.385}))
        t += 0.04
    assert s.board[D4] == BLACK and D4 in s.uncertain
    assert E5 in s.uncertain


def test_a_dim_empty_point_is_shaded() -> None:
    s = Classifier(COLOUR).classify(frame(0.0, {D4: 0.88}))
    assert s.board[D4] == EMPTY and s.uncertain == (D4,)


def test_rows_mark_uncertain_points() -> None:
    s = Sighting(0.0, (EMPTY, BLACK, WHITE, STONE), uncertain=(3,))
    assert s.rows() == [".X", "O?"]


def test_a_frame_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="80 readings, expected 81"):
        Classifier(COLOUR).classify(Frame(0.0, [500] * 80))


# ---------------------------------------------------------------------- stability
BOARD_A = (EMPTY,) * N
BOARD_B = tuple(BLACK if p == D4 else EMPTY for p in range(N))


def feed(st: Stabiliser, board: tuple[int, ...], start: float, seconds: float,
         uncertain: tuple[int, ...] = (), step: float = 0.04) -> list:
    out, t = [], start
    while t < start + seconds - 1e-9:
        r = st.push(Sighting(t, board, uncertain))
        if r is not None:
            out.append((round(t, 2), r.board == BOARD_B, r.uncertain, r.lasting))
        t += step
    return out


def test_a_board_counts_after_holding_still() -> None:
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3))
    assert feed(st, BOARD_A, 0.0, 0.4) == [(0.32, False, (), False)]
    assert feed(st, BOARD_A, 0.4, 1.0) == []  # reported once
    assert st.settled()
    assert feed(st, BOARD_B, 1.4, 0.2) == []  # a shadow's 0.2 s: nothing
    assert not st.settled()
    assert feed(st, BOARD_A, 1.6, 1.0) == []  # back to the reported board: nothing new
    assert feed(st, BOARD_B, 2.6, 0.5) == [(2.92, True, (), False)]


def test_frames_too_few_or_too_far_apart() -> None:
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3, max_gap_s=0.25))
    assert feed(st, BOARD_A, 0.0, 0.75, step=0.15) == [(0.6, False, (), False)]  # 5 frames needed
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3, max_gap_s=0.25))
    assert feed(st, BOARD_A, 0.0, 2.0, step=0.3) == []  # every gap restarts the count
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3, max_gap_s=0.25))
    assert feed(st, BOARD_A, 0.0, 0.2) + feed(st, BOARD_A, 0.28, 0.2) == [(0.32, False, (), False)]  # a lost frame: no restart


def test_uncertain_points_hold_a_board_back_then_name_it() -> None:
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3, lasting_s=3.0))
    assert feed(st, BOARD_A, 0.0, 0.5) == [(0.32, False, (), False)]
    assert feed(st, BOARD_B, 0.5, 2.9, uncertain=(E5,)) == []
    assert feed(st, BOARD_B, 3.4, 0.2, uncertain=(E5,)) == [(3.52, True, (E5,), True)]
    assert feed(st, BOARD_A, 3.6, 0.5) == [(3.92, False, (), False)]  # reported again after that


def test_uncertain_frames_restart_the_clear_time_but_not_the_board() -> None:
    st = Stabiliser(StabilityConfig(min_frames=5, settle_s=0.3))
    assert feed(st, BOARD_B, 0.0, 0.2) == []
    assert feed(st, BOARD_B, 0.2, 0.12, uncertain=(E5,)) == []
    assert feed(st, BOARD_B, 0.32, 0.4) == [(0.64, True, (), False)]
