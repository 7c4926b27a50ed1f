"""Signing in keeps the page asked for, in a real browser (``--auth on`` on 127.0.0.1,
Debian's Chromium): a link to /users, or to a Replay of one game at one move
(``?game=...&move=...``), opened while signed out, shows the sign-in form and then,
once signed in, that page with its query; a page the account may not see opens Live."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.e2e.harness import StreamlitServer, wait_idle
from tests.e2e.test_dashboard_auth_e2e import PASSWORDS, served, sign_in  # noqa: F401 (served: a fixture)

SGF = "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ana]PW[Ben]GN[Deep link];B[ee];W[cc];B[gc];W[gg])"


@pytest.fixture(scope="module")
def game_id(served) -> str:  # noqa: F811
    """A stored game for the Replay link (served's database is this module's own)."""
    (game,) = served[1].import_sgf(SGF)
    return game


def signed_in_at(served: tuple[StreamlitServer, Any, Any], link: str, name: str) -> Any:
    """A new browser session opened at ``link``, signed in as ``name`` from the form it shows."""
    context = served[2].new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(served[0].url(link))
    page.get_by_role("heading", name="Sign in").wait_for(timeout=60_000)
    sign_in(page, name, PASSWORDS[name])
    page.get_by_text("Signed in as").wait_for()
    wait_idle(page)
    return page


@pytest.mark.parametrize("link, name, heading, path, query", [
    ("users", "ana", "Users", "/users", {}),
    ("replay?game={game}&move=3", "vic", "Replay", "/replay", {"game": ["{game}"], "move": ["3"]}),
    ("games", "vic", "Games", "/games", {}),
    ("users", "vic", "Live", "/", {}),  # not a viewer's page
])
def test_signing_in_opens_the_page_asked_for(served, game_id, link, name, heading, path, query):  # noqa: F811
    page = signed_in_at(served, link.format(game=game_id), name)
    try:
        page.get_by_role("heading", name=heading, exact=True).wait_for()
        address = urlsplit(page.url)
        assert address.path == path
        assert parse_qs(address.query) == {k: [v.format(game=game_id) for v in vs] for k, vs in query.items()}
        if heading == "Replay":
            page.get_by_text("Deep link").first.wait_for()
    finally:
        page.context.close()
