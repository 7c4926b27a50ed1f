"""Sign-in for the dashboard: the form, the first-user help, the sidebar line, and the
role checks that pages make, on the server, before every write.

``dashboard/app.py`` calls ``gate`` on every run before any page: with sign-in off it
acts as ``admin`` (the loopback dashboard as it always was); with sign-in on it either
returns the signed-in ``Identity`` or draws the sign-in form (or, with no account yet,
how to make the first one) and stops the run; a link opened signed out (``/users``, a
Replay's ``?game=...``) opens its page once the user has signed in. Who signed in is kept in the browser
session's server-side state only (no cookie: a reload or a new tab signs in again).

Pages ask ``require(action)`` (draws the refusal) or ``refusal(action)`` (returns it,
for button callbacks) right before they act. Both read the account again from the
database, so a user removed, demoted or given a new password loses the right at their
next click, not at their next sign-in. Hiding a button is only a courtesy on top.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

import streamlit as st
from sqlalchemy.engine import make_url

from dashboard.access import Identity
from dashboard.store import Store
from dashboard.store.users import authenticate, count_users, get_user
from dashboard.views.page_context import current

SIGNED_IN = "gobuddy_signed_in"
IDENTITY = "gobuddy_identity"
NOTICE = "gobuddy_login_notice"


@dataclass(frozen=True)
class SignedIn:
    """A session's sign-in: the account and its ``password_changed_at`` at that time."""

    name: str
    since: datetime


def _account(store: Store) -> Identity | None:
    """The signed-in account as it is in the database now; None (and signed out) when
    it was removed or its password changed since."""
    signed: SignedIn | None = st.session_state.get(SIGNED_IN)
    if signed is None:
        return None
    user = get_user(store, signed.name)
    if user is None or user.password_changed_at != signed.since:
        st.session_state.pop(SIGNED_IN, None)
        st.session_state[NOTICE] = "You were signed out: your account was removed or its password changed."
        return None
    return Identity(user.name, user.role, signed_in=True)


def gate(store: Store, db_url: str, required: bool, pages: Callable[[], list[Any]]) -> Identity:
    """This run's identity; with sign-in ``required`` and nobody signed in, draw the
    sign-in page and stop the run.

    ``pages``: every page of the app (``st.Page``s). Before the sign-in page is drawn
    they are handed to ``st.navigation``, hidden (no menu), so that the page the link
    asked for (its path and query) is the run's page: signing in reruns that page, and
    the signed-in user's navigation opens it (or the default page when the account may
    not see it). Only this app's pages can be opened so; nothing is read from any other
    URL."""
    if not required:
        identity = Identity(None, "admin", signed_in=False)
    else:
        found = _account(store)
        if found is None:
            st.session_state.pop(IDENTITY, None)
            st.navigation(pages(), position="hidden")
            with st.columns([1, 2, 1])[1]:  # a narrow column in the middle of the wide layout
                if count_users(store) == 0:
                    first_user_help(db_url)
                else:
                    sign_in_form(store)
            st.stop()
        identity = found
    st.session_state[IDENTITY] = identity
    return identity


def first_user_help(db_url: str) -> None:
    """What to do when sign-in is on and no account exists (no form: nobody could pass)."""
    st.title("Sign in")
    st.warning("This dashboard asks everyone to sign in, but no user exists yet.", icon=":material/person_off:")
    st.markdown("On the machine that runs the dashboard, make the first user, an admin, with the same "
                "database; it asks for the password twice. Then reload this page.")
    url = make_url(db_url).render_as_string(hide_password=True)
    st.code(f"python -m dashboard.users add NAME --role admin --db '{url}'", language="bash", wrap_lines=True)
    st.caption("More users: the same command with --role player (plays, asks the engine, imports and downloads "
               "SGF) or --role viewer (looks only). `python -m dashboard.users --help` lists the other commands.")


def sign_in_form(store: Store) -> None:
    st.title("Sign in")
    st.caption("Go Learning Buddy dashboard")
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.info(notice)
    with st.form("login", clear_on_submit=True):
        name = st.text_input("User name", max_chars=32, key="login_name", autocomplete="username")
        password = st.text_input("Password", type="password", max_chars=200, key="login_password",
                                 autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary", icon=":material/login:")
    if not submitted:
        return
    outcome = authenticate(store, name or "", password or "")
    if outcome.user is not None:
        st.session_state[SIGNED_IN] = SignedIn(outcome.user.name, outcome.user.password_changed_at)
        st.rerun()
    if outcome.locked_until is not None:
        wait = max(1, int((outcome.locked_until - datetime.now(timezone.utc)).total_seconds()) + 1)
        st.error(f"Too many wrong passwords for this name: try again in {wait} s.")
    else:
        st.error("Wrong user name or password.")
    st.caption("Forgot your password? An admin sets a new one on the server with "
               "`python -m dashboard.users set-password NAME`.")


def sign_out() -> None:
    """Button callback: forget everything of this browser session (games, choices)."""
    for key in list(st.session_state):
        del st.session_state[key]
    st.session_state[NOTICE] = "You are signed out."


def sidebar(identity: Identity) -> None:
    """Who is signed in, with the role, and the sign-out button."""
    with st.sidebar:
        if not identity.signed_in:
            st.caption("Sign-in: off (serving on loopback only)")
            return
        st.caption(f"Signed in as **{identity.name}** · {identity.role}")
        st.button("Sign out", key="logout", on_click=sign_out, icon=":material/logout:")


def refusal(action: str) -> str | None:
    """None when this session may do ``action`` now (the account is read again);
    otherwise why not. A session that passed no gate may do nothing."""
    identity: Identity | None = st.session_state.get(IDENTITY)
    if identity is None:
        return "Sign in first."
    if identity.signed_in:
        identity = _account(current().store)
        if identity is None:
            return "You were signed out: your account was removed or its password changed. Reload to sign in."
    return identity.refusal(action)


def require(action: str) -> bool:
    """``refusal`` drawn as an error; True when allowed."""
    why = refusal(action)
    if why:
        st.error(why, icon=":material/lock:")
        return False
    return True


def user_name() -> str:
    """Who acts in this run: the signed-in user's name, or ``dashboard`` when sign-in is off."""
    identity: Identity | None = st.session_state.get(IDENTITY)
    return (identity.name if identity is not None else None) or "dashboard"


def can(action: str) -> bool:
    """Whether to offer ``action`` in this run (from the gate's identity; for showing
    buttons only: act after ``require``)."""
    identity: Identity | None = st.session_state.get(IDENTITY)
    return identity is not None and identity.can(action)
