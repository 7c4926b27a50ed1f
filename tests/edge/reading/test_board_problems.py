"""Problems made by hand on the simulated board, read from raw frames: named, then put right.

The same path as a real board: light model, hands and noise in the frames, calibration,
the classifier, the reconciler. Each test plays a few real moves, makes one mistake,
checks the named problem, corrects the board and checks that the game goes on.
"""

from __future__ import annotations

from edge.sensing.classify import Classifier
from gobuddy.go.game import Game
from edge.reading.reconcile import LedPattern, Reconciler
from edge.simulation.sensor_model import SensorModel
from edge.simulation.simulator import BoardSimulator, calibrate
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from tests.edge.scripted_board import describe


class Table:
    """A simulated board, its reader, and short helpers in GTP."""

    def __init__(self, seed: int) -> None:
        model = SensorModel(seed=seed)
        self.sim = BoardSimulator(model, seed=seed)
        self.rec = Reconciler(Game(), Classifier(calibrate(model)))
        self.rec.run(self.sim.idle(1.0))

    def _run(self, frames: list) -> list[str]:
        return describe([e for e in self.rec.run(frames + self.sim.idle(1.0)) if not isinstance(e, LedPattern)])

    def put(self, vertex: str, color: int) -> list[str]:
        return self._run(self.sim.place(from_gtp(vertex, 9), color))

    def lift(self, vertices: str, side: int) -> list[str]:
        return self._run(self.sim.lift([from_gtp(v, 9) for v in vertices.split()], side))

    def press(self, button: str) -> list[str]:
        return describe(self.rec.run([self.sim.press(button)] + self.sim.idle(1.0)))


def test_wrong_colour_by_hand() -> None:
    t = Table(seed=21)
    assert t.put("E5", BLACK) == ["move B E5"]
    assert t.put("C3", BLACK) == ["problem wrong_color C3"]
    assert t.lift("C3", BLACK) == ["cleared wrong_color"]
    assert t.put("C3", WHITE) == ["move W C3"]


def test_captures_left_on_the_board_by_hand() -> None:
    t = Table(seed=22)
    for vertex, color in [("C5", BLACK), ("D5", WHITE), ("E5", BLACK), ("A1", WHITE), ("D6", BLACK), ("B1", WHITE)]:
        t.put(vertex, color)
    assert t.put("D4", BLACK) == ["move B D4 x D5"]
    assert t.put("G3", WHITE) == ["problem captures_not_removed D5"]
    assert t.lift("D5", BLACK) == ["cleared captures_not_removed", "move W G3"]


def test_two_stones_then_undo_by_lifting_by_hand() -> None:
    t = Table(seed=23)
    assert t.put("E5", BLACK) == ["move B E5"]
    assert t._run(t.sim.place(from_gtp("G7", 9), BLACK) + t.sim.place(from_gtp("C3", 9), WHITE)) \
        == ["problem two_stones G7 C3"]  # black's stone came first: out of turn
    assert t.lift("G7", BLACK) == ["cleared two_stones", "move W C3"]
    assert t.lift("C3", WHITE) == ["undo W C3"]
    assert t.put("D3", WHITE) == ["move W D3"]


def test_two_moves_in_turn_before_the_board_settled_are_two_moves() -> None:
    t = Table(seed=23)
    assert t.put("E5", BLACK) == ["move B E5"]
    assert t._run(t.sim.place(from_gtp("C3", 9), WHITE) + t.sim.place(from_gtp("G7", 9), BLACK)) \
        == ["move W C3", "move B G7"]


def test_pass_and_suicide_by_hand() -> None:
    t = Table(seed=24)
    assert t.put("A2", BLACK) == ["move B A2"]
    assert t.press("pass") == ["pass W"]
    assert t.put("B1", BLACK) == ["move B B1"]
    assert t.put("A1", WHITE) == ["problem illegal_point A1"]
    assert t.lift("A1", WHITE) == ["cleared illegal_point"]
    assert t.put("E5", WHITE) == ["move W E5"]
