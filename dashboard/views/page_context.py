"""What every page works with: the config, the history store and the live feed.

``dashboard/app.py`` builds the ``Services`` once per process (``st.cache_resource``,
keyed by the config; released, which stops the bus client, when the cache is cleared)
and hands them to the page of each run with ``set_current``; a page takes them with
``current()``. Pages are files run by ``st.navigation``: they start from ``current()``
and never open connections of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.config import DashboardConfig
from dashboard.live_feed import LiveFeed
from dashboard.store import Store

KEY = "gobuddy_services"


@dataclass
class Services:
    config: DashboardConfig
    store: Store
    feed: LiveFeed

    def close(self) -> None:
        self.feed.close()
        self.store.close()


@st.cache_resource(show_spinner=False, on_release=Services.close)
def services_for(config: DashboardConfig) -> Services:
    """The process-wide services for ``config``: the store (migrated to the newest
    schema) and the live feed (its bus client starts connecting in the background)."""
    store = Store.open(config.db_url)
    feed = LiveFeed(config.bus, analysis_visits=config.analysis_visits, analysis_timeout_s=config.analysis_timeout_s)
    if feed.client is not None:  # so that the first page says neither "connecting" nor "0 online" for nothing
        feed.client.wait_connected(2.0) and feed.wait_caught_up(2.0)
    return Services(config, store, feed)


STATUS_SHOWN = "gobuddy_status_shown"  # the status lines the sidebar shows now (see bus_status)


def bus_status(services: Services) -> tuple[str, ...]:
    """The frame's status lines, from the live feed now: the bus connection, then the
    boards and engine workers online. The sidebar keeps the lines it shows in
    ``st.session_state[STATUS_SHOWN]``, so that a page running long (Live) can tell
    when they are stale."""
    feed = services.feed
    if not feed.has_bus:
        return ("Bus: none (--no-bus)",)
    broker = services.config.broker_address
    boards = sum(p.online for p in feed.presence("board"))
    engines = sum(p.online for p in feed.presence("engine"))
    return (f"Bus: {'connected' if feed.connected() else 'connecting…'} ({broker})",
            f"Boards online: {boards} · engine workers online: {engines}")


def set_current(services: Services) -> None:
    st.session_state[KEY] = services


def current() -> Services:
    """The services of this run; stops the page with a message when it was opened
    without ``dashboard/app.py``."""
    services = st.session_state.get(KEY)
    if services is None:
        st.error("This page runs inside the dashboard: start it with `streamlit run dashboard/app.py`.")
        st.stop()
    return services


def session_id() -> str:
    """A stable id of this browser session (for claiming a web board)."""
    if "gobuddy_session" not in st.session_state:
        import uuid

        st.session_state["gobuddy_session"] = uuid.uuid4().hex
    return st.session_state["gobuddy_session"]


def vertices_in_words(vertices: list[str] | tuple[str, ...]) -> str:
    """``["D4"]`` -> ``"D4"``; ``["D4", "D5", "E5"]`` -> ``"D4, D5 and E5"``."""
    items = list(vertices)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
