"""A hint's reason on the simulated board, over a real Mosquitto: the board's hint
request asks for the reason (``explain``); with the hint lit, a second ADVICE blinks
the points the reason is about (the group first) and a third asks again (the hint
steady); a hint without a reason stays lit and the engine is asked again."""

from __future__ import annotations

from engine_worker.request_position import build
from gobuddy.bus import BusClient, topics
from gobuddy.bus.messages import EngineAnswer, MoveInfo, MoveReason, PositionKey, RootInfo
from gobuddy.go.game import position_hash
from tests.edge.agent.rig import AgentRig, wait_until
from tests.mqtt_broker import Inbox


def stand_in(broker, requests: Inbox, reason: MoveReason | None) -> BusClient:
    """Answers every hint D6, with ``reason`` when the request asks to explain."""
    engine = BusClient(broker.config("engine-1"))

    def respond(received):
        request = received.message
        requests(request)
        pos, _ = build(request.position, (9,))
        root = RootInfo(visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, value=0.0)
        move = MoveInfo(move="D6", order=0, visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, prior=0.5,
                        pv=("D6",))
        reply = EngineAnswer(
            id=request.id, board_id=request.board_id, position_key=PositionKey(pos.move_count, position_hash(pos)),
            to_play=request.position.side_to_play(), root=root, moves=(move,), model="stand-in",
            worker="engine-test", elapsed_ms=1.0, reason=reason if request.explain else None)
        engine.respond(received, reply)
        engine.publish(topics.board_led("board-t1"), reply)  # as the worker does, for every viewer

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    return engine


def test_a_second_advice_points_at_what_the_hint_is_about(broker, observer, tmp_path):
    requests = Inbox()
    engine = stand_in(broker, requests, MoveReason("capture", "captures 2 stones at D5 E5", ("D5", "E5")))
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 D5")
            observer.wait_moves(2)
            rig.press("ADVICE")
            wait_until(lambda: rig.board.leds().points == ("D6",), 10, "the hint")
            (asked,) = requests.wait_for(1)
            assert (asked.purpose, asked.explain) == ("hint", True)
            rig.press("ADVICE")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the reason's points")
            assert rig.board.leds().points == ("D5", "E5")
            assert len(requests.items) == 1  # shown from the answer: the engine is not asked
            rig.press("ADVICE")
            wait_until(lambda: rig.board.leds().mode == "POINT", 10, "the hint again")
            assert len(requests.wait_for(2)) == 2
    finally:
        engine.stop()


def test_a_hint_without_a_reason_asks_again(broker, observer, tmp_path):
    requests = Inbox()
    engine = stand_in(broker, requests, None)
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 D5")
            rig.press("ADVICE")
            wait_until(lambda: rig.board.leds().points == ("D6",), 10, "the hint")
            rig.press("ADVICE")
            requests.wait_for(2)
            wait_until(lambda: rig.board.leds().points == ("D6",), 10, "the hint again")
    finally:
        engine.stop()
