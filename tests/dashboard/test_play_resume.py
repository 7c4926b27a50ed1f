"""Which unfinished game comes back after a reload, and the ``PlayGame`` rebuilt from
its record: tables on the real store (SQLite and PostgreSQL), games written as wire
events the way the Play page sends them."""

from __future__ import annotations

import pytest

from dashboard.views.play_resume import resumed, unfinished_game
from tests.dashboard.conftest import T0, WireGame, send

GAMES = [  # id, board, (black, white), mode, ended, minutes after T0
    ("g-board", "board-1", ("pia", "gobuddy 5 kyu"), "vs_engine", False, 9),  # a physical board's
    ("g-two", "web-2", ("pia", "Ben"), "two_players", False, 8),
    ("g-done", "web-1", ("pia", "gobuddy 5 kyu"), "vs_engine", True, 7),
    ("g-pia", "web-1", ("pia", "gobuddy 5 kyu"), "vs_engine", False, 1),
    ("g-piano", "web-3", ("piano", "gobuddy full"), "vs_engine", False, 2),
    ("g-ana", "web-4", ("gobuddy 10 kyu", "ana"), "vs_engine", False, 3),
]

ASKED = [  # whose games may come back (None: nobody signed in, the one local user), the game
    ("pia", "g-pia"),
    ("PIA", "g-pia"),
    ("piano", "g-piano"),  # and "pia" does not get piano's
    ("ana", "g-ana"),  # the human plays white
    ("vic", None),
    (None, "g-ana"),  # the newest
]


@pytest.fixture
def games(store):
    for game_id, board, players, mode, ended, minutes in GAMES:
        g = WireGame(game_id, board_id=board, players=players, mode=mode, t0=T0 + minutes * 60_000)
        g.play("E5 C3")
        send(store, *g.events, *([g.end("?")] if ended else []))
    return store


@pytest.mark.parametrize("name, expected", ASKED)
def test_whose_unfinished_game_comes_back(games, name, expected):
    found = unfinished_game(games, name)
    assert (found.id if found else None) == expected


def test_the_game_is_rebuilt_from_its_record(games):
    game = resumed(games, unfinished_game(games, "ana"))
    assert (game.game_id, game.board_id, game.human, game.level, game.player_name) == \
           ("g-ana", "web-4", "W", "10 kyu", "ana")
    assert game.moves == [("B", "E5"), ("W", "C3")] and game.to_play == "B" and game.engine_to_play
    assert game.seq == 2  # the next event is seq 3: after the stored ones
    assert game.play("D4")[0].seq == 3


# the learner (black) against "gobuddy 30 kyu" ("Teach me" on by default there), or
# against "gobuddy 5 kyu" (off); the moves recorded; the teacher's notes recorded
# (move, colour, vertex, decision); whether the last move is judged again on the reload
REJUDGED = [
    ("30 kyu", "E5 C3 pass", [], True),                                      # a stop open, or its judgement on the way
    ("30 kyu", "E5 C3 pass", [(3, "B", "pass", "kept")], False),             # kept: decided, the engine is to reply
    ("30 kyu", "E5 C3 D4", [(3, "B", "pass", "taken_back")], True),          # the retry after a take-back
    ("30 kyu", "E5 C3 pass", [(3, "B", "pass", "taken_back")], True),        # the same move again, not yet decided
    ("30 kyu", "E5 C3", [], False),                                          # the last move is the engine's
    ("5 kyu", "E5 C3 pass", [], False),                                      # no teacher at this level
]


@pytest.mark.parametrize("level, moves, notes, judged", REJUDGED)
def test_a_move_the_teacher_had_not_settled_is_judged_again_after_the_reload(store, level, moves, notes, judged):
    from dashboard.views.play_resume import rejudge

    g = WireGame("g-teach", board_id="web-1", players=("pia", f"gobuddy {level}"), mode="vs_engine")
    g.play(moves)
    send(store, *g.events)
    for number, color, vertex, decision in notes:
        store.note_teaching("g-teach", number, color, vertex, decision, points_lost=12.0, better="D4", level=level)
    game = resumed(store, unfinished_game(store, "pia"))
    assert rejudge(store, game) is judged
