"""Sign-in in a real browser: ``streamlit run dashboard/app.py -- --auth on`` on
127.0.0.1 (tests never listen beyond loopback; what ``auto`` and ``off`` do beyond it
is tested without listening, in ``tests/dashboard/test_app_auth.py``) and Debian's
Chromium. The sign-in form shows, a wrong password is refused, a viewer sees no delete
button, an admin deletes a game. Saves ``artifacts/screenshots/login.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from dashboard.store import Store
from dashboard.store.users import add_user
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium, screenshot, wait_idle

SGF = "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ana]PW[Ben]GN[Lesson one];B[ee];W[cc];B[gc])"
PASSWORDS = {"ana": "ana-password", "vic": "vic-password"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Store, Any]]:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    tmp: Path = tmp_path_factory.mktemp("e2e-auth")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    add_user(store, "ana", PASSWORDS["ana"], "admin", rounds=4)
    add_user(store, "vic", PASSWORDS["vic"], "viewer", rounds=4)
    try:
        with StreamlitServer(dashboard_args(url, None, "--auth", "on"), log_path=tmp / "streamlit.log") as server, \
                chromium() as browser:
            yield server, store, browser
    finally:
        store.close()


@pytest.fixture
def page(served: tuple[StreamlitServer, Store, Any]) -> Iterator[Any]:
    context = served[2].new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(served[0].url(""))
    page.get_by_role("heading", name="Sign in").wait_for(timeout=60_000)
    yield page
    context.close()


def sign_in(page: Any, name: str, password: str) -> None:
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def open_games(page: Any) -> None:
    """Through the sidebar (a reload would be a new session, signed out)."""
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Games").click()  # "Games" is in no other title
    page.get_by_role("heading", name="Games").wait_for()
    wait_idle(page)


def test_the_sign_in_form_shows_and_refuses_a_wrong_password(page):
    page.get_by_label("User name").wait_for()
    page.get_by_label("Password", exact=True).wait_for()
    wait_idle(page)
    assert page.locator('[data-testid="stSidebarNavLink"]').count() == 0  # no page before signing in
    screenshot(page, "login")
    sign_in(page, "ana", "not-her-password")
    page.get_by_text("Wrong user name or password.").wait_for()
    assert page.get_by_role("heading", name="Sign in").is_visible()


def test_a_viewer_sees_no_delete_button(served, page):
    served[1].import_sgf(SGF)
    sign_in(page, "vic", PASSWORDS["vic"])
    page.get_by_role("heading", name="Live").wait_for()
    page.get_by_text("Signed in as").wait_for()
    assert "vic" in page.locator('[data-testid="stSidebar"]').inner_text()
    links = page.locator('[data-testid="stSidebarNavLink"]').all_inner_texts()
    assert [text.split()[-1] for text in links] == ["Live", "Games", "Replay", "Player", "System"], links  # no Play
    open_games(page)
    page.get_by_text("Renaming and deleting games needs the admin role.").wait_for()
    assert page.get_by_role("button", name="Delete game").count() == 0
    assert page.get_by_text("Yes, delete this game for good").count() == 0
    page.get_by_role("button", name="Sign out").click()
    page.get_by_text("You are signed out.").wait_for()


def test_an_admin_deletes_a_game(served, page):
    store = served[1]
    if not store.list_games().total:
        store.import_sgf(SGF)
    sign_in(page, "ana", PASSWORDS["ana"])
    page.get_by_role("heading", name="Live").wait_for()
    open_games(page)
    page.get_by_text("Yes, delete this game for good").click()
    wait_idle(page)
    page.get_by_role("button", name="Delete game").click()
    page.get_by_text("No stored game matches").wait_for()
    assert store.list_games().total == 0
