"""The Go Learning Buddy dashboard: the one entry file, router and frame of every page.

    streamlit run dashboard/app.py --server.headless true -- \\
        --db sqlite:///var/gobuddy.db --broker-host 127.0.0.1 --broker-port 1883 \\
        --username dashboard --password-file var/broker/secrets/dashboard.password

Arguments after ``--`` build the ``DashboardConfig`` (``dashboard.config``; ``--help``
lists them). Each run: read the config, decide whether pages ask for a sign-in
(``--auth``, ``dashboard.access``, from the address Streamlit serves on; ``--auth off``
beyond loopback stops here with an error), take the process-wide services (store and
live feed, ``st.cache_resource``), pass the sign-in gate (``views/login.py``: the form
until someone signs in), draw the frame (who is signed in; the bus status in the
sidebar, drawn again every few seconds) and run the page chosen in the navigation
(Play only for players and admins, Users only for admins):

| page   | file                 | reads                                   |
|--------|----------------------|-----------------------------------------|
| Live   | ``views/live.py``    | the live feed (memory), engine via bus  |
| Games  | ``views/games.py``   | the database                            |
| Replay | ``views/replay.py``  | the database, engine via bus            |
| Player | ``views/player.py``  | the database (games, reviews, players)  |
| Play   | ``views/play.py``    | the live feed; writes game events to the bus |
| System | ``views/system.py``  | the live feed, the database             |
| Users  | ``views/users.py``   | the database's accounts (admins only)   |
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Callable

import streamlit as st
from sqlalchemy.engine import make_url

from dashboard import access
from dashboard.access import AuthRefused
from dashboard.config import ConfigError, from_args
from dashboard.long_lived import freeze_long_lived
from dashboard.views import login
from dashboard.views.page_context import STATUS_SHOWN, Services, bus_status, current, services_for, set_current

FAVICON = Path(__file__).resolve().parent / "static" / "favicon.png"  # served by this server: nothing from outside
PAGES = (  # file, title, icon, the action a user needs to see it
    ("views/live.py", "Live", ":material/sensors:", "view"),
    ("views/games.py", "Games", ":material/list:", "view"),
    ("views/replay.py", "Replay", ":material/replay:", "view"),
    ("views/player.py", "Player", ":material/person:", "view"),
    ("views/play.py", "Play", ":material/sports_esports:", "play"),
    ("views/system.py", "System", ":material/monitor_heart:", "view"),
    ("views/users.py", "Users", ":material/group:", "manage_users"),
)


def page_specs(can: Callable[[str], bool]) -> list[dict[str, Any]]:
    """``st.Page`` arguments of the pages this user may see, in menu order. The first is
    the default, served at the root URL; Streamlit serves a default page at ``/`` only,
    so it comes once more, hidden from the menu, at its own name (``/live`` opens Live,
    not "Page not found")."""
    specs: list[dict[str, Any]] = []
    for path, title, icon, action in PAGES:
        if not can(action):
            continue
        page = dict(page=path, title=title, icon=icon, url_path=title.lower())
        if not specs:  # the default: its url_path only names the page inside Streamlit, the URL is "/"
            specs.append(dict(page, url_path=f"{title.lower()}-home", default=True))
            specs.append(dict(page, visibility="hidden"))
        else:
            specs.append(page)
    return specs


def sidebar(services: Services) -> None:
    """The frame's status lines (``page_context.bus_status``: bus connection, boards and
    engine workers online), in a fragment drawn again every ``--status-interval`` seconds, so they
    follow the live feed rather than stay as the page's first run found them."""
    with st.sidebar:
        if not services.feed.has_bus:
            st.caption(bus_status(services)[0])
            return
        st.fragment(run_every=services.config.status_interval_s)(status_lines)()


def status_lines() -> None:
    """The body of the sidebar's status fragment."""
    lines = bus_status(current())
    for line in lines:
        st.caption(line)
    st.session_state[STATUS_SHOWN] = lines


def sign_in_log() -> logging.Logger:
    """Sign-ins and refusals (``dashboard.auth``: names only, never a password) go to
    standard error with a time stamp; the handler is added once per process."""
    logger = logging.getLogger("dashboard.auth")
    if any(h.name == "gobuddy-sign-in" for h in logger.handlers):
        return logger
    handler = logging.StreamHandler(sys.stderr)
    handler.name = "gobuddy-sign-in"
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return logger


def shown_url(url: str) -> str:
    """A database URL fit for a page: its password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy can read: show none of it
        return "(the --db URL)"


def main(argv: list[str]) -> None:
    st.set_page_config(page_title="Go Learning Buddy", page_icon=str(FAVICON), layout="wide")
    try:
        config = from_args(argv)
    except ConfigError as exc:
        st.error(f"The dashboard cannot start: {exc}")
        st.stop()
    try:
        sign_in = access.sign_in_required(config.auth, st.get_option("server.address"))
    except AuthRefused as exc:
        st.error(f"The dashboard refuses to serve pages: {exc}", icon=":material/lock_open:")
        st.stop()
    try:
        services = services_for(config)
    except Exception as exc:  # a database that cannot be opened or migrated: say which and why
        st.error(f"The dashboard cannot open its database {shown_url(config.db_url)}: {type(exc).__name__}: {exc}")
        st.stop()
    set_current(services)
    freeze_long_lived()  # else Streamlit's collection after every run costs a quarter of a second
    if sign_in:
        sign_in_log()
    identity = login.gate(services.store, config.db_url, sign_in,
                          lambda: [st.Page(**spec) for spec in page_specs(lambda action: True)])
    page = st.navigation([st.Page(**spec) for spec in page_specs(identity.can)])
    login.sidebar(identity)
    sidebar(services)
    page.run()


if __name__ == "__main__":
    main(sys.argv[1:])
