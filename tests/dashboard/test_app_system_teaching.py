"""The System page sets a board's teacher and names its players: on loopback the dashboard acts as admin; an
online board shows its teacher (from its status) and a choice of level, and "Set the
teacher" sends that board a ``set_teaching`` board command (``None`` for off)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from gobuddy.bus import BusClient, topics
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions, open_app,  # noqa: F401
                                services)
from tests.mqtt_broker import Inbox


@contextmanager
def system_page_with_a_board(open_app, app_broker, **status: Any) -> Iterator[tuple[Any, Inbox]]:
    """The System page with board-1 online (its status: ``status``) and the commands it gets."""
    board = BusClient(app_broker.config("board-1"))
    commands = Inbox()
    board.subscribe(topics.board_command("board-1"), commands)
    board.set_status(firmware="1.0.0", calibrated=True, sensing="occupancy", **status)
    board.start()
    try:
        at = open_app("views/system.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: any(p.details.get("calibrated") for p in f.presence("board")), 10)
        at.run()
        no_exceptions(at)
        yield at, commands
    finally:
        board.stop()


def test_an_admin_sets_a_boards_teacher(open_app, app_broker):
    with system_page_with_a_board(open_app, app_broker, teaching=None) as (at, commands):
        assert any(c.value == "board-1: teacher off" for c in at.caption)
        at.selectbox(key="teach-board-1").set_value("25 kyu").run()
        (button,) = [b for b in at.button if b.label == "Set the teacher on board-1"]
        button.click().run()
        no_exceptions(at)
        (received,) = commands.wait_for(1)
        assert (received.message.command, received.message.level, received.message.by) == \
            ("set_teaching", "25 kyu", "dashboard")
        assert any("Asked board-1 to teach at 25 kyu" in s.value for s in at.success)
        at.selectbox(key="teach-board-1").set_value("off").run()
        [b for b in at.button if b.label == "Set the teacher on board-1"][0].click().run()
        assert commands.wait_for(2)[1].message.level is None


def test_the_players_of_a_boards_next_games_are_named(open_app, app_broker):
    with system_page_with_a_board(open_app, app_broker, player_black=None, player_white=None) as (at, commands):
        assert any(c.value == "board-1: next games guest (black) against guest (white)" for c in at.caption)
        at.text_input(key="players-board-1-B").set_value("  Ana   Lee ")
        (button,) = [b for b in at.button if b.label == "Set the players on board-1"]
        button.click().run()
        no_exceptions(at)
        (received,) = commands.wait_for(1)
        assert (received.message.command, received.message.players, received.message.by) == \
            ("set_players", {"B": "Ana Lee", "W": None}, "dashboard")
        assert any("Asked board-1 to name Ana Lee (black) and guest (white)" in s.value for s in at.success)
