"""The count at the end on the simulated board, over a real Mosquitto: two passes (or
END) ask the workers which stones are dead (a stand-in worker answers ``final_status``:
the white stone at C4 is dead); they blink until TURN DONE accepts (the result counts
them dead, and ``game_ended`` lists them) or UNDO goes back to playing; a stone lifted
toggles its group (lifted and put back) or leaves it dead (taken off); nobody deciding
accepts after a while; with no worker every stone counts alive and the status says so;
a count shown survives a restart of the agent."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from edge.game import GameSettings
from engine_worker.request_position import build
from gobuddy.bus import BusClient, topics
from gobuddy.bus.messages import DeadStones, EngineAnswer, MoveInfo, PositionKey, RootInfo
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import position_hash
from gobuddy.go.position import Position
from gobuddy.go.scoring import area_score
from tests.edge.agent.rig import AgentRig, wait_until
from tests.mqtt_broker import Inbox

DEAD = ("C4",)


@contextmanager
def counting_worker(broker) -> Iterator[Inbox]:
    """A worker's stand-in while the block runs: for a request with ``final_status``,
    ``DEAD`` (those on the board); every request is kept in the ``Inbox`` yielded."""
    requests = Inbox()
    engine = stand_in_counter(broker, requests)
    try:
        yield requests
    finally:
        engine.stop()


def stand_in_counter(broker, requests: Inbox) -> BusClient:
    """The stand-in of ``counting_worker``, started; the caller stops it."""
    engine = BusClient(broker.config("engine-1"))

    def respond(received):
        request = received.message
        requests(request)
        pos, _ = build(request.position, (9,))
        dead = tuple(v for v in DEAD if pos.board[from_gtp(v, 9)] != 0) if request.final_status else None
        root = RootInfo(visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, value=0.0)
        move = MoveInfo(move="pass", order=0, visits=50, winrate=0.5, winrate_black=0.5, score_lead=0.0, prior=0.5,
                        pv=("pass",))
        engine.respond(received, EngineAnswer(
            id=request.id, board_id=request.board_id, position_key=PositionKey(pos.move_count, position_hash(pos)),
            to_play=request.position.side_to_play(), root=root, moves=(move,), model="stand-in",
            worker="engine-test", elapsed_ms=1.0,
            final_status=DeadStones(dead=dead, unsure=()) if dead is not None else None))

    engine.subscribe(topics.engine_requests_filter(), respond)
    engine.start()
    return engine


def result_with(moves: str, dead: tuple[str, ...]) -> str:
    pos = Position(9)
    for v in moves.split():
        pos.play(pos.pass_point if v == "pass" else from_gtp(v, 9))
    return area_score(pos, 7.0, [from_gtp(v, 9) for v in dead]).result


def count_status(observer) -> str | None:
    return ((observer.status() or {}).get("details") or {}).get("count")


def test_two_passes_the_dead_blink_and_turn_done_accepts(broker, observer, tmp_path):
    with counting_worker(broker) as requests:
        with AgentRig(broker, tmp_path, status_every_s=0.5) as rig:
            rig.press("START")
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the dead stones on the LEDs")
            assert rig.board.leds().points == DEAD
            (asked,) = [r for r in requests.items if r.final_status]
            assert (asked.purpose, asked.include_ownership, len(asked.position.moves)) == ("analysis", True, 4)
            assert not observer.events("game_ended")  # the players decide first
            wait_until(lambda: "TURN DONE accepts" in (count_status(observer) or ""), 10, "the count in the status")
            rig.press("DONE")
            wait_until(lambda: observer.events("game_ended"), 10, "the end of the game")
            (ended,) = observer.events("game_ended")
            assert (ended["result"], ended["reason"], ended["move_number"]) == \
                (result_with("E5 C4 pass pass", DEAD), "score", 4) == ("B+74", "score", 4)
            wait_until(lambda: rig.board.leds().mode == "OFF", 5, "the LEDs off")


def test_undo_disputes_the_count_and_play_goes_on(broker, observer, tmp_path):
    with counting_worker(broker):
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the dead stones on the LEDs")
            rig.press("UNDO")
            wait_until(lambda: observer.events("undo"), 10, "the last pass taken back")
            assert [(e["color"], e["vertex"]) for e in observer.events("undo")] == [("W", "pass")]
            wait_until(lambda: rig.board.leds().mode == "OFF", 5, "the LEDs off")
            rig.pos = Position(9)
            for v in "E5 C4 pass".split():
                rig.pos.play(rig.pos.pass_point if v == "pass" else from_gtp(v, 9))
            rig.play("G3")
            assert observer.wait_moves(5)[-1] == "W G3"
            assert not observer.events("game_ended")


def test_nobody_deciding_accepts_the_count(broker, observer, tmp_path):
    with counting_worker(broker):
        with AgentRig(broker, tmp_path, count_accept_s=1.0) as rig:
            rig.press("START")
            rig.play("E5 C4")
            rig.press("END")
            wait_until(lambda: observer.events("game_ended"), 15, "the count accepted")
            assert observer.events("game_ended")[0]["result"] == "B+74"


def test_no_worker_counts_every_stone_alive_and_says_so(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path, count_wait_s=1.0, status_every_s=0.5) as rig:
        rig.press("START")
        rig.play("E5 C4")
        rig.press("END")
        wait_until(lambda: observer.events("game_ended"), 15, "the count with all alive")
        assert observer.events("game_ended")[0]["result"] == result_with("E5 C4", ()) == "W+7"
        wait_until(lambda: "all alive" in (count_status(observer) or ""), 10, "the status saying so")


def test_an_old_board_without_the_count_ends_at_once(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path, settings=GameSettings(), count_dead=False) as rig:
        rig.press("START")
        rig.play("E5 C4 pass pass")
        wait_until(lambda: observer.events("game_ended"), 10, "the end")
        assert observer.events("game_ended")[0]["result"] == "W+7"


def lift_and_put_back(rig, vertex: str, color: int) -> None:
    point = from_gtp(vertex, 9)
    rig.board.lift([point], color).result(10)
    rig.board.idle(0.6).result(10)  # seen off the board
    rig.board.place(point, color).result(10)
    rig.board.idle(0.6).result(10)


def test_lifting_a_stone_toggles_its_group_and_game_ended_lists_the_dead(broker, observer, tmp_path):
    """C4 is proposed dead; its stone lifted and put back: alive (LEDs off); black's E5
    lifted and put back: dead; TURN DONE: the count lifts E5 only, and says so. Nothing
    read meanwhile is a move."""
    with counting_worker(broker):
        with AgentRig(broker, tmp_path, status_every_s=0.5) as rig:
            rig.press("START")
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().points == DEAD, 10, "the dead stones on the LEDs")
            lift_and_put_back(rig, "C4", WHITE)
            wait_until(lambda: rig.board.leds().mode == "OFF", 10, "C4 alive: nothing blinks")
            lift_and_put_back(rig, "E5", BLACK)
            wait_until(lambda: rig.board.leds().points == ("E5",), 10, "E5 dead: it blinks")
            wait_until(lambda: "1 dead stones" in (count_status(observer) or ""), 10, "the count in the status")
            rig.press("DONE")
            wait_until(lambda: observer.events("game_ended"), 10, "the end of the game")
            (ended,) = observer.events("game_ended")
            assert (ended["result"], ended["dead"]) == (result_with("E5 C4 pass pass", ("E5",)), ["E5"]) == ("W+88", ["E5"])
            assert observer.moves() == ["B E5", "W C4", "B pass", "W pass"] and not observer.events("undo")


def test_a_group_taken_off_counts_dead(broker, observer, tmp_path):
    """The players take the dead stone off, as Japanese and Chinese players do: it stays
    dead, and the count ends with it lifted."""
    with counting_worker(broker):
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().points == DEAD, 10, "the dead stones on the LEDs")
            rig.board.lift([from_gtp("C4", 9)], BLACK).result(10)
            rig.board.idle(1.0).result(10)
            assert rig.board.leds().points == DEAD
            rig.press("DONE")
            wait_until(lambda: observer.events("game_ended"), 10, "the end of the game")
            (ended,) = observer.events("game_ended")
            assert (ended["result"], ended["dead"]) == ("B+74", ["C4"])
            assert observer.moves() == ["B E5", "W C4", "B pass", "W pass"]


def test_the_count_survives_a_restart_of_the_agent(broker, observer, tmp_path):
    """The agent stops while the count (C4 proposed, E5 toggled dead by the players) is
    shown: started again, it shows the same count without asking the workers, and
    TURN DONE ends the game with it. A count dropped (UNDO) stays dropped."""
    with counting_worker(broker) as requests:
        with AgentRig(broker, tmp_path, status_every_s=0.5) as rig:
            rig.press("START")
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().points == DEAD, 10, "the dead stones on the LEDs")
            lift_and_put_back(rig, "E5", BLACK)
            wait_until(lambda: sorted(rig.board.leds().points) == ["C4", "E5"], 10, "C4 and E5 blinking")
            asked = len(requests.items)
            rig.stop_agent()
            agent = rig.start_agent()
            assert agent.count is not None and sorted(agent.count.dead) == sorted(from_gtp(v, 9) for v in ("C4", "E5"))
            wait_until(lambda: sorted(rig.board.leds().points) == ["C4", "E5"], 10, "the same count on the LEDs again")
            wait_until(lambda: "2 dead stones" in (count_status(observer) or ""), 10, "the count in the status")
            rig.press("DONE")
            wait_until(lambda: observer.events("game_ended"), 10, "the end of the game")
            (ended,) = observer.events("game_ended")
            assert (ended["result"], sorted(ended["dead"]), ended["move_number"]) == ("W+7", ["C4", "E5"], 4)
            assert len(requests.items) == asked  # the workers were not asked again

            rig.board.lift([from_gtp("E5", 9), from_gtp("C4", 9)], BLACK).result(10)  # the board cleared
            rig.press("START")  # a second game: its count dropped, then a restart
            rig.pos = Position(9)
            rig.play("E5 C4 pass pass")
            wait_until(lambda: rig.board.leds().mode == "BLINK", 10, "the second count")
            rig.press("UNDO")
            wait_until(lambda: len(observer.events("undo")) == 1, 10, "the last pass taken back")
            rig.stop_agent()
            agent = rig.start_agent()
            assert agent.count is None and agent.reconciler.counting is None
            assert agent.record.game.move_number == 3 and not agent.record.game.ended
