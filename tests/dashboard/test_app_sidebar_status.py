"""The sidebar's status lines follow the live feed: the first page after the dashboard
starts already counts the boards and engine workers whose retained birth the broker
held (the feed waits for its own birth to come back, which the broker sends after
them). That the lines are drawn again while a page stays open is a browser test
(``tests/e2e/test_sidebar_status_browser.py``). Real Mosquitto, scripted board, a bus
client as the engine worker."""

from __future__ import annotations

from dashboard.live_feed import LiveFeed
from gobuddy.bus.client import BusClient
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions,  # noqa: F401
                                open_app)
from tests.e2e.stand_ins import ScriptedBoard


def test_the_feed_is_caught_up_once_its_own_birth_comes_back(app_broker):
    with ScriptedBoard(app_broker.config("board-1")), BusClient(app_broker.config("engine-1")):
        for _ in range(3):  # each time: every retained presence is in before the wait ends
            feed = LiveFeed(app_broker.config("dashboard"))
            try:
                assert feed.wait_caught_up(10)
                assert [(p.client_id, p.online) for p in feed.presence() if p.role in ("board", "engine")] == [
                    ("board-1", True), ("engine-1", True)]
            finally:
                feed.close()
    assert not LiveFeed(None).wait_caught_up(0)  # no bus: nothing to wait for


def test_the_first_page_counts_what_is_online(open_app, app_broker):
    with ScriptedBoard(app_broker.config("board-2")), BusClient(app_broker.config("engine-1")):
        at = open_app("views/live.py", app_broker)  # the app's first run
        no_exceptions(at)
        captions = [c.value for c in at.sidebar.caption]
        assert captions[-2].startswith("Bus: connected (")
        assert captions[-1] == "Boards online: 1 · engine workers online: 1"
        assert at.session_state["gobuddy_status_shown"] == tuple(captions[-2:])  # what Live compares

