"""GTP time controls: the clock each colour plays on (``engine_worker.gtp_clock``), the
commands that set it, and a search player that keeps within it."""

from __future__ import annotations

import time

import pytest

from engine_worker.gtp_clock import FLOOR, LAG, MIN_MOVES_LEFT, SAFETY, Clock
from engine_worker.gtp_engine import GtpEngine
from engine_worker.gtp_manners import register_player
from gobuddy.ai.evaluator import TrompTaylorEvaluator
from gobuddy.ai.player import PlayerConfig, SearchPlayer
from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.game import Game, Ruleset
from tests.ai.test_player import ask


def reserve(share: float) -> float:
    return max(FLOOR, share * (1 - SAFETY) - LAG)


# (settings main/byo/stones, time_left (seconds, stones) or None, empty points, allowance)
ALLOWANCES = [
    ((0, 1, 0), None, 81, None),  # the default: no time limit
    ((0, 30, 0), (5, 0), 81, None),  # byo-yomi time with no stones: no limit, whatever time_left says
    ((0, 0, 0), None, 81, None),  # no time of any kind: taken as no limit, not as zero seconds
    ((60, 0, 0), None, 81, reserve(60 / 40)),  # sudden death: main over half the empty points
    ((60, 0, 0), None, 9, reserve(60 / MIN_MOVES_LEFT)),  # never spread over fewer than 10 moves
    ((60, 0, 0), (3, 0), 40, reserve(3 / 20)),
    ((60, 0, 0), (0, 0), 40, FLOOR),  # the flag is falling: a move is still made
    ((0, 10, 5), None, 81, reserve(10 / 5)),  # byo-yomi only: a full period
    ((0, 10, 5), (4, 2), 81, reserve(4 / 2)),  # in a period: its seconds over its stones
    ((300, 10, 1), (2, 0), 60, reserve(10)),  # main nearly gone: a byo-yomi stone's share
    ((300, 10, 1), (290, 0), 40, reserve(290 / 20)),  # main time is worth more than a period here
    ((300, 30, 1, 5), (30, 5), 60, reserve(30)),  # Japanese, 5 periods left: each move within one
    ((300, 30, 1, 5), (12, 1), 60, reserve(12)),  # the last period, 12 s of it left
]


@pytest.mark.parametrize("settings, left, empty, expected", ALLOWANCES)
def test_what_the_clock_allows_the_next_move(settings, left, empty, expected):
    clock = Clock(*settings)
    if left is not None:
        clock.set_left(BLACK, *left)
    got = clock.allowance(BLACK, empty)
    assert got == (None if expected is None else pytest.approx(expected))
    assert clock.allowance(WHITE, empty) == (None if expected is None else pytest.approx(
        Clock(*settings).allowance(WHITE, empty)))  # the other colour's clock is its own


# (settings, time_left or None, the moves' seconds, (seconds left, stones left) after them)
RUN_DOWN = [
    ((60, 0, 0), None, [10, 20.5], (29.5, 0)),
    ((60, 0, 0), None, [50, 20], (0.0, 0)),  # sudden death: nothing after main time
    ((60, 30, 5), None, [50, 20], (20.0, 4)),  # main ran out 10 s into the move: the first period
    ((60, 30, 5), (5, 2), [1, 2], (30.0, 5)),  # the period's last stone: a new period starts
    ((0, 30, 5), None, [3, 3], (24.0, 3)),  # byo-yomi only
    ((0, 1, 0), None, [100], None),  # no limit: nothing is counted
]


@pytest.mark.parametrize("settings, left, moves, after", RUN_DOWN)
def test_the_clock_runs_down_by_the_moves_played(settings, left, moves, after):
    clock = Clock(*settings)
    if left is not None:
        clock.set_left(BLACK, *left)
    for seconds in moves:
        clock.spent(BLACK, seconds)
    if after is None:
        assert clock.allowance(BLACK, 81) is None
    else:
        assert clock.state(BLACK) == pytest.approx(after)
    clock.reset()
    assert clock.state(BLACK) == Clock(*settings).state(BLACK)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        Clock(-1, 0, 0)
    with pytest.raises(ValueError):
        Clock(0, 30, 1, -2)
    with pytest.raises(ValueError):
        Clock().set_left(BLACK, 10, -1)


def engine(visits: int = 1_000_000) -> GtpEngine:
    player = SearchPlayer(TrompTaylorEvaluator(7.0), PlayerConfig(visits=visits, seconds=None))
    gtp = GtpEngine(player, Game(5, Ruleset("chinese", 7.0)))
    register_player(gtp, player)
    return gtp


# (command, answer) in order on one engine; the last column: the clock's settings after it
COMMANDS = [
    ("time_settings 300 30 5", "", (300, 30, 5)),
    ("time_settings 300 -30 5", "syntax error", (300, 30, 5)),
    ("kgs-time_settings none", "", (0, 1, 0)),
    ("kgs-time_settings absolute 600", "", (600, 0, 0)),
    ("kgs-time_settings canadian 600 300 25", "", (600, 300, 25)),
    ("kgs-time_settings byoyomi 600 30 5", "", (600, 30, 1, 5)),  # Japanese: one-stone periods
    ("kgs-time_settings byoyomi 600 30 0", "", (600, 0, 0, 0)),  # no periods: sudden death
    ("kgs-time_settings fischer 600 10", "syntax error", (600, 0, 0)),
    ("kgs-time_settings absolute", "syntax error", (600, 0, 0)),
    ("kgs-time_settings", "syntax error", (600, 0, 0)),
    ("time_left b -3 0", "syntax error", (600, 0, 0)),
]


def test_the_time_commands_set_the_clock():
    gtp = engine()
    for command, answer, settings in COMMANDS:
        got = gtp.shell.execute(command).strip()
        assert (command, got) == (command, f"? {answer}" if answer else "=")
        clock = gtp.clock
        assert (clock.main_time, clock.byo_yomi_time, clock.byo_yomi_stones, clock.periods)[:len(settings)] == settings, command


class Recorded:
    """The engine's player, recording the ``max_seconds`` each move was given."""

    def __init__(self, player: SearchPlayer) -> None:
        self.player, self.given = player, []
        for name in ("genmove", "cleanup_genmove"):
            setattr(self, name, self._recording(getattr(self.player, name)))

    def _recording(self, choose):
        def call(game, color, max_seconds=None):
            self.given.append(max_seconds)
            return choose(game, color, max_seconds=max_seconds)
        return call


def recorded_engine() -> tuple[GtpEngine, Recorded]:
    recorded = Recorded(SearchPlayer(TrompTaylorEvaluator(7.0), PlayerConfig(visits=1_000_000, seconds=None)))
    gtp = GtpEngine(recorded, Game(5, Ruleset("chinese", 7.0)))
    register_player(gtp, recorded)
    return gtp, recorded


def test_a_search_with_no_time_limit_of_its_own_keeps_to_the_clock():
    gtp, recorded = recorded_engine()  # a million visits a move and no seconds: minutes a move without a clock
    assert ask(gtp, "time_settings 0 1 1") == ""  # one second a move
    started = time.monotonic()
    for command in ("genmove b", "genmove w", "kgs-genmove_cleanup b"):
        assert not ask(gtp, command).startswith("?")
        # stopped by its clock, not its million visits (how long it ran depends on the load)
        assert recorded.player.last_stats.stopped_by in ("time", "settled"), command
    assert recorded.given == [pytest.approx(reserve(1.0))] * 3
    assert time.monotonic() - started < 10  # not minutes: every search stopped on time
    assert gtp.clock.state(BLACK) == (1, 1)  # each move ran within its period, and a new one started


def test_time_left_overrides_the_clocks_own_count():
    gtp, recorded = recorded_engine()
    for command in ("time_settings 6 0 0", "time_left b 2 0", "genmove b", "genmove w"):
        assert not ask(gtp, command).startswith("?")
    # black: 2 s for the rest of its game on a 5x5 board (25 empty points: 12 moves to come);
    # white: its full 6 s over 12 moves, 24 empty points now
    assert recorded.given == [pytest.approx(reserve(2 / 12)), pytest.approx(reserve(6 / 12))]
    assert gtp.clock.state(BLACK)[0] < 2 and gtp.clock.state(WHITE)[0] < 6


def test_a_new_game_gives_both_colours_the_full_time():
    gtp = engine()
    for command in ("time_settings 60 0 0", "time_left b 1 0", "time_left w 2 0", "clear_board"):
        assert ask(gtp, command) == ""
    assert gtp.clock.state(BLACK) == gtp.clock.state(WHITE) == (60, 0)


def test_reg_genmove_does_not_run_the_clock_down():
    gtp = engine(visits=50)
    assert ask(gtp, "time_settings 60 0 0") == ""
    assert not ask(gtp, "reg_genmove b").startswith("?")
    assert gtp.clock.state(BLACK) == (60, 0)
