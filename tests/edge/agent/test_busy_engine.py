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


def test_an_ask_in_the_moment_a_busy_refusal_arrives_waits_all_the_same(broker) -> None:
    """The agent's loop may ask again while a failure is being handled (between the
    request being forgotten and the agent noting the wait): the advisor itself keeps the
    workers' wait, so that ask sends nothing."""
    from edge.advice import Advisor
    from edge.journal.game_journal import GameLog

    engine, board = BusClient(broker.config("engine-1")), BusClient(broker.config("board-t2"))
    engine.subscribe(topics.engine_requests_filter(), lambda received: engine.respond(received, EngineError(
        id=received.message.id, error="worker engine-1 is busy", code="busy", retry_after_ms=3000, worker="engine-1")))
    engine.start()
    board.start()
    asked_in_the_failure: list[bool] = []
    failed = Inbox()
    record = GameLog.new("board-t2", GameSettings(mode=Mode.HINTS_EVERY_MOVE))

    def on_failure(purpose: str, error: Exception, request_id: str) -> None:
        asked_in_the_failure.append(advisor.ask(record, "hint"))
        failed(request_id)

    advisor = Advisor(board, "board-t2", visits=16, think_ms=200, timeout_s=5.0, on_answer=lambda a, p: None,
                      on_failure=on_failure, retry_s=0.5)
    try:
        assert wait_until(board.is_connected, 10, "the board's connection")
        assert advisor.ask(record, "hint")
        failed.wait_for(1, timeout_s=10)
        assert asked_in_the_failure == [False]
        assert not advisor.ask(record, "hint")  # still inside the workers' 3 s
        time.sleep(3.1)
        assert advisor.ask(record, "hint")
        failed.wait_for(2, timeout_s=10)
    finally:
        advisor.close()
        board.stop()
        engine.stop()
