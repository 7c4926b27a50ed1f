"""Play against the engine: the game model and its bus messages (tables), and the page
(AppTest) with a real Mosquitto, the stand-in engine worker and the stand-in recorder,
so that a web game ends up stored like a board's."""

from __future__ import annotations

import json
import time

import pytest

from dashboard.views.play_count import Count
from dashboard.views.play_game import IllegalMove, PlayGame
from gobuddy.bus.messages import BoardState, GameEvent
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp
from gobuddy.go.handicap import HandicapError
from gobuddy.go.position import Position
from tests.ai.test_final_status import ROWS
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store, no_exceptions,  # noqa: F401
                                open_app, services, stand_in_recorder, stand_in_worker)


def kinds(events: list[GameEvent]) -> list[tuple]:
    out = []
    for e in events:
        d = e.to_dict()
        out.append((d["type"], d["seq"], d["move_number"], d.get("color"), d.get("vertex"), d.get("result")))
    return out


def test_events_of_a_game():
    game = PlayGame.new("web-1", human="B")
    assert kinds(game.start()) == [("game_started", 0, 0, None, None, None)]
    assert kinds(game.play("E5")) == [("move", 1, 1, "B", "E5", None)]
    assert kinds(game.play("pass")) == [("pass", 2, 2, "W", None, None)]
    assert kinds(game.play("C3")) == [("move", 3, 3, "B", "C3", None)]
    # the engine (white) has not answered: undo takes back black's C3 only
    assert kinds(game.undo()) == [("undo", 4, 3, "B", "C3", None)]
    game.play("C3")
    game.play("G7")  # the engine's answer
    assert kinds(game.undo()) == [("undo", 7, 4, "W", "G7", None), ("undo", 8, 3, "B", "C3", None)]
    assert game.moves == [("B", "E5"), ("W", "pass")] and game.to_play == "B"
    assert kinds(game.resign("B")) == [("game_ended", 9, 2, None, None, "W+R")]
    assert game.over and not game.engine_to_play
    state = game.state()
    assert isinstance(state, BoardState) and state.status == "ended" and state.seq == 9 and state.result == "W+R"
    with pytest.raises(ValueError, match="over"):
        game.play("D4")
    for event in [*game.start(), state]:
        event.validate()  # every message is valid on the wire


def test_the_engine_player_is_named_with_its_level():
    from dashboard.ladder import level_in_name
    from gobuddy.ai.levels import level_names

    (started,) = PlayGame.new("web-1", human="W", level="15 kyu", player_name="Ana").start()
    assert {c: (p.name, p.kind) for c, p in started.players.items()} == {"B": ("gobuddy 15 kyu", "engine"),
                                                                        "W": ("Ana", "human")}
    assert level_in_name(started.players["B"].name, level_names()) == "15 kyu"  # what the recorder reads back
    assert PlayGame.new("web-1").start()[0].players["W"].name == "gobuddy full"


def test_the_position_is_the_games():
    """``PlayGame`` keeps a ``gobuddy.go.game.Game``: its position, hash and replay."""
    from gobuddy.go.game import Game, Ruleset

    game = PlayGame.new("web-1", handicap=2, komi=0.5)
    for v in ["D5", "E5", "pass"]:
        game.play(v)
    same = Game.from_gtp(9, Ruleset("chinese", 0.5), "W", game.setup, game.moves)
    assert game.game.hash() == same.hash() and game.position.board == same.position.board
    assert game.to_play == "B" and game.first == "W"


def test_an_abandoned_game_ends_unknown():
    game = PlayGame.new("web-3")
    game.play("E5")
    assert kinds(game.abandon()) == [("game_ended", 2, 1, None, None, "?")]
    assert game.reason == "abandoned" and game.state().status == "ended"


def test_illegal_moves_are_refused_in_plain_words():
    game = PlayGame.new("web-1")
    game.play("E5")
    with pytest.raises(IllegalMove, match="E5 is not possible: that point is occupied"):
        game.play("E5")
    assert len(game.moves) == 1


def test_handicap_and_colours():
    game = PlayGame.new("web-2", handicap=3, human="B", komi=0.5)
    assert game.setup == [("B", "C3"), ("B", "G7"), ("B", "C7")]
    assert game.first == "W" and game.engine_to_play  # white (the engine) moves first
    assert game.undo() == []  # nothing of the human's to take back
    with pytest.raises(HandicapError):
        PlayGame.new("web-2", size=5, handicap=2)


ISSUE_GAME = ROWS[0]  # white's 11 stones with one two-point eye: dead, B+38 (W+10 was stored)


def moves_to(board: str) -> list[str]:
    """Alternating moves (B first) that build ``board``, a pass for a side with no stone
    left to place, then two passes."""
    pos = Position.from_ascii(board)
    black = [to_gtp(p, pos.size) for p, v in enumerate(pos.board) if v == BLACK]
    white = [to_gtp(p, pos.size) for p, v in enumerate(pos.board) if v == WHITE]
    out = []
    for i in range(max(len(black), len(white))):
        out += [black[i] if i < len(black) else "pass", white[i] if i < len(white) else "pass"]
    return out + ["pass", "pass"]


def test_counting_proposes_the_judges_dead_stones_and_players_can_dispute():
    game = PlayGame.new("web-1", komi=ISSUE_GAME.komi)
    for v in moves_to(ISSUE_GAME.board):
        game.play(v)
    assert game.counting and not game.over and not game.engine_to_play
    with pytest.raises(ValueError, match="counted"):
        game.play("E5")
    count = Count.of(game, engine_ownership=[0.9] * 81)  # an engine that calls everything black's changes nothing proved
    assert count.score(game).result == "B+38"
    assert "C9" in count.dead_vertices() and len(count.dead_vertices()) == 11
    territory = count.territory(game)
    assert territory[0] == 1.0 and territory[8] == -1.0  # A9 black's (the eye), J9 white's
    assert count.toggle_at("D9") and count.score(game).result == "B+12"  # counted alive
    assert not count.toggle_at("E5")  # no stone there
    count.toggle_at("A8")
    events = game.end_by_score(count.dead_vertices())
    assert events[0].result == "B+38" and game.reason == "score" and not game.counting
    assert events[0].dead == tuple(count.dead_vertices()) and len(events[0].dead) == 11  # the count, on the wire
    validate("game_event", events[0].to_dict())


# A group's box in the count's list reports a value; ``Count.mark`` applies it only when
# the box was drawn for the count as it is now and the value changes it. Streamlit can run
# a box's callback with no click, with the value the box shows (streamlit#10102): seen on
# the Play page as three boxes firing at once right after a click on the board.
# The game is ISSUE_GAME's: white's C9 group is counted dead (B+38), alive it is B+12.
# (what happened before: a click on the board at a vertex, or a box's report
#  (vertex, value, drawn at version); then the box's report; changed; the count)
MARKS = [
    ("a box unticked by the player: alive", [], ("C9", False, 0), True, "B+12"),
    ("ticked again, from the box drawn after that", [("C9", False, 0)], ("C9", True, 1), True, "B+38"),
    ("a box firing with the value it shows: nothing changes", [], ("C9", True, 0), False, "B+38"),
    ("a stale box (drawn before a click on the board): ignored", ["D9"], ("C9", True, 0), False, "B+12"),
    ("a stale box, even with the value that would undo the click", ["D9"], ("C9", False, 0), False, "B+12"),
    ("the box drawn after the click: it counts", ["D9"], ("C9", True, 1), True, "B+38"),
]


@pytest.mark.parametrize("before, report, changed, result", [m[1:] for m in MARKS], ids=[m[0] for m in MARKS])
def test_a_groups_box_sets_its_state_only_for_the_count_it_was_drawn_for(before, report, changed, result):
    game = PlayGame.new("web-1", komi=ISSUE_GAME.komi)
    for v in moves_to(ISSUE_GAME.board):
        game.play(v)
    count = Count.of(game)

    def group_at(vertex: str) -> int:
        return next(i for i, g in enumerate(count.status.groups) if from_gtp(vertex, 9) in g.stones)

    for step in before:
        if isinstance(step, str):
            assert count.toggle_at(step)
        else:
            assert count.mark(group_at(step[0]), step[1], step[2])
    vertex, dead, drawn_at = report
    assert count.mark(group_at(vertex), dead, drawn_at) is changed
    assert count.score(game).result == result


def board_data(at) -> dict:
    """The data of the Play page's clickable board component."""
    (board,) = at.get("bidi_component")
    return json.loads(board.proto.json)


def play_board(at) -> str:
    """The SVG of the Play page's clickable board (the data of its component)."""
    return board_data(at)["svg"]


def wait_until(condition, timeout_s: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_playing_a_game_on_the_page(open_app, app_store, app_broker, stand_in_worker, stand_in_recorder):
    at = open_app("views/play.py", app_broker)
    no_exceptions(at)
    assert at.get("form_submit_button")[0].label == "Start the game"
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.selectbox(key="play_level").set_value("5 kyu")  # from 10 kyu up a hint is the top five
    at.button(key="FormSubmitter:play_new-Start the game").click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    assert game.board_id == "web-1" and game.moves == [] and not game.engine_to_play
    assert 'data-move-count="0"' in play_board(at), "the clickable board, empty"
    assert board_data(at)["stone"] == "black", "your turn: a click shows your stone at once"
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    assert len(game.moves) == 2 and game.moves[0] == ("B", "E5") and game.moves[1][0] == "W", game.moves
    svg = play_board(at)  # the engine's stone is drawn in the same run as the answer came
    assert 'data-move-count="2"' in svg and svg.count('class="stone ') == 2
    assert any("Your move" in m.value for m in at.markdown)
    # a hint puts the engine's top five for black on the board
    at.button(key="play_hint_button").click().run(timeout=60)
    no_exceptions(at)
    assert at.table and len(at.table[0].value) >= 1
    assert 'class="rec"' in play_board(at)  # and on the board
    listed = [m["move"] for m in at.session_state["play_hint"][1]["moves"][:5] if m["move"] != "pass"]
    assert len(listed) > 1 and play_board(at).count('class="rec"') == len(listed)
    best = at.session_state["play_hint"][1]["moves"][0]["move"]
    assert any(m.value.startswith(f"**Why {best}**") for m in at.markdown)  # the reasons beside it
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    assert [w.value for w in at.warning] == ["E5 is not possible: that point is occupied"]
    at.button(key="play_undo").click().run(timeout=60)
    assert at.session_state["play_game"].moves == []
    at.button(key="play_resign").click().run(timeout=60)
    no_exceptions(at)
    assert any(s.value == "Game over: W+R (resignation)" for s in at.success)
    assert board_data(at)["stone"] == "", "no stone shown for a click once the game is over"
    # the recorder stored the web game from the bus, like a board's
    assert wait_until(lambda: (g := app_store.list_games().games) and g[0].result == "W+R")
    stored = app_store.get_game(game.game_id)
    assert stored.game.mode == "vs_engine" and stored.game.board_id == "web-1" and stored.moves == ()
    assert stored.game.black == "guest" and stored.game.white == "gobuddy 5 kyu"  # the engine named with its level


def game_after_e5(open_app, app_broker):
    """The Play page with a new game in which the player has typed E5."""
    at = open_app("views/play.py", app_broker)
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.button(key="FormSubmitter:play_new-Start the game").click().run(timeout=60)
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    return at


def test_a_hint_asked_before_resigning_is_gone_once_the_game_is_over(open_app, app_broker, stand_in_worker,
                                                                     stand_in_recorder):
    at = game_after_e5(open_app, app_broker)
    at.button(key="play_hint_button").click().run(timeout=60)
    assert 'class="rec"' in play_board(at) and any(m.value.startswith("**Why ") for m in at.markdown)
    at.button(key="play_resign").click().run(timeout=60)  # resigning plays no move: the hint's position stays
    no_exceptions(at)
    assert any(s.value == "Game over: W+R (resignation)" for s in at.success)
    assert 'class="rec"' not in play_board(at), "no hint on the board of a finished game"
    assert not any(m.value.startswith("**Why ") for m in at.markdown), "nor its reasons beside it"


def test_undo_takes_the_engines_view_of_the_undone_position_away(open_app, app_broker, stand_in_worker,
                                                                 stand_in_recorder):
    at = game_after_e5(open_app, app_broker)
    assert any(c.value.startswith("Score lead:") for c in at.caption)  # the engine's view when it answered
    at.button(key="play_undo").click().run(timeout=60)
    no_exceptions(at)
    assert at.session_state["play_game"].moves == []
    assert not any(c.value.startswith("Score lead:") for c in at.caption), "a view of a position no longer played"


def test_busy_engines_are_told_as_such() -> None:
    from dashboard.views.play_engine import engine_trouble
    from gobuddy.bus.engine_messages import EngineError
    from gobuddy.bus.requests import EngineRequestFailed

    busy = EngineRequestFailed(EngineError(id="r", error="worker engine-1 is busy: ...", code="busy",
                                           retry_after_ms=2400, worker="engine-1"))
    assert engine_trouble(busy) == "the engines are busy with other boards right now; ask again in 2 s"
    other = EngineRequestFailed(EngineError(id="r", error="'Z9' is off the board", field="position.moves[0][1]",
                                            code="invalid", worker="engine-1"))
    assert "Z9" in engine_trouble(other)


def test_a_counted_game_on_the_page(open_app, app_store, app_broker, stand_in_worker, stand_in_recorder):
    from dashboard.views.play_flow import publish

    at = open_app("views/play.py", app_broker)
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.button(key="FormSubmitter:play_new-Start the game").click().run(timeout=60)
    game = at.session_state["play_game"]
    for v in moves_to(ISSUE_GAME.board):  # the players' moves, published as the page does
        assert publish(services(at).feed, game, game.play(v))
    # The engine's last answer (from before the count) says white leads: not shown beside the count.
    at.session_state["play_last_answer"] = {"to_play": "W", "model": "m", "root": {
        "winrate_black": 0.06, "score_lead": 6.9, "visits": 16}}
    at.run(timeout=60)
    no_exceptions(at)
    assert any(m.value.startswith("**Counting: B+38**") for m in at.markdown), [m.value for m in at.markdown]
    assert not any(c.value.startswith("Score lead") for c in at.caption), [c.value for c in at.caption]
    box = next(c for c in at.checkbox if c.label.startswith("White C9 D9 E9"))
    assert box.value and "11 stones" in box.label
    box.uncheck().run(timeout=60)  # the players dispute: counted alive
    assert any(m.value.startswith("**Counting: B+12**") for m in at.markdown)
    next(c for c in at.checkbox if c.label.startswith("White C9 D9 E9")).check().run(timeout=60)
    at.button(key="play_accept_count").click().run(timeout=60)
    no_exceptions(at)
    assert any(s.value == "Game over: B+38 (score)" for s in at.success)
    assert any("Counted dead: White C9" in c.value for c in at.caption)
    assert wait_until(lambda: (g := app_store.list_games().games) and g[0].result == "B+38")


def test_a_move_is_refused_once_the_player_lost_the_role(open_app, app_store, app_broker, stand_in_worker):
    """Moves act in widget callbacks, before any check of the page's run: each one
    reads the account again (``allowed``) before it touches the game."""
    from tests.dashboard.test_app_auth import set_role, sign_in, with_users

    with_users(app_store)
    at = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    at.switch_page("views/play.py").run()
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.button(key="FormSubmitter:play_new-Start the game").click().run(timeout=60)
    no_exceptions(at)
    assert at.session_state["play_game"].moves == []
    set_role(app_store, "pia", "viewer")
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    no_exceptions(at)
    assert at.session_state["play_game"].moves == []  # not played, and the engine not asked
    assert "play_pending" not in at.session_state


# 13x13, black's wall on column F and white's on G, nothing else: black holds columns A-F
# (78 points), white G-N (91), komi 7.
WALLS_13 = "\n".join(". . . . . X O . . . . . ." for _ in range(13))
# (groups toggled dead by a click on one of their stones, the count's result)
COUNTS_13 = [
    ([], "W+20"),             # 91 - 78 + 7
    (["F7"], "W+176"),        # black's wall dead: the whole board is white's, 169 + 7
    (["F1", "F13"], "W+20"),  # a click on any stone of the wall toggles it, twice: alive again
    (["G13"], "B+162"),       # white's wall dead: the whole board is black's, 169 - 7
]
DEAD_13 = {"W+176": {f"F{r}" for r in range(1, 14)}, "B+162": {f"G{r}" for r in range(1, 14)}}


@pytest.mark.parametrize("toggled, result", COUNTS_13)
def test_the_count_works_on_13x13(toggled, result):
    game = PlayGame.new("web-1", size=13, komi=7.0)
    for v in moves_to(WALLS_13):
        game.play(v)
    assert game.counting
    count = Count.of(game)
    assert count.dead_vertices() == [] and len(count.territory(game)) == 169
    for vertex in toggled:
        assert count.toggle_at(vertex)
    assert count.score(game).result == result
    dead = set(count.dead_vertices())
    assert dead == DEAD_13.get(result, set())
