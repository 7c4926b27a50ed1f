"""The new-game form's komi follows the handicap unless the user typed one (AppTest,
real Mosquitto and the stand-in engine worker)."""

from __future__ import annotations

import pytest

from dashboard.views.play_new import default_komi
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions, open_app,  # noqa: F401
                                services, stand_in_worker)

# handicap chosen, komi typed (None: left empty), the game's komi
ROWS = [
    (0, None, 7.0),
    (2, None, 0.5),
    (9, None, 0.5),
    (2, 7.0, 7.0),   # typed: stays, even with handicap stones
    (0, 5.5, 5.5),
    (3, 0.0, 0.0),   # a typed zero is a komi, not "empty"
]


@pytest.mark.parametrize("handicap, expected", [(0, 7.0), (1, 7.0), (2, 0.5), (9, 0.5)])
def test_the_usual_komi(handicap, expected):
    assert default_komi(handicap) == expected


def test_the_forms_komi_follows_the_handicap(open_app, app_broker, stand_in_worker):
    at = open_app("views/play.py", app_broker)
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    got = []
    for handicap, typed, _ in ROWS:
        at.selectbox(key="play_handicap").set_value(handicap)
        at.number_input(key="play_komi").set_value(typed)
        at.button(key="FormSubmitter:play_new-Start the game").click().run(timeout=60)
        no_exceptions(at)
        game = at.session_state["play_game"]
        got.append((game.handicap, typed, game.komi))
        at.button(key="play_new_game").click().run(timeout=60)
    assert got == ROWS
