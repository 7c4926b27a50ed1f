"""The referee: one game between scripted engines, every way a game can end."""

from __future__ import annotations

import re
import threading

import pytest

from tests.training.conftest import GNUGO, needs_gnugo
from training.gtp_client import GtpClient
from training.gtp_game import GameRules, parse_score, play_game, settle

RULES = GameRules(size=5, komi=0.5, move_timeout=2.0, score_timeout=2.0)


def play(scripted, black: dict, white: dict, rules: GameRules = RULES, opening=()):
    with GtpClient(scripted("black", **black), name="black") as b, \
            GtpClient(scripted("white", **white), name="white") as w:
        return play_game(b, w, rules, opening=opening)


@pytest.mark.parametrize("text, margin", [
    ("B+3.5", 3.5), ("W+7", -7.0), ("w+0.5", -0.5), ("0", 0.0), ("B+R", None), ("", None), ("?", None),
])
def test_parse_score(text, margin):
    assert parse_score(text) == margin


# Black walls off the left two columns; white takes the rest; both pass.
WALL_B = ["B5", "B4", "B3", "B2", "B1"]
WALL_W = ["C5", "C4", "C3", "C2", "C1"]


@pytest.mark.parametrize("black, white, result, reason, winner, note", [
    # Ended by passes and counted: black 10, white 15 + 0.5 komi.
    ({"genmove": WALL_B}, {"genmove": WALL_W}, "W+5.5", "score", "W", None),
    ({"genmove": ["resign"]}, {}, "W+R", "resign", "W", "B resigned"),
    ({"genmove": ["C3"]}, {"genmove": ["C3"]}, "B+F", "forfeit", "B", "W played C3: illegal \\(occupied\\)"),
    ({"genmove": ["Z9"]}, {}, "W+F", "forfeit", "W", "answered genmove with 'Z9'"),
    ({"genmove": ["C3"], "hang_on": "genmove"}, {}, "W+T", "timeout", "W", "no answer"),
    ({"genmove": ["C3"]}, {"exit_on": "genmove"}, "B+F", "forfeit", "B", "exited"),
    ({"genmove": ["C3"]}, {"refuse_play": ["C3"]}, "Void", "void", None, "rules disagreement"),
])
def test_how_games_end(scripted, black, white, result, reason, winner, note):
    game = play(scripted, black, white)
    assert (game.result, game.reason, game.winner) == (result, reason, winner)
    if note:
        assert any(re.search(note, n) for n in game.notes), game.notes


def test_a_scored_game_has_ownership_and_times(scripted):
    game = play(scripted, {"genmove": WALL_B}, {"genmove": WALL_W})
    assert game.moves == [m for pair in zip(WALL_B, WALL_W) for m in pair] + ["pass", "pass"]
    assert game.margin == -5.5 and game.dead == [] and game.dead_source == "none"
    rows = ["".join(".XO"[v] for v in game.ownership[r * 5:(r + 1) * 5]) for r in range(5)]
    assert rows == ["XXOOO"] * 5
    assert len(game.move_seconds["B"]) == 6 and len(game.move_seconds["W"]) == 6


# A white stone left inside black's area at A3: dead or alive decides the game.
INVADER_B = WALL_B
INVADER_W = ["A3", "C5", "C4", "C3", "C2", "C1"]


@pytest.mark.parametrize("black_dead, white_dead, scores, result, source, disagree", [
    ("A3", "A3", ("W+5.5", "W+5.5"), "W+5.5", "agreed", False),
    # Black's list reproduces the score both engines give: it is used.
    ("A3", "", ("W+5.5", "W+5.5"), "W+5.5", "B-engine", True),
    # Scores differ too: only stones both call dead are lifted (none). A3 lives and
    # A1-A2, A4-A5 touch both colours: black 5, white 16 + komi.
    ("A3", "", ("W+5.5", "W+11.5"), "W+11.5", "intersection", True),
    (None, "A3", (None, None), "W+5.5", "W-engine", False),
])
def test_dead_stones_from_the_engines(scripted, black_dead, white_dead, scores, result, source, disagree):
    black = {"genmove": INVADER_B + ["pass"], "final_status_list": black_dead, "final_score": scores[0]}
    white = {"genmove": INVADER_W, "final_status_list": white_dead, "final_score": scores[1]}
    game = play(scripted, black, white, opening=())
    assert (game.result, game.dead_source) == (result, source)
    assert any("disagree on dead stones" in n for n in game.notes) == disagree


@pytest.mark.parametrize("cleanup, moves_after, result, source", [
    # Black says A3 is dead, white's score counts it alive. Played out: black captures
    # it (A4, A2) while white passes, and both engines then agree: black 10, white 15.
    (True, ["pass", "pass", "A4", "pass", "A2", "pass", "pass"], "W+5.5", "agreed"),
    # Without the cleanup only stones both call dead are lifted: A3 lives.
    (False, ["pass", "pass"], "W+11.5", "intersection"),
])
def test_a_disputed_end_is_played_out_with_cleanup_moves(scripted, cleanup, moves_after, result, source):
    black = {"genmove": INVADER_B + ["pass"], "kgs-genmove_cleanup": ["A4", "A2"],
             "final_status_list": ["A3", ""], "final_score": ["W+5.5"]}
    white = {"genmove": INVADER_W, "final_status_list": [""], "final_score": ["W+11.5", "W+5.5"]}
    rules = GameRules(size=5, komi=0.5, move_timeout=2.0, score_timeout=2.0, cleanup=cleanup)
    game = play(scripted, black, white, rules)
    assert game.moves[2 * len(INVADER_W):] == moves_after
    assert (game.result, game.reason, game.dead_source) == (result, "score", source)
    played_out = [n for n in game.notes if "kgs-genmove_cleanup" in n]
    assert played_out == ([f"engines' final_score differ ({{'B': 'W+5.5', 'W': 'W+11.5'}}) after move 14: both "
                           f"played on with kgs-genmove_cleanup until two passes"] if cleanup else [])


def test_move_cap_scores_the_game_as_it_stands(scripted):
    game = play(scripted, {"genmove": WALL_B}, {"genmove": WALL_W}, GameRules(size=5, komi=0.5, max_moves=4))
    assert game.reason == "move_cap" and game.moves == ["B5", "C5", "B4", "C4"]


def test_opening_is_played_on_both_and_checked(scripted):
    game = play(scripted, {"genmove": ["B4"]}, {"genmove": ["D4"]}, opening=["C3", "D3"])
    assert game.moves[:4] == ["C3", "D3", "B4", "D4"] and game.opening == 2
    with pytest.raises(ValueError, match="opening move 2 \\(C3\\) is illegal: occupied"):
        play(scripted, {}, {}, opening=["C3", "C3"])


def test_takeover_plays_on_for_the_side_that_resigned(scripted):
    with GtpClient(scripted("black", genmove=["B5", "resign"]), name="black") as b, \
            GtpClient(scripted("white", genmove=WALL_W)) as w, \
            GtpClient(scripted("stand-in", genmove=["B4", "B3", "B2", "B1"]), name="stand-in") as stand_in:
        game = play_game(b, w, RULES, takeover=lambda colour: stand_in)
    assert game.substitute_from == 2 and game.result == "W+5.5" and game.reason == "score"
    assert "B (black) resigned after 2 moves; stand-in played on for B" in game.notes


@needs_gnugo
def test_settle_plays_out_an_early_end_with_gnugo(scripted):
    rules = GameRules(size=5, komi=0.5, move_timeout=10, score_timeout=10)
    with GtpClient(scripted("black", genmove=["B3"])) as b, GtpClient(scripted("white", genmove=["D3"])) as w:
        early = play_game(b, w, rules)
    assert early.moves == ["B3", "D3", "pass", "pass"] and early.unsettled()  # all 23 empty points neutral
    with GtpClient([GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead"]) as finisher:
        settled = settle(early, finisher, rules)
    assert settled.moves[:2] == ["B3", "D3"] and settled.substitute_from == 2
    assert settled.moves[-2:] == ["pass", "pass"] and len(settled.moves) > 4
    assert not settled.unsettled()
    assert settled.ownership.count(0) <= 4 and settled.winner is not None


def test_a_stopped_game_ends_before_the_next_move(scripted):
    stop = threading.Event()
    stop.set()
    with GtpClient(scripted("black", genmove=WALL_B)) as b, GtpClient(scripted("white")) as w:
        game = play_game(b, w, RULES, opening=["C3"], stop=stop)
    assert (game.reason, game.result, game.moves) == ("stopped", "Void", ["C3"])
