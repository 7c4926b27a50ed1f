"""The main line as the Replay page's browser board gets it (``replay_frames``): one entry
per position, the same stones, marks and candidates the server's board draws. (That
the browser draws from it what ``board_svg`` draws: tests/e2e/test_replay_stepping_browser.py.)"""

from __future__ import annotations

import json

import pytest

from dashboard.board_svg import board_svg
from dashboard.mistakes import review_game
from dashboard.views.move_list import board_marks
from dashboard.views.replay_frames import base_inside, frames, move_marks, stones_text
from gobuddy.go.game import Game, Ruleset

# 5x5: black's A1 (move 3) sits in atari beside white's B1; after a pass white's A2 captures it
MOVES = [("B", "B2"), ("W", "B1"), ("B", "A1"), ("W", "C1"), ("B", "pass"), ("W", "A2")]


def answer(n: int, to_play: str, winrate_black: float, ownership: list[float] | None = None) -> dict:
    mine = winrate_black if to_play == "B" else 1 - winrate_black
    return {"to_play": to_play, "root": {"visits": 10, "winrate_black": winrate_black, "score_lead": None},
            "moves": [{"move": v, "order": i, "visits": 5 - i, "winrate": mine - 0.01 * i, "winrate_black": winrate_black,
                       "score_lead": None, "prior": 0.5, "pv": [v, "E5"][: 2 - i]}
                      for i, v in enumerate(["D4", "E1"])],
            "ownership": ownership}


def replayed(moves: list[tuple[str, str]]) -> Game:
    return Game.from_gtp(5, Ruleset("chinese", 7.0), "B", (), moves)


@pytest.fixture
def made() -> tuple[dict, dict]:
    game = replayed(MOVES)
    numbered = [(i + 1, c, v) for i, (c, v) in enumerate(MOVES)]
    winrates = [0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1]  # black's A1 (move 3) throws 40% away
    answers = {n: answer(n, "B" if n % 2 == 0 else "W", w, [0.5] * 25 if n == 1 else None)
               for n, w in enumerate(winrates)}
    review = review_game(numbered, answers)
    data = frames(game, numbered, answers, review, px=300, ownership=True, problems={2: ["C3"]},
                  reasons={2: ["D4", "A1"]})
    return data, {"game": game, "review": review, "answers": answers}


@pytest.mark.parametrize("n, stones, last_move", [  # rows from the top (5) down to 1
    (0, "....." "....." "....." "....." ".....", None),
    (1, "....." "....." "....." ".x..." ".....", "B2"),
    (3, "....." "....." "....." ".x..." "xo...", "A1"),
    (5, "....." "....." "....." ".x..." "xoo..", None),  # a pass: no last-move mark
    (6, "....." "....." "....." "ox..." ".oo..", "A2"),  # A1 captured
])
def test_each_position_has_its_stones_and_last_move(made, n, stones, last_move):
    data, held = made
    assert data["stones"][n] == stones == stones_text(held["game"].position_at(n).board)
    assert data["lastMove"][n] == last_move


def test_candidates_lines_ownership_problems_and_reasons_per_position(made):
    data, _ = made
    assert data["last"] == 6 and len(data["recs"]) == 7
    assert data["recs"][0] == [["D4", 1, 50], ["E1", 2, 49]]  # rank and the mover's win rate in percent
    assert data["recs"][3] == [["D4", 1, 90], ["E1", 2, 89]]  # white to move: white's
    assert data["lines"][0] == {"D4": ["D4", "E5"], "E1": ["E1"]} and data["toPlay"][:2] == ["B", "W"]
    assert data["owner"][1] == [50] * 25 and data["owner"][0] is None
    assert data["problems"][2] == ["C3"] and data["problems"][3] == []
    assert data["reasons"][2] == ["D4", "A1"] and data["reasons"][1] == []
    json.dumps(data)  # plain JSON: what the component gets


def test_mistake_marks_are_those_of_the_servers_board(made):
    data, held = made
    assert move_marks(held["review"], 6) == data["marks"]
    assert data["marks"][2] is not None and data["marks"][0] is None  # black's A1, move 3
    for n in range(7):  # the browser derives a position's marks as board_marks does
        derived: dict[str, str] = {}
        for m in range(1, n + 1):
            vertex = data["lastMove"][m]
            if vertex is None:
                continue
            if data["marks"][m - 1]:
                derived[vertex] = data["marks"][m - 1]
            else:
                derived.pop(vertex, None)
        assert derived == board_marks(held["review"], n), n


def test_the_base_is_the_empty_board_of_board_svg():
    inside = base_inside(9, 520)
    whole = board_svg(9, [0] * 81, px=520, hover_style=False)
    assert whole.endswith(inside + "</svg>") and "<circle class=\"stone" not in inside
    assert inside.count('class="coord"') == 36 and "<defs>" in inside


def test_without_ownership_asked_none_is_sent(made):
    _, held = made
    numbered = [(i + 1, c, v) for i, (c, v) in enumerate(MOVES)]
    data = frames(held["game"], numbered, held["answers"], held["review"])
    assert data["owner"] == [None] * 7 and data["px"] == 520
