"""The Play page's teacher without a browser (``views/play_teach``, ``PlayGame.take_back``):
the switch's default by level, the judge request (the position before the move, the
move and the game's level), a verdict only for a mistake on the player's last move
and its ``teaching`` event, and a taken-back move undone over the wire and kept as a
variation."""

from __future__ import annotations

import copy

import pytest

from dashboard.config import DashboardConfig
from dashboard.views.page_context import Services
from dashboard.views.play_game import PlayGame
from dashboard.views.play_teach import Verdict, judge_request, teaches_by_default, wants_judgement
from gobuddy.ai.levels import level_names
from gobuddy.bus.messages import EngineAnswer, Judge, Teaching, Undone, decode
from gobuddy.bus.validation import examples, validate
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.game import TakenBack


@pytest.mark.parametrize("level, on", [("30 kyu", True), ("25 kyu", True), ("20 kyu", True), ("15 kyu", True),
                                       ("10 kyu", False), ("7 kyu", False), ("2 kyu", False), ("full", False)])
def test_teach_me_is_on_by_default_below_10_kyu(level, on) -> None:
    assert level in level_names() and teaches_by_default(level) is on


def game_after(*vertices: str, teach: bool = True, level: str = "25 kyu") -> PlayGame:
    game = PlayGame.new("web-1", level=level, seed=3, player_name="Ana", teach=teach)
    game.start()
    for vertex in vertices:
        game.play(vertex)
    return game


def test_the_judge_request_is_the_position_before_the_move() -> None:
    game = game_after("E5", "C4", "J1")
    assert wants_judgement(game)
    request = judge_request(Services(DashboardConfig(analysis_visits=300), None, None), game)  # type: ignore[arg-type]
    validate("engine_request", request.to_dict())
    assert request.purpose == "analysis" and request.board_id == "web-1" and request.max_visits == 300
    assert request.position.moves == (("B", "E5"), ("W", "C4")) and request.position.to_play == "B"
    assert request.judge == Judge(move="J1", level="25 kyu")


@pytest.mark.parametrize("vertices, teach, judged", [
    (("E5",), True, True),
    (("E5",), False, False),       # the switch is off
    (("E5", "C4"), True, False),   # the last move is the engine's
    ((), True, False),
])
def test_which_moves_are_judged(vertices, teach, judged) -> None:
    assert wants_judgement(game_after(*vertices, teach=teach)) is judged


def judged_answer(move: str, color: str, mistake: bool, points_lost: float | None = 11.3) -> EngineAnswer:
    data = copy.deepcopy(next(e for e in examples("engine_answer") if e.get("judgement") is not None))
    data["judgement"].update(move=move, color=color, mistake=mistake, points_lost=points_lost)
    return decode("engine_answer", data)  # type: ignore[return-value]


def test_a_verdict_only_for_a_mistake_on_the_players_last_move() -> None:
    game = game_after("E5", "C4", "J1")
    verdict = Verdict.of(game, judged_answer("J1", "B", True))
    assert verdict is not None and (verdict.number, verdict.vertex, verdict.better) == (3, "J1", "C5")
    assert verdict.loss_words() == "loses about 11.3 points" and verdict.fits(game)
    [kept] = verdict.event(game, "kept")
    validate("game_event", kept.to_dict())
    assert isinstance(kept, Teaching) and kept.seq == 4 and (kept.move_number, kept.color, kept.vertex) == (3, "B", "J1")
    assert (kept.verdict, kept.points_lost, kept.winrate_lost, kept.better, kept.level) == (
        "kept", 11.3, 0.27, "C5", "25 kyu")
    assert Verdict.of(game, judged_answer("J1", "B", False)) is None          # no mistake
    assert Verdict.of(game, judged_answer("A1", "B", True)) is None           # another move
    assert Verdict.of(game, judged_answer("J1", "B", True, None)).loss_words() == \
        "loses about 27% of your chances to win"                               # no score head


def test_take_back_undoes_over_the_wire_and_keeps_the_variation() -> None:
    game = game_after("E5", "C4", "J1")
    events = game.take_back(11.3, "C5")
    assert len(events) == 1 and isinstance(events[0], Undone)
    assert (events[0].move_number, events[0].color, events[0].vertex, events[0].seq) == (3, "B", "J1", 4)
    validate("game_event", events[0].to_dict())
    assert game.moves == [("B", "E5"), ("W", "C4")] and game.to_play == "B"
    assert game.game.variations == [TakenBack(3, BLACK, from_gtp("J1", 9), 11.3, from_gtp("C5", 9))]
    game.play("C5")
    with pytest.raises(ValueError, match="not yours"):
        game_after("E5", "C4").take_back(1.0, "D4")
