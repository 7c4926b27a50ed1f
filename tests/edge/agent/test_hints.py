"""Recommendations light the board's LEDs only for the position on the board now.

A stand-in engine answers the agent's requests with the position key the real worker
computes (``engine_worker.request_position``); answers are also injected on the board's
LED topic as a worker would publish them, one for an older position (stale: never lit)
and one for the current position (lit)."""

from __future__ import annotations

import time

from edge.game import GameSettings, Mode
from engine_worker.request_position import build
from gobuddy.go.game import position_hash
from gobuddy.bus import BusClient, topics
from gobuddy.bus.messages import EngineAnswer, MoveInfo, PositionKey, RootInfo
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position
from tests.edge.agent.rig import AgentRig, wait_until
from tests.mqtt_broker import Inbox


def answer(request_id: str, key: tuple[int, str], best: str, to_play: str = "B",
           board_id: str = "board-t1") -> EngineAnswer:
    root = RootInfo(visits=10, winrate=0.5, winrate_black=0.5, score_lead=None, value=0.0)
    move = MoveInfo(move=best, order=0, visits=10, winrate=0.5, winrate_black=0.5, score_lead=None, prior=0.5,
                    pv=(best,))
    return EngineAnswer(id=request_id, board_id=board_id, position_key=PositionKey(*key), to_play=to_play,
                        root=root, moves=(move,), model="stand-in", worker="engine-test", elapsed_ms=1.0)


def key_after(moves: str) -> tuple[int, str]:
    pos = Position(9)
    for vertex in moves.split():
        pos.play(pos.pass_point if vertex == "pass" else from_gtp(vertex, 9))
    return pos.move_count, position_hash(pos)


def test_stale_answer_never_lights_a_current_one_does(broker, observer, tmp_path):
    engine = BusClient(broker.config("engine-1"))
    engine.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 C3")
            observer.wait_moves(2)
            led = topics.board_led("board-t1")
            engine.publish(led, answer("board-t1:hint:1:9", key_after("E5"), "G7", "W"), wait=True)
            engine.publish(led, answer("board-t1:hint:2:9", (2, "0" * 16), "G7"), wait=True)  # same count, other position
            time.sleep(0.5)
            assert rig.board.leds().mode == "OFF"
            assert rig.agent.counts["stale_answers"] == 2
            engine.publish(led, answer("board-t1:hint:2:10", key_after("E5 C3"), "G3"), wait=True)
            wait_until(lambda: rig.board.leds().points == ("G3",), 5, "the hint on the LEDs")
            assert rig.board.leds().mode == "POINT"
            rig.play("G3")  # the hint was followed: the LEDs go off with the move
            wait_until(lambda: rig.board.leds().mode == "OFF", 5, "the LEDs off after the move")
    finally:
        engine.stop()


def test_advice_button_asks_the_engine_and_lights_its_answer(broker, observer, tmp_path):
    requests = Inbox()
    engine = BusClient(broker.config("engine-1"))

    def respond(received):
        request = received.message
        requests(request)
        pos, _ = build(request.position, (9,))
        reply = answer(request.id, (pos.move_count, position_hash(pos)), "D6", "B")
        engine.respond(received, reply)
        engine.publish(topics.board_led("board-t1"), reply)  # as the worker does, for every viewer

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    try:
        with AgentRig(broker, tmp_path, settings=GameSettings(handicap=2)) as rig:
            handicap = [from_gtp("G7", 9), from_gtp("C3", 9)]
            rig.board.setup({p: BLACK for p in handicap}).result(5)  # the handicap stones are on the board
            rig.press("START")
            rig.pos = Position(9, to_play=WHITE)
            for p in handicap:
                rig.pos.place(p, BLACK)
            rig.play("E5 pass")
            observer.wait_moves(2)
            assert rig.board.leds().mode == "OFF"
            rig.press("ADVICE")
            request = requests.wait_for(1)[0]
            assert (request.purpose, set(request.position.setup), request.position.moves) == \
                ("hint", {("B", "G7"), ("B", "C3")}, (("W", "E5"), ("B", "pass")))
            wait_until(lambda: rig.board.leds().points == ("D6",), 5, "the engine's hint on the LEDs")
            time.sleep(0.5)  # the copy on the led topic has come too: the one answer is used once
            assert (rig.agent.counts["answers_used"], rig.agent.counts["stale_answers"]) == (1, 0)
    finally:
        engine.stop()


def test_vs_engine_lights_the_engine_move_and_checks_the_stone(broker, observer, tmp_path):
    engine = BusClient(broker.config("engine-1"))

    def respond(received):
        pos, _ = build(received.message.position, (9,))
        engine.respond(received, answer(received.message.id, (pos.move_count, position_hash(pos)), "D6", "W"))

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    try:
        settings = GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE)
        with AgentRig(broker, tmp_path, settings=settings) as rig:
            rig.press("START")
            rig.play("E5")
            wait_until(lambda: rig.board.leds().points == ("D6",), 5, "the engine's move on the LEDs")
            rig.play("D6")
            assert observer.wait_moves(2) == ["B E5", "W D6"]
            wait_until(lambda: rig.board.leds().mode == "OFF", 5, "the LEDs off after the engine's stone")
            assert observer.events()[0]["mode"] == "vs_engine"
    finally:
        engine.stop()
