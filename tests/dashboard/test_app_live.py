"""The Live page and the live feed behind it: a board's game folded from its retained
state and its events in any order, problems in plain words, and the page (AppTest, real
Mosquitto, scripted board, stand-in engine worker) following a game move by move, and
the reasons for the engine's first choice beside its top five."""

from __future__ import annotations

import copy

import pytest

from dashboard.live_board import BoardTracker, LiveBoard
from dashboard.views.live import problem_in_words
from gobuddy.bus.messages import BoardState, GameStarted, MovePlayed, Passed, Problem, Undone
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, boards, no_exceptions,  # noqa: F401
                                open_app, services, stand_in_worker)
from tests.e2e.stand_ins import ScriptedBoard

G = "board-1-g1"
B = "board-1"


def started(game: str = G, ts: int = 1000) -> GameStarted:
    return GameStarted(board_id=B, game_id=game, seq=0, size=9, komi=7.0, rules="chinese", ts=ts)


def move(seq: int, color: str, vertex: str, captures: tuple[str, ...] = ()) -> MovePlayed:
    return MovePlayed(board_id=B, game_id=G, seq=seq, move_number=seq, color=color, vertex=vertex,
                      captures=captures, ts=1000 + seq)


def state(seq: int, moves: list[tuple[str, str]], game: str = G, ts: int | None = None) -> BoardState:
    return BoardState(board_id=B, status="playing", game_id=game, seq=seq, moves=tuple(moves), move_number=len(moves),
                      to_play="W" if len(moves) % 2 else "B", ts=ts if ts is not None else 1000 + seq)


def fold(*messages) -> LiveBoard | None:
    tracker = BoardTracker(B)
    for m in messages:
        (tracker.apply_state if isinstance(m, BoardState) else tracker.apply_event)(m, 0)
    return tracker.current


@pytest.mark.parametrize("messages, moves, to_play", [
    ([started(), move(1, "B", "E5"), move(2, "W", "C3")], ["E5", "C3"], "B"),
    # the state first, then the next event
    ([state(1, [("B", "E5")]), move(2, "W", "C3")], ["E5", "C3"], "B"),
    # an event already covered by the state is a duplicate
    ([state(2, [("B", "E5"), ("W", "C3")]), move(2, "W", "C3"), move(1, "B", "E5")], ["E5", "C3"], "B"),
    # an early event waits for the one before it
    ([started(), move(2, "W", "C3"), move(1, "B", "E5")], ["E5", "C3"], "B"),
    # or for a state that covers the gap
    ([started(), move(3, "B", "D4"), state(2, [("B", "E5"), ("W", "C3")])], ["E5", "C3", "D4"], "W"),
    # an older state does not roll the game back
    ([started(), move(1, "B", "E5"), move(2, "W", "C3"), state(1, [("B", "E5")])], ["E5", "C3"], "B"),
    # pass and undo
    ([started(), move(1, "B", "E5"), Passed(board_id=B, game_id=G, seq=2, move_number=2, color="W", ts=1002),
      Undone(board_id=B, game_id=G, seq=3, move_number=2, color="W", vertex="pass", ts=1003)], ["E5"], "W"),
    # a new game replaces the old one; a late state of the old one is ignored
    ([started(), move(1, "B", "E5"), started("board-1-g2", ts=5000), state(1, [("B", "E5")])], [], "B"),
])
def test_board_tracker_folds_state_and_events(messages, moves, to_play):
    board = fold(*messages)
    assert [v for _, v in board.moves] == moves
    assert board.to_play == to_play
    assert board.stones.count(1) + board.stones.count(-1) == len([v for v in moves if v != "pass"])


def test_replay_counts_captures_and_reports_illegal_records():
    board = fold(started(), move(1, "B", "A2"), move(2, "W", "A1"), move(3, "B", "B1", ("A1",)))
    assert board.capture_counts == {"B": 1, "W": 0} and board.replay_error is None
    assert board.position_hash is not None and len(board.position_hash) == 16
    bad = fold(started(), move(1, "B", "E5"), move(2, "W", "E5"))
    assert "move 2 (W E5) is illegal: occupied" in bad.replay_error and bad.position_hash is None


BOARD_AFTER_CAPTURE = fold(started(), move(1, "B", "E5"))  # black played last: captured stones are white


@pytest.mark.parametrize("kind, points, words", [
    ("captures_not_removed", ["D4", "D5", "E5"], "Remove the 3 captured white stones at D4, D5 and E5."),
    ("captures_not_removed", ["D4"], "Remove the captured white stone at D4."),
    ("wrong_color", ["F4"], "A black stone was put at F4, but white is to play: take it away."),
    ("two_stones", ["F4", "G5"], "2 new stones at F4 and G5: take away all but the one you meant to play."),
    ("stone_lifted", ["C3"], "The stone at C3 was lifted: put it back."),
    ("stone_lifted", ["C3", "C4"], "The stones at C3 and C4 were lifted: put them back."),
    ("ko", ["D5"], "D5 retakes the ko at once, which the rules forbid: play elsewhere first."),
    ("unclear_reading", ["A1"], "The sensors cannot read A1 clearly: centre the stone on its point."),
    ("engine_stone_misplaced", ["C3", "D4"], "The engine's stone belongs on D4, not on C3: move it."),
    ("engine_stone_misplaced", ["C3"],
     "A stone was put at C3 before the engine chose its move: take it back and wait for the lights."),
    ("board_mismatch", ["E4"], "Edge text."),
])
def test_problems_in_plain_words(kind, points, words):
    assert problem_in_words(Problem(kind, tuple(points), "edge text"), BOARD_AFTER_CAPTURE) == words


def test_the_live_page_follows_a_game(open_app, app_broker, stand_in_worker):
    with ScriptedBoard(app_broker.config("board-1")) as board:
        board.start("board-1-live")
        board.play("E5 C4 D3")
        at = open_app("views/live.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: (b := f.board("board-1")) is not None and b.move_number == 3, 10)
        at.run()
        no_exceptions(at)
        assert at.selectbox(key="live_board").value == "board-1"
        svg = boards(at)[0]
        assert 'data-move-count="3"' in svg and svg.count('class="stone black"') == 2
        assert "### White to play" in [m.value for m in at.markdown]
        # the engine's answer for this very position, then the top five on the board
        assert feed.wait_for(lambda f: f.answer_for(f.board("board-1")) is not None, 15)
        at.run()
        assert boards(at)[0].count('class="rec"') == 5
        assert len(at.table[0].value) == 5
        board.play("G5")
        board.raise_problem("stone_lifted", ["D3"], "Put the stone back on D3.")
        assert feed.wait_for(lambda f: f.board("board-1").problem is not None, 10)
        at.run()
        no_exceptions(at)
        svg = boards(at)[0]
        assert 'data-move-count="4"' in svg and 'class="problem" data-vertex="D3"' in svg
        assert [e.value for e in at.error] == ["The stone at D3 was lifted: put it back."]
        assert any("board online" in m.value and "1 engine worker online" in m.value for m in at.markdown)


def test_without_a_broker_the_page_says_so(open_app):
    at = open_app("views/live.py")
    no_exceptions(at)
    assert "No broker is configured" in at.info[0].value


# Black to play; the three white stones D5 E5 F5 are in atari at G5.
CAPTURE_MOVES = "D4 D5 E4 E5 F4 F5 D6 A1 E6 A2 F6 A3 C5 J9"


def capture_hint(board_id: str, moves: str) -> dict:
    """The engine's hint for the position after ``moves`` (black first): G5, by hand."""
    from gobuddy.bus.validation import examples
    from gobuddy.go.game import Game, Ruleset

    played = moves.split()
    game = Game.from_gtp(9, Ruleset("chinese", 7.0), "B", (), [("BW"[i % 2], v) for i, v in enumerate(played)])
    hint = copy.deepcopy(examples("engine_answer")[0])  # the examples are shared
    cands = [("G5", 15.0, ["G5", "H5"]), ("H5", 3.0, ["H5", "G5"])]
    hint.update(id="live-hint-1", board_id=board_id, position_key={"move_count": len(played), "hash": game.hash()},
                to_play="B", moves=[{"move": v, "order": i, "visits": 500 - 100 * i, "winrate": 0.9,
                                     "winrate_black": 0.9, "score_lead": lead, "prior": 0.3, "pv": pv}
                                    for i, (v, lead, pv) in enumerate(cands)])
    hint["root"].update(score_lead=15.0, winrate=0.9, winrate_black=0.9)
    return hint


def test_the_live_page_explains_the_engines_first_choice_once_per_answer(open_app, app_broker, monkeypatch):
    import dashboard.views.reasons as reasons
    from gobuddy.bus import topics
    from gobuddy.bus.client import BusClient

    calls = []
    real = reasons.explain_hint
    monkeypatch.setattr(reasons, "explain_hint", lambda *a, **k: calls.append(1) or real(*a, **k))
    reasons.clear_cache()
    with ScriptedBoard(app_broker.config("board-1")) as board, BusClient(app_broker.config("engine-1")) as engine:
        board.start("board-1-why")
        board.play(CAPTURE_MOVES)
        at = open_app("views/live.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: (b := f.board("board-1")) is not None and b.move_number == 14, 10)
        at.run()
        assert not [m.value for m in at.markdown if m.value.startswith("**Why")]  # no answer yet: no reasons
        engine.publish(topics.board_led("board-1"), hint := capture_hint("board-1", CAPTURE_MOVES), wait=True)
        assert feed.wait_for(lambda f: f.hint_for(f.board("board-1")) is not None, 10), hint["position_key"]
        for _ in range(3):  # redraws of the same position and answer explain it once
            at.run()
            no_exceptions(at)
        (why,) = [m.value for m in at.markdown if m.value.startswith("**Why G5")]
        lines = why.split("  \n")
        assert lines[1] == ":green[:material/thumb_up:] :green-badge[capture] Captures 3 stones at D5 E5 F5."
        assert len(calls) == 1
        board.play("G5")  # a new position: its reasons go with the old answer
        assert feed.wait_for(lambda f: f.board("board-1").move_number == 15, 10)
        at.run()
        no_exceptions(at)
        assert not [m.value for m in at.markdown if m.value.startswith("**Why")]
    reasons.clear_cache()


def test_the_live_page_uses_only_streamlits_public_api():
    """No import from inside Streamlit (``streamlit.runtime`` and the like) and no private
    attribute of anything: a click ends the following run through ``st.session_state``
    (``give_way``), not by peeking at the script runner's pending requests."""
    import ast
    from pathlib import Path

    import dashboard.views.live as live

    tree = ast.parse(Path(live.__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert {m for m in imported if m.startswith("streamlit")} == {"streamlit"}
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")
               and not n.attr.startswith("__")]
    assert private == []


def test_waiting_for_news_returns_when_the_feed_changes_and_yields_meanwhile(app_broker, monkeypatch):
    """``wait_for_news`` returns once the feed's generation moved on (a board's game
    starts) or at its limit, and gives way to a pending click at every slice
    (``give_way``: a session-state read)."""
    import threading

    import dashboard.views.live as live
    from dashboard.live_feed import LiveFeed

    feed = LiveFeed(app_broker.config("dashboard"))
    try:
        assert feed.wait_for(lambda f: f.connected(), 10)
        feed.wait_for(lambda f: False, 1.0)  # the retained messages of earlier tests, if any
        seen, reads = feed.generation, []
        monkeypatch.setattr(live, "give_way", lambda: reads.append("read"))
        live.wait_for_news(feed, seen, 0.3)  # nothing happens: it waits its limit, giving way each slice
        assert feed.generation == seen and len(reads) >= 4
        reads.clear()
        with ScriptedBoard(app_broker.config("board-2")) as board:
            starting = threading.Timer(0.2, lambda: board.start("board-2-news"))
            starting.start()
            live.wait_for_news(feed, seen, 10.0)
            starting.join()
            assert feed.generation != seen and 1 <= len(reads) < 100
    finally:
        feed.close()


@pytest.mark.parametrize("ms, words", [(0, "less than a second ago"), (999, "less than a second ago"),
                                       (1000, "1 s ago"), (61_500, "61 s ago")])
def test_the_age_of_the_last_message_is_told_to_the_second(ms, words):
    from dashboard.views.live import age_words

    assert age_words(ms) == words


def test_after_the_game_the_live_page_shows_the_result_not_the_engines_count(open_app, app_broker, stand_in_worker):
    """The engine counts the final position with every stone alive, dead ones too: its
    win rate, score lead and "passing" would contradict the result, so they go."""
    from gobuddy.bus import topics
    from gobuddy.bus.messages import GameEnded

    with ScriptedBoard(app_broker.config("board-1")) as board:
        board.start("board-1-over")
        board.play("E5 C4 D3 pass pass")
        at = open_app("views/live.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: (b := f.board("board-1")) is not None and b.move_number == 5, 10)
        at.run()
        assert feed.wait_for(lambda f: f.answer_for(f.board("board-1")) is not None, 15)
        at.run()
        assert any(c.value.startswith("Score lead") for c in at.caption)  # the engine's view while playing
        board.seq += 1
        board.result = "W+4"
        board.client.publish(topics.board_event("board-1"), GameEnded(
            board_id="board-1", game_id="board-1-over", seq=board.seq, move_number=5, result="W+4", reason="score",
            dead=("D3", "E5")), wait=True)
        assert feed.wait_for(lambda f: f.board("board-1").status == "ended", 10)
        at.run()
        no_exceptions(at)
        captions = [c.value for c in at.caption]
        assert not [c for c in captions if "Score lead" in c or "suggests" in c or "searching" in c]
        assert not at.table and not [m.value for m in at.markdown if "winrate" in m.value.lower()]
        assert [s.value for s in at.success] == ["Game over: W+4 (score)"]
        assert "Counted dead: D3 and E5 (2 stones)." in captions
        svg = boards(at)[0]
        assert 'class="rec"' not in svg
