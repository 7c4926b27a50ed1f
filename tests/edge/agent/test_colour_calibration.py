"""Colour calibration by hand on the simulated board (light model, per-point gains, noise,
hand shadows), with the real agent and Mosquitto: the LEDs ask for black stones on row 7,
then white stones on row 3, each confirmed with TURN DONE; a forgotten stone is named
and blinks; the result is stored; the LEDs show the stones to take off. Then a stone of
the wrong colour is caught live, blinks the LEDs, and clears when the right stone
replaces it."""

from __future__ import annotations

from edge.agent import AgentConfig, EdgeAgent
from edge.simulation.autoplay import AutoPlayConfig, AutoPlayer
from edge.calibration.levels import CalibrationStore
from edge.link.serial_link import SerialLink
from gobuddy.bus import BusClient
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from tests.edge.agent.rig import AgentRig, wait_until

ROW7 = tuple("A7 B7 C7 D7 E7 F7 G7 H7 J7".split())
ROW3 = tuple("A3 B3 C3 D3 E3 F3 G3 H3 J3".split())


def points(vertices: tuple[str, ...]) -> list[int]:
    return [from_gtp(v, 9) for v in vertices]


def test_colour_calibration_by_hand_then_wrong_colour_live(broker, observer, tmp_path):
    rig = AgentRig(broker, tmp_path, calibrated=False)
    board = rig.board.start()
    config = AgentConfig("board-t1", tmp_path, colour_sensing=True, calibration_settle_s=0.3)
    rig.agent = EdgeAgent(config, BusClient(broker.config("board-t1", persistent_session=True)),
                          SerialLink(board.path, backoff_max_s=0.5)).start()

    def details() -> dict:
        status = observer.status()
        return status["details"] if status else {}

    try:
        # 1. The empty board is measured by itself; then the LEDs ask for black stones on row 7.
        wait_until(lambda: board.leds().points == ROW7, 15, "the LEDs blinking row 7")
        wait_until(lambda: details().get("calibration") == "black_stones", 10, "the black step in the status")
        assert details()["calibration_message"] == \
            "lay a black stone on each point of row 7 (A7 to J7), then press TURN DONE"
        assert rig.agent.classifier is None and board.leds().mode == "BLINK"

        # 2. C7 is forgotten: named, and it alone blinks.
        board.lay(points(tuple(v for v in ROW7 if v != "C7")), BLACK).result(20)
        rig.press("DONE")
        wait_until(lambda: board.leds().points == ("C7",), 10, "C7 blinking")
        wait_until(lambda: (details().get("calibration_problem") or "").startswith(
            "the black reference stone at C7 reads "), 10, "C7 named in the status")  # the LEDs may come first
        board.place(from_gtp("C7", 9), BLACK).result(20)
        rig.press("DONE")

        # 3. White stones on row 3 (the black ones stay); then the calibration is stored.
        wait_until(lambda: board.leds().points == ROW3, 10, "the LEDs blinking row 3")
        board.lay(points(ROW3), WHITE).result(20)
        rig.press("DONE")
        wait_until(lambda: rig.agent.calibration is not None and rig.agent.calibration.colour_sensing, 10,
                   "a colour calibration")
        stored = CalibrationStore(tmp_path).load("board-t1")
        assert stored is not None and stored.colour_sensing and stored == rig.agent.calibration
        assert 0.15 < stored.black_level < 0.32 and 0.45 < stored.white_level < 0.65
        wait_until(lambda: details().get("calibration") == "clear_board", 10, "the clearing step in the status")
        assert board.leds().mode == "BLINK"
        board.lift(points(ROW7 + ROW3), WHITE).result(30)
        wait_until(lambda: not rig.agent.cal.active and board.leds().mode == "OFF", 10, "the calibration over")
        wait_until(lambda: details().get("sensing") == "color" and "calibration" not in details(), 10,
                   "colour sensing in the status")

        # 4. A game: a black stone where white is to play is the wrong colour, named and shown.
        rig.press("START")
        rig.play("E5")
        assert observer.wait_moves(1) == ["B E5"]
        board.place(from_gtp("C3", 9), BLACK).result(20)
        problem = wait_until(lambda: observer.events("problem"), 10, "the wrong colour named")[0]
        assert (problem["kind"], problem["points"]) == ("wrong_color", ["C3"])
        assert problem["message"] == "a black stone was placed at C3, but it is white's turn"
        wait_until(lambda: board.leds().mode == "PROBLEM", 5, "all LEDs blinking")
        board.lift(points(("C3",)), BLACK).result(20)
        rig.play("C3")  # white's stone in its place
        assert observer.wait_moves(2) == ["B E5", "W C3"]
        assert [e["kind"] for e in observer.events("problem_cleared")] == ["wrong_color"]
        wait_until(lambda: board.leds().mode == "OFF", 5, "the LEDs off again")
        assert len(observer.events("problem")) == 1
    finally:
        rig.stop()


def test_auto_play_does_the_colour_calibration_then_plays(broker, observer, tmp_path):
    """``--simulate --auto-play --color-sensing``: the simulated player follows the prompts."""
    rig = AgentRig(broker, tmp_path, calibrated=False)
    board = rig.board.start()
    config = AgentConfig("board-t1", tmp_path, colour_sensing=True, calibration_settle_s=0.3)
    rig.agent = EdgeAgent(config, BusClient(broker.config("board-t1", persistent_session=True)),
                          SerialLink(board.path, backoff_max_s=0.5)).start()
    player = AutoPlayer(board, AutoPlayConfig(seed=3, players="random", hint_chance=0.0),
                        calibration=lambda: rig.agent.cal.prompt).start()
    try:
        observer.wait_moves(2, timeout_s=30)
        assert rig.agent.calibration.colour_sensing and not rig.agent.cal.active
        assert CalibrationStore(tmp_path).load("board-t1") == rig.agent.calibration
        assert not observer.events("problem")
    finally:
        player.stop()
        rig.stop()
