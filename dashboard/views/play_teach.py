"""The Play page's teacher: after the learner's move, the engine's judgement of it at
the learner's level, and when it is a mistake a stop to take it back or keep it.

| step | what happens |
|------|--------------|
| switch | "Teach me", per game: on by default below "10 kyu" (where hints are simple: ``views/play_hint``), the level the game is played at (the opponent plays at the learner's level on the ladder) |
| the move | ``judge_request``: an ``analysis`` of the position before the move with ``judge`` (the move, the game's level); the engine's reply is not asked meanwhile |
| no mistake | the engine is asked for its reply at once: no stop |
| a mistake | ``Verdict``: the point loss, the better point (marked on the board), the reasons against the move and for the better one in plain words (``views/reasons``: ``gobuddy.explain``); "Take back and try again" or "Keep my move" |
| take back | ``PlayGame.take_back``: undone, kept as a variation with its point loss; a ``teaching`` event (taken_back) |
| keep | a ``teaching`` event (kept); then the engine replies |

Both decisions go on the bus as ``teaching`` game events, as a physical board's teacher
sends them, and the recorder keeps them as the game's teaching notes (one path into
the database); the SGF export writes them (``dashboard.store.sgf_io``). A judgement that fails
(no worker, too late) does not stop the game: the engine replies and the page says the
move was not judged. The judgement itself is the worker's (``gobuddy.ai.teaching`` on
the wire: ``engine_answer.judgement``); this page does not import the engine.

Not done here: the page's callbacks and publishing (``views/play``), sending the
request (``views/play_engine``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import streamlit as st

from dashboard.board_svg import Recommendation
from dashboard.views.page_context import Services
from dashboard.views.play_engine import engine_request
from dashboard.views.play_game import PlayGame
from dashboard.views.play_hint import simple_hints
from dashboard.views.reasons import hint_reasons, move_reasons, show_reasons
from gobuddy.bus.messages import EngineRequest, Judge
from gobuddy.explain import Reason
from gobuddy.go.coords import color_from_str, from_gtp

VERDICT = "play_verdict"
# The switch changed from its default, in the page's URL ("<game id>:on" or ":off"): a
# reload starts a new session, and the URL is what the browser keeps.
TEACH_PARAM = "teach"
# Whether "Teach me" starts on for a game at a level: at the levels that get simple
# hints, below "10 kyu" (``views/play_hint``).
teaches_by_default = simple_hints


def wants_judgement(game: PlayGame) -> bool:
    """Whether the learner's move just played is to be judged: teaching is on, the last
    move is the learner's and play goes on (not counting, not over)."""
    moves = game.moves
    return game.teach and not game.over and not game.counting and bool(moves) and moves[-1][0] == game.human


def judge_request(services: Services, game: PlayGame) -> EngineRequest:
    """The request judging the learner's last move: the position before it, analysed
    with the dashboard's budget, ``judge`` naming the move and the game's level."""
    color, vertex = game.moves[-1]
    request = engine_request(services, game, "analysis", services.config.analysis_visits)
    before = replace(request.position, moves=request.position.moves[:-1], to_play=color)
    return replace(request, position=before, judge=Judge(move=vertex, level=game.level))


@dataclass(frozen=True)
class Verdict:
    """The teacher's stop after a mistake: move ``number`` (``color`` at ``vertex``) of
    game ``game_id``, its ``points_lost`` / ``winrate_lost``, the ``better`` vertex, the
    ``level`` judged at, the engine's answer (dict) and the reasons in plain words."""

    game_id: str
    number: int
    color: str
    vertex: str
    points_lost: float | None
    winrate_lost: float
    better: str
    level: str
    answer: dict[str, Any]
    against: tuple[Reason, ...] = ()
    for_better: tuple[Reason, ...] = ()

    @classmethod
    def of(cls, game: PlayGame, answer: Any) -> "Verdict | None":
        """The verdict on the learner's last move from the judged ``answer``
        (``EngineAnswer``); None when it is no mistake, or judges another move."""
        judgement = answer.judgement
        moves = game.moves
        if judgement is None or not judgement.mistake or not moves or moves[-1] != (judgement.color, judgement.move):
            return None
        number = len(moves)
        data = answer.to_dict()
        key = (game.game_id, number, judgement.move)

        def before() -> Any:
            return game.game.position_at(number - 1)

        against = move_reasons(before, from_gtp(judgement.move, game.size), color_from_str(judgement.color), data,
                               key=("teach",) + key)
        better = hint_reasons(before, data, key=("teach",) + key)
        return cls(game.game_id, number, judgement.color, judgement.move, judgement.points_lost,
                   judgement.winrate_lost, judgement.best, judgement.level, data, tuple(against), tuple(better))

    def fits(self, game: PlayGame) -> bool:
        """Still about the game's last move."""
        return self.game_id == game.game_id and self.number == len(game.moves)

    def loss_words(self) -> str:
        """``loses about 6.5 points`` (or the win rate when no points are known)."""
        if self.points_lost is not None:
            return f"loses about {self.points_lost:g} point{'' if self.points_lost == 1 else 's'}"
        return f"loses about {100 * self.winrate_lost:.0f}% of your chances to win"

    def event(self, game: PlayGame, verdict: str) -> list[Any]:
        """The ``teaching`` event of the decision ``verdict`` (taken_back | kept)."""
        return game.teaching(self.number, self.color, self.vertex, verdict, points_lost=self.points_lost,
                             winrate_lost=self.winrate_lost, better=self.better, level=self.level)


def open_verdict(game: PlayGame) -> Verdict | None:
    """The verdict waiting for the learner's decision, if any (a stale one is dropped)."""
    verdict: Verdict | None = st.session_state.get(VERDICT)
    if verdict is not None and not verdict.fits(game):
        st.session_state.pop(VERDICT, None)
        return None
    return verdict


def board_marks(verdict: Verdict | None) -> dict[str, Any]:
    """``board_svg`` keywords for an open verdict: the better point as the first
    recommendation, the move played marked red."""
    if verdict is None:
        return {}
    winrate = next((m["winrate"] for m in verdict.answer["moves"] if m["move"] == verdict.better), 0.5)
    return dict(recommendations=[Recommendation(verdict.better, 1, float(winrate))],
                marks={verdict.vertex: "#d32f2f"})


def take_judgement(game: PlayGame, answer: Any, exc: BaseException | None, trouble: Callable[[BaseException], str]) -> None:
    """Apply the judge's answer: a mistake opens the verdict (the engine waits for the
    decision); a failure is told (``trouble`` words it) and the game goes on."""
    if exc is not None:
        st.session_state["play_message"] = ("warning", f"Your move was not judged: {trouble(exc)}")
        return
    verdict = Verdict.of(game, answer)
    if verdict is not None:
        st.session_state[VERDICT] = verdict


def decide(game: PlayGame, decision: str) -> list[Any]:
    """The player's decision on the open verdict (``taken_back``: the move is undone
    and kept as a variation; ``kept``): the events to publish, the ``teaching`` one last."""
    verdict = open_verdict(game)
    if verdict is None:
        return []
    events: list[Any] = []
    if decision == "taken_back":
        try:
            events = game.take_back(verdict.points_lost, verdict.better)
        except ValueError as exc:
            st.session_state["play_message"] = ("warning", str(exc))
            return []
    st.session_state.pop(VERDICT, None)
    return events + verdict.event(game, decision)


def verdict_panel(verdict: Verdict, on_decide: Callable[[str], None]) -> None:
    """The stop: what the move loses, the better point, why, and the two choices
    (``on_decide`` gets ``taken_back`` or ``kept``)."""
    with st.container(border=True, key="play_teacher"):
        st.markdown(f"**Teacher: {verdict.vertex} {verdict.loss_words()}.** A better move was "
                    f"**{verdict.better}** (marked on the board).")
        _reasons(verdict.against, f"teach_against_{verdict.number}", f"Why not {verdict.vertex}")
        _reasons(verdict.for_better, f"teach_better_{verdict.number}", f"Why {verdict.better}")
        c1, c2 = st.columns([3, 2])
        c1.button("Take back and try again", key="play_take_back", type="primary", on_click=on_decide,
                  args=("taken_back",))
        c2.button("Keep my move", key="play_keep", on_click=on_decide, args=("kept",))


def teach_switch(game: PlayGame) -> None:
    """The "Teach me" switch of the game (its key is the game's: a new game starts at its
    default). A switch changed from its default is kept in the URL (``TEACH_PARAM``), so
    that the game comes back after a reload with it (``switch_in_url``)."""
    game.teach = st.toggle("Teach me", value=game.teach, key=f"play_teach_{game.game_id}",
                           help="After each of your moves the engine judges it at your level; a mistake stops "
                                "the game: take it back and try again, or keep it.")
    if game.teach != teaches_by_default(game.level):
        kept = f"{game.game_id}:{'on' if game.teach else 'off'}"
        if st.query_params.get(TEACH_PARAM) != kept:
            st.query_params[TEACH_PARAM] = kept
    elif TEACH_PARAM in st.query_params:
        del st.query_params[TEACH_PARAM]


def switch_in_url(game_id: str) -> bool | None:
    """The "Teach me" switch that the page's URL keeps for ``game_id`` (``teach_switch``
    puts it there when it differs from the default); None when the URL says nothing of
    that game (another game's, or a value that is not ``on``/``off``)."""
    found, _, state = st.query_params.get(TEACH_PARAM, "").rpartition(":")
    return {"on": True, "off": False}.get(state) if found == game_id else None


def _reasons(reasons: Sequence[Reason], key: str, title: str) -> None:
    show_reasons(reasons[:3], key=key, title=title)


__all__ = ["VERDICT", "Verdict", "board_marks", "decide", "judge_request", "open_verdict",
           "switch_in_url", "take_judgement", "teach_switch", "teaches_by_default", "verdict_panel", "wants_judgement"]
