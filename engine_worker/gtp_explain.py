"""``gobuddy-explain COLOR VERTEX`` on the GTP front end: the reasons for that move in
the current position, one a line, the kind first::

    gobuddy-explain B E6
    = capture 3 stones at D4 E4 E5
    territory the biggest point, about 3 points more than at C3

The reasons are those of ``gobuddy.explain.explain_move``. The rules reasons (capture,
atari, save, self-atari, snapback, ladder, connection, cut, ko) need no network; when
the front end plays with a model that knows the board size, the position before and
after the move are each analysed with ``visits`` visits (a search of its own, so
``genmove``'s tree is left alone), which adds life and death, the biggest point,
sente/gote and the engine's line; when the move is the engine's first choice (a
hint), the position after a pass instead is analysed too, and life and death are
told against it ("if you do not play here, the group dies"). ``COLOR`` need not be the side to move (the move is
explained as if that colour played now, as ``genmove`` out of turn would). An answer
may be empty: nothing to say.

Errors, in the specification's words: ``? syntax error`` for a wrong number of
arguments, a colour or a vertex that is not one of this board; ``? illegal move`` for
an occupied point, suicide, ko or superko.
"""

from __future__ import annotations

from typing import Any

from gobuddy.explain.analysis_view import AnalysisView, view
from gobuddy.explain.explainer import explain_played
from gobuddy.explain.played import Played
from gobuddy.explain.reason import as_lines
from gobuddy.go.coords import color_to_str
from engine_worker.gtp_engine import arguments, color_arg, vertex_arg
from engine_worker.gtp_shell import GtpError
from gobuddy.go.position import IllegalMove

EXPLAIN_VISITS = 200  # per analysis (two or three per command): about 0.2 s each on the project machine


class Explainer:
    """Answers ``gobuddy-explain`` for one engine; holds its own search (if any)."""

    def __init__(self, player: Any, visits: int = EXPLAIN_VISITS) -> None:
        self.evaluator = getattr(player, "evaluator", None)
        self.engine = getattr(player, "engine", "python")  # the player's search engine (gobuddy.ai.search_engines)
        self.visits = visits
        self._search = None
        self._komi: float | None = None

    def __call__(self, game: Any, args: list[str]) -> str:
        color_text, vertex = arguments(args, 2)
        color, point = color_arg(color_text), vertex_arg(vertex, game.size)
        try:
            played = Played.of(game.position, point, color)
        except IllegalMove:
            raise GtpError("illegal move") from None
        before, after, baseline = self._analyses(game, played)
        return as_lines(explain_played(played, before, after, baseline=baseline))

    def _analyses(self, game: Any, played: Played) -> tuple[AnalysisView | None, AnalysisView | None,
                                                             AnalysisView | None]:
        """``(before, after, baseline)``: the analyses before and after the move and,
        when the move is the engine's first choice (a hint), after a pass instead;
        ``None`` for each without a model for this board size."""
        evaluator = self.evaluator
        if evaluator is None or game.size not in getattr(evaluator, "board_sizes", ()):
            return None, None, None
        from gobuddy.ai.analysis import analyse
        from gobuddy.ai.features import board_array, game_history, push_history
        from gobuddy.ai.mcts import SearchConfig
        from gobuddy.ai.search_engines import make_search

        if self._search is None or self._komi != game.komi:
            self._search, _ = make_search(evaluator, SearchConfig(komi=game.komi), self.engine)
            self._komi = game.komi
        history = game_history(game)
        before = analyse(self._search, played.before, history, visits=self.visits,
                         to_play=color_to_str(played.color))
        previous = push_history(history, board_array(played.before))
        after = analyse(self._search, played.after, previous, visits=self.visits)
        baseline = None
        if before.moves and before.moves[0].point == played.move and not played.is_pass:
            passed = Played.of(played.before, played.before.pass_point)
            baseline = view(analyse(self._search, passed.after, previous, visits=self.visits), game.size)
        return view(before, game.size), view(after, game.size), baseline


def register(engine: Any, player: Any, visits: int = EXPLAIN_VISITS) -> None:
    """Add ``gobuddy-explain`` to ``engine`` (a ``GtpEngine``); ``player``'s evaluator,
    if it has one, judges the positions (see the module docstring)."""
    explainer = Explainer(player, visits)
    engine.shell.register("gobuddy-explain", lambda args: explainer(engine.game, args))
