"""Busy engines, seen from a board giving a hint after every move: a ``busy`` refusal is in
the board's status (which the dashboard's System page shows) and the board waits what the
workers asked before asking again; an answer afterwards says ``ok`` again."""

from __future__ import annotations

import time

from edge.game import GameSettings, Mode
from engine_worker.request_position import build
from gobuddy.go.game import position_hash
from gobuddy.bus import BusClient, topics
from gobuddy.bus.engine_messages import EngineError
from tests.edge.agent.rig import AgentRig, wait_until
from tests.edge.agent.test_hints import answer
from tests.mqtt_broker import Inbox


def test_a_busy_refusal_is_shown_and_the_board_asks_again_later(broker, observer, tmp_path) -> None:
    requests = Inbox()
    engine = BusClient(broker.config("engine-1"))
    busy = [True]

    def respond(received) -> None:
        requests((time.monotonic(), received.message))
        if busy[0]:
            engine.respond(received, EngineError(id=received.message.id, error="worker engine-1 is busy", code="busy",
                                                 retry_after_ms=3000, worker="engine-1"))
            return
        pos, _ = build(received.message.position, (9,))
        engine.respond(received, answer(received.message.id, (pos.move_count, position_hash(pos)), "D6", "B"))

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    try:
        with AgentRig(broker, tmp_path, settings=GameSettings(mode=Mode.HINTS_EVERY_MOVE)) as rig:
            rig.press("START")
            rig.play("E5 C3")
            observer.wait_moves(2)
            refused_at = requests.wait_for(1, where=lambda r: r[1].position.moves and
                                           len(r[1].position.moves) == 2, timeout_s=10)[-1][0]
            wait_until(lambda: (observer.status() or {}).get("details", {}).get("engine") == "busy", 10,
                       "the board's status to say busy")
            assert rig.board.leds().mode == "OFF"
            busy[0] = False  # asked again by itself, but not before the 3 s the workers asked for
            asked_again = requests.wait_for(1, where=lambda r: r[0] > refused_at + 0.01, timeout_s=10)[0][0]
            assert asked_again - refused_at >= 2.9
            wait_until(lambda: rig.board.leds().points == ("D6",), 10, "the hint once the workers had time")
            wait_until(lambda: (observer.status() or {}).get("details", {}).get("engine") == "ok", 10, "ok again")
    finally:
        engine.stop()
