"""What the board's row/column LEDs should show for a game, its problem and its requests.

``led_pattern`` is pure: the game, the current problem (``edge.reading.problems``), captured
stones still on the board, the engine's point, a hint, the teacher's mistake and a count
under way in; one ``LedPattern`` out, by priority: a count (the stones counted dead
blink; ``edge.end_count``) > a problem (its points blink, or all LEDs when it names
none) > captured stones to remove (blink) > a mistake waiting for the learner (its
stone, then the better point, blink; ``edge.teacher``) > the engine's point (steady, on
the engine's turn) > a hint (steady; or, asked for, the points its reason is about
blink, the group first) > off. Turning a pattern into a firmware command is ``edge.link.board_view``.
"""

from __future__ import annotations

from dataclasses import dataclass

from edge.reading.problems import Problem
from gobuddy.go.game import Game


@dataclass(frozen=True)
class LedPattern:
    """What the board's row/column LEDs should show: ``off``; ``steady`` on one point (a
    hint, or where the engine's stone goes); ``blink`` points (stones to remove, a
    problem's points); ``all_blink`` (a problem with no point to show). Points are flat
    (``gobuddy.go.coords``); the firmware's words for them are ``edge.link.board_view``'s."""

    mode: str
    points: tuple[int, ...] = ()


LED_OFF = LedPattern("off")


def led_pattern(game: Game, problem: Problem | None, pending: tuple[int, ...], engine_move: int | None,
                hint: int | None, mistake: tuple[int, ...] = (),
                counting: tuple[int, ...] | None = None, reason: tuple[int, ...] = ()) -> LedPattern:
    """The pattern for this state (see the module docstring); off once the game ended."""
    if game.ended:
        return LED_OFF
    if counting is not None:
        return LedPattern("blink", counting) if counting else LED_OFF
    if problem is not None:
        pts = problem.points
        return LedPattern("blink", tuple(pts)) if pts else LedPattern("all_blink")
    if pending or mistake:
        return LedPattern("blink", tuple(pending or mistake))
    if game.is_engine_turn() and engine_move is not None:
        return LedPattern("steady", (engine_move,))
    if hint is not None:
        return LedPattern("blink", tuple(reason)) if reason else LedPattern("steady", (hint,))
    return LED_OFF
