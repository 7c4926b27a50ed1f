"""Which board Live opens on: by default a physical board that is playing, then one
online, then a web game that is live; a default choice follows a better board when one
appears, a board the user picked in the selector stays. A table of the choice, then the
page (AppTest, real Mosquitto, scripted boards, a web game published as the dashboard)."""

from __future__ import annotations

import pytest

from dashboard.live_board import LiveBoard
from dashboard.views.live import LIVE_WEB_S, board_rank, default_board
from gobuddy.bus import topics
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import BoardState, GameStarted
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions, open_app,  # noqa: F401
                                services)
from tests.e2e.stand_ins import ScriptedBoard

NOW = 10_000_000
OLD = NOW - (LIVE_WEB_S + 443) * 1000  # "last message 743 s ago"


def game(board_id: str, status: str = "playing", ts: int = NOW) -> LiveBoard:
    return LiveBoard(board_id, status, f"{board_id}-g1", 0, 9, 7.0, "chinese", None, 0, (), (), "B", None, None, ts, ts)


PLAYING, IDLE, ENDED = "playing", "idle", "ended"


def candidates(*rows: tuple[str, str | None, bool | None, int]) -> dict:
    """(board id, its game's status or None, online, the game's last message time)."""
    return {i: (game(i, s, ts) if s else None, online) for i, s, online, ts in rows}


@pytest.mark.parametrize("rows, current, chosen", [
    # the walkthrough: the simulated board between games, an abandoned web game
    ([("board-1", ENDED, True, NOW), ("web-1", PLAYING, None, OLD)], None, "board-1"),
    # ... and when the board starts its next game, the default follows it
    ([("board-1", PLAYING, True, NOW), ("web-1", PLAYING, None, OLD)], "web-1", "board-1"),
    # a physical board playing beats one merely online, and a live web game
    ([("board-1", IDLE, True, NOW), ("board-2", PLAYING, True, NOW), ("web-1", PLAYING, None, NOW)],
     "board-1", "board-2"),
    # a physical board online beats a live web game
    ([("board-1", None, True, NOW), ("web-1", PLAYING, None, NOW)], None, "board-1"),
    # an offline board with an old "playing" state ranks below a live web game
    ([("board-1", PLAYING, False, OLD), ("web-1", PLAYING, None, NOW)], None, "web-1"),
    # a live web game beats an abandoned one; among equals the current one stays
    ([("web-1", PLAYING, None, OLD), ("web-2", PLAYING, None, NOW)], "web-1", "web-2"),
    ([("board-1", PLAYING, True, NOW), ("board-2", PLAYING, True, NOW)], "board-2", "board-2"),
    ([("board-1", PLAYING, True, NOW), ("board-2", PLAYING, True, NOW)], None, "board-1"),
    # nothing live at all: a physical board first
    ([("web-1", ENDED, None, NOW), ("board-2", None, False, NOW)], None, "board-2"),
    ([], None, None),
])
def test_the_default_board(rows, current, chosen):
    assert default_board(candidates(*rows), current, NOW) == chosen


@pytest.mark.parametrize("board_id, status, online, ts, rank", [
    ("board-1", PLAYING, True, NOW, 0),
    ("board-1", PLAYING, None, NOW, 0),  # its presence not heard yet
    ("board-1", ENDED, True, NOW, 1),
    ("board-1", None, True, NOW, 1),
    ("web-3", PLAYING, None, NOW - LIVE_WEB_S * 1000, 2),
    ("web-3", PLAYING, None, NOW - LIVE_WEB_S * 1000 - 1, 3),
    ("web-3", ENDED, None, NOW, 3),
    ("board-1", PLAYING, False, NOW, 3),
])
def test_board_ranks(board_id, status, online, ts, rank):
    assert board_rank(board_id, game(board_id, status, ts) if status else None, online, NOW) == rank


def test_live_opens_on_the_physical_board_and_keeps_a_board_the_user_picked(open_app, app_broker):
    with ScriptedBoard(app_broker.config("board-1")) as board_1, ScriptedBoard(app_broker.config("board-2")) as board_2:
        at = open_app("views/live.py", app_broker)
        feed = services(at).feed
        stale = now_ms() - 743_000  # a Play tab left open: its game still "playing"
        feed.publish(topics.board_event("web-1"), GameStarted(board_id="web-1", game_id="web-1-g1", seq=0, size=9,
                                                               komi=7.0, rules="chinese", ts=stale), keep=False)
        feed.publish(topics.board_state("web-1"), BoardState(board_id="web-1", status="playing", game_id="web-1-g1",
                                                             seq=0, ts=stale), keep=False)
        assert feed.wait_for(lambda f: f.board("web-1") is not None and len(f.presence("board")) == 2, 10)
        at.run()
        no_exceptions(at)
        assert at.selectbox(key="live_board").value == "board-1"  # online, between games
        board_2.start("board-2-g1")
        assert feed.wait_for(lambda f: f.board("board-2") is not None, 10)
        at.run()
        assert at.selectbox(key="live_board").value == "board-2"  # the default follows the playing board
        at.selectbox(key="live_board").select("web-1").run()
        board_1.start("board-1-g1")
        assert feed.wait_for(lambda f: f.board("board-1") is not None, 10)
        at.run()
        no_exceptions(at)
        assert at.selectbox(key="live_board").value == "web-1"  # the user's pick stays
