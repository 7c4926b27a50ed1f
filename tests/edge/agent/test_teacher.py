"""The teacher on the simulated board, over a real Mosquitto: each learner's stone is
judged by a stand-in engine that answers ``judge`` requests as the worker does (B2 is a
mistake losing 6.5 points, C3 better; everything else is fine). A mistake blinks until
the stone is lifted (taken back: an undo and a ``teaching`` event) or TURN DONE keeps it;
a good move never stops the game; against the engine its reply waits for the learner; a
judgement that never comes leaves the move standing."""

from __future__ import annotations

import time

from edge.game import GameSettings, Mode
from engine_worker.request_position import build
from gobuddy.bus import BusClient, topics
from gobuddy.bus.messages import EngineAnswer, MoveInfo, MoveJudgement, PositionKey, RootInfo, Tolerance
from gobuddy.go.coords import WHITE, from_gtp
from gobuddy.go.game import position_hash
from tests.edge.agent.rig import AgentRig, wait_until
from tests.mqtt_broker import Inbox

MISTAKES = {"B2": 6.5}  # the stand-in's judgement: these lose this many points
BETTER = "C3"
ENGINE_MOVES = ("D6", "G3", "F7", "C7")


def stand_in_engine(broker, requests: Inbox) -> BusClient:
    """An engine worker's stand-in: judges (``MISTAKES``) and plays the first free point
    of ``ENGINE_MOVES``; every request is kept in ``requests``."""
    engine = BusClient(broker.config("engine-1"))

    def respond(received):
        request = received.message
        requests(request)
        pos, _ = build(request.position, (9,))
        judgement = None
        best = BETTER
        if request.judge is not None:
            lost = MISTAKES.get(request.judge.move)
            judgement = MoveJudgement(
                move=request.judge.move, color=request.position.side_to_play(), level=request.judge.level,
                points_lost=lost or 0.0, winrate_lost=0.2 if lost else 0.0, best=BETTER, winrate=0.5,
                score_lead=0.0, mistake=lost is not None,
                tolerance=Tolerance(points=4.0, winrate=0.1, safe_winrate=None), visits=50, searched="candidate")
        elif request.purpose == "genmove":
            best = next(v for v in ENGINE_MOVES if pos.board[from_gtp(v, 9)] == 0)
        root = RootInfo(visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, value=0.0)
        move = MoveInfo(move=best, order=0, visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, prior=0.5,
                        pv=(best,))
        engine.respond(received, EngineAnswer(
            id=request.id, board_id=request.board_id, position_key=PositionKey(pos.move_count, position_hash(pos)),
            to_play=request.position.side_to_play(), root=root, moves=(move,), model="stand-in",
            worker="engine-test", elapsed_ms=1.0, judgement=judgement))

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    return engine


def teaching_events(observer) -> list[tuple]:
    return [(e["verdict"], e["move_number"], e["color"], e["vertex"], e["points_lost"], e["better"], e["level"])
            for e in observer.events("teaching")]


def test_a_mistake_blinks_and_is_taken_back_a_good_move_passes(broker, observer, tmp_path):
    requests = Inbox()
    engine = stand_in_engine(broker, requests)
    try:
        with AgentRig(broker, tmp_path, teach="25 kyu") as rig:
            rig.press("START")
            rig.play("E5 C4")  # good moves: judged, no stop
            requests.wait_for(2, where=lambda r: r.judge is not None)
            time.sleep(0.5)
            assert rig.board.leds().mode == "OFF"
            rig.play("B2")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the mistake on the LEDs")
            assert rig.board.leds().points == ("B2", BETTER)
            judged = [r for r in requests.items if r.judge is not None][-1]
            assert (judged.purpose, judged.judge.move, judged.judge.level, judged.position.moves) == \
                ("analysis", "B2", "25 kyu", (("B", "E5"), ("W", "C4")))
            rig.board.lift([from_gtp("B2", 9)], WHITE).result(10)  # the learner takes the stone back
            rig.board.idle(0.6).result(10)
            wait_until(lambda: teaching_events(observer), 10, "the teaching event")
            assert teaching_events(observer) == [("taken_back", 3, "B", "B2", 6.5, BETTER, "25 kyu")]
            wait_until(lambda: rig.board.leds().mode == "OFF", 5, "the LEDs off after the take-back")
            kinds = [e["type"] for e in observer.events("move", "undo", "teaching")]
            assert kinds == ["move", "move", "move", "undo", "teaching"]
            assert rig.agent.record.game.variations[0].points_lost == 6.5
    finally:
        engine.stop()


def test_against_the_engine_a_kept_mistake_then_the_engine_replies(broker, observer, tmp_path):
    requests = Inbox()
    engine = stand_in_engine(broker, requests)
    try:
        settings = GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE)
        with AgentRig(broker, tmp_path, settings=settings, teach="25 kyu") as rig:
            rig.press("START")
            rig.play("E5")
            wait_until(lambda: rig.board.leds().points == ("D6",), 10, "the engine's move after a good one")
            rig.play("D6")
            rig.play("B2")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the mistake on the LEDs")
            time.sleep(1.0)  # the engine is not asked while the learner decides
            assert [r.position.moves for r in requests.items if r.purpose == "genmove"] == [(("B", "E5"),)]
            rig.press("DONE")
            wait_until(lambda: teaching_events(observer), 10, "the teaching event")
            assert teaching_events(observer) == [("kept", 3, "B", "B2", 6.5, BETTER, "25 kyu")]
            wait_until(lambda: rig.board.leds().points == ("G3",), 10, "the engine's reply after the decision")
            assert observer.moves() == ["B E5", "W D6", "B B2"]
            judged = [r.judge.move for r in requests.items if r.judge is not None]
            assert judged == ["E5", "B2"]  # the learner's moves only
    finally:
        engine.stop()


def test_no_worker_never_blocks_the_game(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path, teach="25 kyu", request_timeout_s=1.0) as rig:
        rig.press("START")
        rig.play("E5 C4 B2")
        assert observer.wait_moves(3) == ["B E5", "W C4", "B B2"]
        wait_until(lambda: rig.agent.teacher.failures >= 3, 15, "the judgements to fail")
        assert rig.board.leds().mode == "OFF" and not observer.events("teaching")


def test_the_dashboard_turns_the_teacher_on(broker, observer, tmp_path):
    from gobuddy.bus.board_messages import BoardCommand

    dashboard = BusClient(broker.config("dashboard"))
    dashboard.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            assert rig.agent.teacher.level is None
            dashboard.publish(topics.board_command("board-t1"),
                              BoardCommand(board_id="board-t1", command="set_teaching", level="15 kyu", by="ana"),
                              wait=True)
            wait_until(lambda: rig.agent.teacher.level == "15 kyu", 5, "the teacher's level")
            wait_until(lambda: ((observer.status() or {}).get("details") or {}).get("teaching") == "15 kyu", 10,
                       "the status")
            dashboard.publish(topics.board_command("board-t1"),
                              BoardCommand(board_id="board-t1", command="set_teaching", level=None, by="ana"),
                              wait=True)
            wait_until(lambda: rig.agent.teacher.level is None, 5, "the teacher off")
    finally:
        dashboard.stop()
