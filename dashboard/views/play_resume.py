"""The Play page after a reload: the player's unfinished web game, rebuilt from its record.

A game of the Play page lives in the browser session; a reload starts a new session.
The game's events went over the bus to the recorder, so the stored record holds it:
``unfinished_game`` finds the newest web game against the engine that has no result
and belongs to the player, and ``resumed`` rebuilds its ``PlayGame`` from the record
(setup, moves, komi, rules, the level carried in the engine player's name), its next
event ``seq`` after the last one stored.

| who is asking                 | whose games come back                                   |
|-------------------------------|---------------------------------------------------------|
| a signed-in user              | those whose human player has the user's name            |
| nobody signed in (auth off:   | any (the dashboard listens on loopback only: there is   |
| the one local user)           | one user, whatever name they typed in the form)         |

``resume_unfinished`` does it once a session, on its first run of the Play page
(``take_up`` makes a game the session's, ``session_game`` reads it back).

A game is played by one session at a time: ``hold`` gives it to this session (a
process-wide map, game id -> session), and a session that lost it (the game came back
in another tab) sees ``holds`` false and lets it go instead of writing a second,
conflicting record.

The teacher's open stop comes back: when "Teach me" is on and the record ends with the
learner's move with no teaching note on it (no decision taken), the move is judged
again (``rejudge``) before the engine is asked to reply, so a mistake stops the game
again with the same choice, and a good move lets the engine reply as before.
The "Teach me" switch comes back as it was: when it was changed from the level's
default, the page's URL keeps it (``play_teach.switch_in_url``). A hint shown in the
position where the game stands is asked for again (the URL says so:
``play_hint.hint_in_url``). Not kept across the reload: a request in flight (the page
asks the engine again when it is its turn), the seed of the engine's draws (a new one).
Not resumed: a game whose record is behind the bus (events not yet stored: ``behind``), nor one with moves missing; the page offers to
abandon those (``abandoned``: a ``game_ended`` with result ``?`` after every event seen).
The game keeps its board ``web-<n>``, handed over to the new session in the live feed's
slot map (``LiveFeed.hand_over_web_slot``), so no other session is given it meanwhile.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from dashboard.ingest import stored_through
from dashboard.ladder import level_in_name
from dashboard.store import Store
from dashboard.store.games import GameFilter, GameSummary, UnknownGame
from dashboard.views.login import IDENTITY
from dashboard.views.page_context import Services, session_id
from dashboard.views.play_new import LAST_NAME
from dashboard.views.play_game import MAX_SEED, PlayGame
from dashboard.views.play_engine import ask_async
from dashboard.views.play_hint import hint_in_url
from dashboard.views.play_teach import judge_request, switch_in_url, teaches_by_default, wants_judgement
from gobuddy.ai.levels import FULL, level_names
from gobuddy.bus.messages import GameEvent
from gobuddy.go.game import Game, GameError, Ruleset

ENGINE_PREFIX = "gobuddy"  # ``ladder.engine_player_name``: "gobuddy 15 kyu"
SEARCHED = 20  # unfinished web games looked at, newest first
GAME = "play_game"  # the session's ``PlayGame``
LOOKED = "play_looked_for_unfinished"  # the session looked for an unfinished game to resume (once)
OFFER = "play_abandon_offer"  # (game, why) of an unfinished game that could not come back


def player_filter() -> str | None:
    """The name whose games this session may take back: the signed-in user's, or
    ``None`` (any) when nobody is signed in (auth off: one local user)."""
    identity = st.session_state.get(IDENTITY)
    return identity.name if identity is not None and identity.signed_in and identity.name else None


def human_side(summary: GameSummary) -> str | None:
    """``"B"`` or ``"W"``: the human's side of a game against the engine; ``None`` when
    neither or both sides are the engine."""
    black_engine = (summary.black or "").startswith(ENGINE_PREFIX)
    white_engine = (summary.white or "").startswith(ENGINE_PREFIX)
    if black_engine == white_engine:
        return None
    return "W" if black_engine else "B"


def unfinished_game(store: Store, name: str | None) -> GameSummary | None:
    """The newest web game against the engine with no result whose human player is
    ``name`` (case ignored; ``None``: anyone's); ``None`` when there is none or the
    database cannot say."""
    try:
        page = store.list_games(GameFilter(text=name or "", result="unfinished", mode="vs_engine", source="web"),
                                limit=SEARCHED)
    except SQLAlchemyError:
        return None
    for summary in page.games:
        side = human_side(summary)
        human = (summary.black if side == "B" else summary.white) if side else None
        if human is not None and (name is None or human.casefold() == name.casefold()):
            return summary
    return None


def behind(store: Store, feed: Any, summary: GameSummary) -> bool:
    """Whether the bus has seen events of the game that the record does not hold yet
    (the recorder is behind): rebuilt now, the game would miss them."""
    return seen_seq(store, feed, summary) > stored_through(store.sessions, summary.id)


def seen_seq(store: Store, feed: Any, summary: GameSummary) -> int:
    """The last seq of the game that the record or the bus holds (-1: none)."""
    board = feed.board(summary.board_id) if summary.board_id else None
    seen = board.seq if board is not None and board.game_id == summary.id and board.seq is not None else -1
    return max(seen, stored_through(store.sessions, summary.id))


def abandoned(store: Store, feed: Any, summary: GameSummary) -> tuple[PlayGame, list[GameEvent]]:
    """A game that cannot come back, left as abandoned (result ``?``): the game and its
    ``game_ended`` event, its seq after every one the record or the bus holds. Its
    moves are the record's; with holes in the record, none (the event's move number is
    then 0)."""
    try:
        game = resumed(store, summary)
    except GameError:
        detail = store.get_game(summary.id)
        g = detail.game
        side = human_side(g) or "B"
        game = PlayGame(g.board_id or "web-1", g.id, Game.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play,
                                                                     detail.setup, handicap=g.handicap), side)
    game.seq = seen_seq(store, feed, summary)
    return game, game.abandon()


def resumed(store: Store, summary: GameSummary) -> PlayGame:
    """The ``PlayGame`` of a stored unfinished game, where its record stands, to go on
    playing on its own board; raises ``GameError`` when its record has holes or does
    not replay, ``UnknownGame`` when it is gone."""
    detail = store.get_game(summary.id)
    if detail.missing_moves:
        raise GameError(f"game {summary.id!r} is missing moves {list(detail.missing_moves)}")
    g = detail.game
    game = Game.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play, detail.setup,
                         [(m.color, m.vertex) for m in detail.moves], handicap=g.handicap)
    side = human_side(g) or "B"
    engine = g.white if side == "B" else g.black
    level = level_in_name(engine, level_names()) or FULL
    return PlayGame(g.board_id or "web-1", g.id, game, side, level, random.SystemRandom().randint(0, MAX_SEED),
                    (g.black if side == "B" else g.white) or "guest", seq=stored_through(store.sessions, g.id),
                    teach=teaches_by_default(level) if (kept := switch_in_url(g.id)) is None else kept)


def rejudge(store: Store, game: PlayGame) -> bool:
    """Whether the teacher is to judge the last move of a game that came back: teaching
    is on, the last move is the learner's, and the record does not say it was kept
    after a stop (a stop was open, or the judgement on its way, at the reload; a note
    that it was taken back is of an earlier move at that number)."""
    if not wants_judgement(game):
        return False
    number, (_, vertex) = len(game.moves), game.moves[-1]
    return not any((n.move_number, n.vertex, n.decision) == (number, vertex, "kept")
                   for n in store.teaching_notes(game.game_id))


# ---- this session's game ----------------------------------------------------------------------
def take_up(game: PlayGame) -> None:
    """Make ``game`` this session's game (a new one, or one resumed after a reload)."""
    st.session_state[GAME] = game
    st.session_state[LAST_NAME] = game.player_name
    st.session_state[LOOKED] = True
    st.session_state.pop(OFFER, None)
    hold(game.game_id)


def session_game() -> PlayGame | None:
    """This session's game, while no other session took it over (``play_resume.holds``)."""
    game: PlayGame | None = st.session_state.get(GAME)
    return game if game is not None and holds(game.game_id) else None


def resume_unfinished(services: Services, on_abandon: Callable[[GameSummary], None]) -> bool:
    """Once a session (its first Play run): bring back the player's unfinished web
    game where its record stands; True when it came back. A game that cannot come
    back (yet) is told above the new-game form, with "Abandon it" (``on_abandon``, a
    widget callback) so that it does not stay "playing" for ever."""
    if not st.session_state.get(LOOKED):
        st.session_state[LOOKED] = True
        summary = unfinished_game(services.store, player_filter())
        if summary is not None and comes_back(services, summary):
            return True
    offer: tuple[GameSummary, str] | None = st.session_state.get(OFFER)
    if offer is not None:
        with st.container(border=True):
            st.info(offer[1])
            st.button("Abandon it", key="play_abandon_unfinished", on_click=on_abandon, args=(offer[0],))
    return False


def comes_back(services: Services, summary: GameSummary) -> bool:
    """Take up ``summary``'s game where its record stands (True); or, when it cannot
    come back (yet), keep the offer to abandon it (``OFFER``) and say why (False)."""
    against = summary.white if human_side(summary) == "B" else summary.black
    try:
        if behind(services.store, services.feed, summary):
            why = (f"Your game against {against} (move {summary.move_count}) is still being stored; "
                   "reload the page in a moment to continue it, or abandon it.")
        else:
            game = resumed(services.store, summary)
            services.feed.hand_over_web_slot(game.board_id, session_id())
            take_up(game)
            if rejudge(services.store, game):
                ask_async(services, game, "judge", request=judge_request(services, game))
            elif game.human_to_play and hint_in_url(game):  # the hint shown before the reload
                ask_async(services, game, "hint", services.config.analysis_visits)
            st.toast(f"Your game against {against} is back at move {summary.move_count}.")
            return True
    except (GameError, UnknownGame, SQLAlchemyError) as exc:
        why = f"Your unfinished game against {against} cannot be continued: {exc}"
    st.session_state[OFFER] = (summary, why)
    return False


# ---- one session plays a game ----------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _holders() -> dict[str, str]:
    """Process-wide: game id -> the session playing it."""
    return {}


def hold(game_id: str) -> None:
    """This session plays ``game_id`` from now on (another that played it lets it go)."""
    _holders()[game_id] = session_id()


def holds(game_id: str) -> bool:
    """Whether this session may play ``game_id``: nobody else took it over."""
    return _holders().get(game_id, session_id()) == session_id()


__all__ = ["GAME", "LOOKED", "OFFER", "abandoned", "behind", "hold", "holds", "human_side", "player_filter", "rejudge", "resume_unfinished", "resumed",
           "session_game", "take_up", "unfinished_game"]
