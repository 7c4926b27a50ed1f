"""The Go Learning Buddy dashboard: the one entry file, router and frame of every page.

    streamlit run dashboard/app.py --server.headless true -- \\
        --db sqlite:///var/gobuddy.db --broker-host 127.0.0.1 --broker-port 1883 \\
        --username dashboard --credentials var/broker/credentials.json

Arguments after ``--`` build the ``DashboardConfig`` (``dashboard.config``; ``--help``
lists them). Each run: read the config, take the process-wide services (store and live
feed, ``st.cache_resource``), draw the frame (title, the bus status in the sidebar) and
run the page chosen in the navigation:

| page   | file                 | reads                                   |
|--------|----------------------|-----------------------------------------|
| Live   | ``views/live.py``    | the live feed (memory), engine via bus  |
| Games  | ``views/games.py``   | the database                            |
| Replay | ``views/replay.py``  | the database, engine via bus            |
| Play   | ``views/play.py``    | the live feed; writes game events to the bus |
| System | ``views/system.py``  | the live feed, the database             |
"""

from __future__ import annotations

import sys

import streamlit as st

from dashboard.config import ConfigError, from_args
from dashboard.views.page_context import Services, services_for, set_current

PAGES = (
    ("views/live.py", "Live", ":material/sensors:"),
    ("views/games.py", "Games", ":material/list:"),
    ("views/replay.py", "Replay", ":material/replay:"),
    ("views/play.py", "Play", ":material/sports_esports:"),
    ("views/system.py", "System", ":material/monitor_heart:"),
)


def sidebar(services: Services) -> None:
    """The frame's status lines: bus connection, boards and engine workers online."""
    feed = services.feed
    with st.sidebar:
        if not feed.has_bus:
            st.caption("Bus: none (--no-bus)")
            return
        broker = services.config.broker_address
        st.caption(f"Bus: {'connected' if feed.connected() else 'connecting…'} ({broker})")
        boards = sum(p.online for p in feed.presence("board"))
        engines = sum(p.online for p in feed.presence("engine"))
        st.caption(f"Boards online: {boards} · engine workers online: {engines}")


def main(argv: list[str]) -> None:
    st.set_page_config(page_title="Go Learning Buddy", page_icon=":material/grid_on:", layout="wide")
    try:
        config = from_args(argv)
    except ConfigError as exc:
        st.error(f"The dashboard cannot start: {exc}")
        st.stop()
    try:
        services = services_for(config)
    except Exception as exc:  # a database that cannot be opened or migrated: say which and why
        st.error(f"The dashboard cannot open its database {config.db_url}: {type(exc).__name__}: {exc}")
        st.stop()
    set_current(services)
    pages = [st.Page(path, title=title, icon=icon, url_path=title.lower(), default=index == 0)
             for index, (path, title, icon) in enumerate(PAGES)]
    page = st.navigation(pages)
    sidebar(services)
    page.run()


if __name__ == "__main__":
    main(sys.argv[1:])
