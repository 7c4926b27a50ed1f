"""Play: a game against the engine, by clicking intersections.

Who plays: the signed-in user by name ("guest" when nobody is signed in; the name can
be changed). Choose colour, komi, handicap, the board size (the sizes the engine plays)
and the opponent's level (``gobuddy.ai.levels``, weakest first, their calibrated ranks
from ``models/LEVELS.md`` in the help): the level offered is the player's own on the
adaptive ladder (``Store.suggested_level``), and any other can be chosen. The engine
player is named with its level in ``game_started`` (``ladder.engine_player_name``), so
the recorder steps the player's ladder at the game's end. Then click a point to play,
or pass, undo (your move and the engine's answer), resign, or ask for a hint: below
"10 kyu" one move, the engine's first choice; from "10 kyu" up the engine's top five;
at every level with the reasons for the first choice in plain words
(``gobuddy.explain.explain_hint``). The engine's moves come from
the workers over the bus (``genmove`` requests, ``views/play_engine``); after two passes the game is counted
(``views/play_count``): the judge of ``gobuddy.ai.final_status`` proposes the dead
stones (crossed out on the board, territory shaded, the groups listed, unsure ones
ringed), the players toggle groups by clicking a stone or its box, and "Accept the
count" stores the area count.

With "Teach me" on (below "10 kyu" by default) the teacher (``views/play_teach``) judges
each of the player's moves before the engine replies: a mistake waits until the player
takes it back (kept as a variation) or keeps it.

Speed: the board and its panel are one fragment (``play_area``). A click, a button or
a typed point acts in a widget callback and reruns only the fragment; the engine is
asked without waiting (``ask_async``) and the board shows the player's stone at once
(provisional, drawn by the browser). The run waits up to ``ANSWER_GRACE_S`` for the
answer (after the teacher's judgement, for the reply it lets through) and draws it with
the move: one draw, not two. While a slower engine thinks, the run ends by waiting
for the answer (a line counts the seconds; a click meanwhile stops the wait) and reruns
the fragment the moment it comes. The moves drawn are published after the page is
drawn. The rest of the page runs only when a game starts or ends. The board is plain
SVG in the page (``views/click_board``): a new position swaps one SVG.

Storage, decided: the page publishes the game's events (and the retained board state)
on a web board ``web-<n>`` exactly like a physical board, and the recorder stores them;
there is one path into the database. Without a running recorder the game is played
but not stored. The Live page can follow a web game like any other. After a reload (a
new session) the player's unfinished game comes back from its record where it stood
(``views/play_resume``), and the window that played it before lets it go; "New game"
leaves the game abandoned (result "?"), even before its first move.

Playing needs the player role (``dashboard.access``): the page checks it on the server
(``views/login.require``) and every action checks it again in its callback
(``allowed``) before it changes the game.
"""

from __future__ import annotations

import time
from concurrent.futures import wait
from typing import Any, Sequence

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from dashboard.board_svg import board_svg
from dashboard.live_feed import LiveFeed
from dashboard.store.games import GameSummary, UnknownGame
from dashboard.views.click_board import svg_board
from dashboard.views.game_board import TOP, last_vertex, recommendations, show_winrate
from dashboard.views.login import refusal, require
from dashboard.views.page_context import Services, current, session_id
from dashboard.views.play_count import COUNT, Count, count_panel, current_count, describe
from dashboard.views.play_engine import (PENDING, Pending, ask_async, ask_engine, engine_trouble, take_pending,
                                         wait_for_engine)
from dashboard.views.play_game import IllegalMove, PlayGame
from dashboard.views.play_hint import hint_panel, hint_reasons, simple_hints
from dashboard.views.play_new import new_game_settings
from dashboard.views.play_resume import GAME, OFFER, abandoned, resume_unfinished, session_game, take_up
from dashboard.views.play_teach import (VERDICT, board_marks, decide, judge_request, open_verdict, take_judgement,
                                        teach_switch, teaches_by_default, verdict_panel, wants_judgement)
from gobuddy.bus import topics
from gobuddy.bus.delivery import PublishRejected
from gobuddy.bus.messages import GameEvent
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import CoordinateError
from gobuddy.go.handicap import HandicapError

UNPUBLISHED = "play_unpublished"  # events played but not yet on the bus (see ``send``)
# How long a run after a move (or "Hint", or "Keep my move") waits for the engine before
# it draws: a quick answer (and after the teacher's judgement the reply it lets through)
# is drawn in the same run, one draw instead of two (an answer that comes while the
# first draw is on its way waits for it and for a second one); the player's stone
# shows at once meanwhile (the board's provisional stone, ``views/click_board``).
ANSWER_GRACE_S = 0.5


def publish(feed: LiveFeed, game: PlayGame, events: list[GameEvent]) -> bool:
    """Publish ``events`` and then the board state; show an error and return False when
    the broker does not take them (the game goes on, but may not be stored)."""
    try:
        for event in events:
            feed.publish(topics.board_event(game.board_id), event)
        feed.publish(topics.board_state(game.board_id), game.state())
    except (PublishRejected, TimeoutError, ConnectionError, RuntimeError) as exc:
        st.session_state["play_message"] = ("error", f"The move could not be recorded on the bus: {exc}")
        return False
    return True


def send(game: PlayGame, events: Sequence[GameEvent] = (), *, later: bool = False) -> None:
    """Publish ``events`` after those queued before (in order: their ``seq``s follow on);
    ``later``: only queue them, for the fragment to publish right after it drew the
    board (the stone shows without waiting for the broker's acknowledgements)."""
    queued = st.session_state.pop(UNPUBLISHED, [])
    if later:
        st.session_state[UNPUBLISHED] = queued + list(events)
    elif queued or events:
        publish(current().feed, game, queued + list(events))


def take_answer(services: Services, game: PlayGame) -> None:
    """Apply the answer of the request in flight if it came: the engine's move, or the
    hint; a failure is told in words (``play_engine`` keeps the request)."""
    taken = take_pending(services, game)
    if taken is None:
        return
    purpose, answer, exc = taken
    if purpose == "judge":
        take_judgement(game, answer, exc, engine_trouble)
    elif purpose == "hint":
        if exc is not None:
            st.session_state["play_message"] = ("error", f"No hint: {engine_trouble(exc)}")
        else:
            data = answer.to_dict()
            st.session_state["play_hint"] = (len(game.moves), data, hint_reasons(game, data))
    elif exc is not None:
        st.session_state["play_engine_error"] = engine_trouble(exc)
    else:
        engine_move(services, game, answer)


def reply_due(game: PlayGame) -> bool:
    """Whether the engine's reply is to be asked now: its turn, nothing in flight, no
    teacher's stop open and no failure waiting for "Ask the engine again"."""
    return (game.engine_to_play and st.session_state.get(PENDING) is None and open_verdict(game) is None
            and not st.session_state.get("play_engine_error"))


def settle(services: Services, game: PlayGame) -> None:
    """Take the answer in flight, and wait for one asked less than ``ANSWER_GRACE_S``
    ago until then (asking the engine's reply as soon as it is due: after the
    teacher's judgement that stops nothing), so that this run draws it."""
    take_answer(services, game)
    deadline: float | None = None
    while True:
        if reply_due(game):
            ask_async(services, game, "genmove")
        pending: Pending | None = st.session_state.get(PENDING)
        if pending is None:
            return
        if deadline is None:
            deadline = min(pending.sent, time.monotonic()) + ANSWER_GRACE_S
        if not pending.future.done():  # (a click meanwhile is taken when this run ends)
            wait([pending.future], timeout=max(0.0, deadline - time.monotonic()))
            if not pending.future.done():
                return
        take_answer(services, game)


def start_count(services: Services, game: PlayGame) -> Count:
    """The judge's proposal after two passes, kept in the session until accepted. The
    engine's ownership is asked for as a cross-check; the count goes on without it."""
    ownership = None
    try:
        answer = ask_engine(services, game, "analysis", services.config.analysis_visits, ownership=True)
        ownership = answer.ownership
    except (TimeoutError, EngineRequestFailed, ConnectionError):
        pass
    count = Count.of(game, ownership)
    st.session_state[COUNT] = count
    return count


def accept_count(services: Services, game: PlayGame, count: Count) -> None:
    """End the game with the count the players accepted, and publish it."""
    if allowed():
        send(game, game.end_by_score(count.dead_vertices()))


def engine_move(services: Services, game: PlayGame, answer: Any) -> None:
    """Play the engine's answer, publish it, and count the game after two passes."""
    vertex = answer.moves[0].move if answer.moves else "pass"
    try:
        events = game.play(vertex)
    except (IllegalMove, ValueError) as exc:
        st.session_state["play_engine_error"] = f"the engine answered an illegal move: {exc}"
        return
    st.session_state["play_last_answer"] = answer.to_dict()
    send(game, events, later=not game.counting)
    if game.counting:
        start_count(services, game)


def human_move(services: Services, game: PlayGame, vertex: str) -> None:
    """The player's move (a click or a typed point): played, published, and the engine
    asked for its answer (without waiting for it)."""
    if not game.human_to_play:
        st.session_state["play_message"] = ("warning", "Wait for your turn.")
        return
    try:
        events = game.play(vertex)
    except (IllegalMove, CoordinateError) as exc:
        st.session_state["play_message"] = ("warning", str(exc))
        return
    if wants_judgement(game):  # the teacher first; the engine replies once the move stands
        ask_async(services, game, "judge", request=judge_request(services, game))
    elif game.engine_to_play:
        ask_async(services, game, "genmove")  # first: the engine starts while the page draws
    send(game, events, later=not game.counting)
    if game.counting:
        start_count(services, game)


def allowed() -> bool:
    """The player role, checked on the server before each action (the account is read
    again); a refusal is shown as the page's message."""
    why = refusal("play")
    if why:
        st.session_state["play_message"] = ("error", why)
    return not why


# ---- callbacks: each runs before the (fragment) run that draws its outcome ----------------
def on_point(vertex: str) -> None:
    """A click on the board: a move, or during the count a group toggled dead/alive."""
    game = session_game()
    if game is None or not allowed():
        return
    count = current_count(game)
    if game.counting and count is not None:
        count.toggle_at(vertex)
        return
    if open_verdict(game) is not None:
        st.session_state["play_message"] = ("warning", "First take your move back or keep it.")
        return
    human_move(current(), game, vertex)


def on_typed() -> None:
    text = (st.session_state.get("play_typed_point") or "").strip().upper()
    if text:
        on_point(text)


def on_pass() -> None:
    game = session_game()
    if game is not None and allowed() and open_verdict(game) is None:
        human_move(current(), game, "pass")


def on_decide(decision: str) -> None:
    """The teacher's stop: the move taken back (``taken_back``) or kept (``kept``)."""
    game = session_game()
    if game is not None and allowed():
        send(game, decide(game, decision))


def on_undo() -> None:
    game = session_game()
    if game is None or game.over or not allowed():
        return
    st.session_state.pop("play_engine_error", None)
    st.session_state.pop("play_last_answer", None)  # the engine's view of a position no longer on the board
    st.session_state.pop(PENDING, None)
    st.session_state.pop(VERDICT, None)
    events = game.undo()
    if events:
        send(game, events)


def on_resign() -> None:
    game = session_game()
    if game is not None and not game.over and allowed():
        st.session_state.pop(PENDING, None)
        send(game, game.resign(game.human))


def on_hint() -> None:
    game = session_game()
    if game is not None and allowed() and game.human_to_play:
        services = current()
        ask_async(services, game, "hint", services.config.analysis_visits)


def on_abandon(summary: GameSummary) -> None:
    """"Abandon it": an unfinished game that could not come back after a reload ends
    with result "?" (``play_resume.abandoned``)."""
    if allowed():
        services = current()
        st.session_state.pop(OFFER, None)
        try:
            game, events = abandoned(services.store, services.feed, summary)
        except (UnknownGame, SQLAlchemyError) as exc:
            st.session_state["play_message"] = ("error", f"The game could not be abandoned: {exc}")
            return
        publish(services.feed, game, events)


def on_retry() -> None:
    st.session_state.pop("play_engine_error", None)


def new_game_form(services: Services) -> None:
    """The new-game form (``views/play_new``); a game started is published and shown."""
    settings = new_game_settings(services)
    if settings is None:
        return
    try:
        board_id = services.feed.claim_web_slot(session_id())
        game = PlayGame.new(board_id, **settings, teach=teaches_by_default(settings["level"]))
    except (HandicapError, RuntimeError) as exc:
        st.error(str(exc))
        return
    for key in ("play_hint", "play_last_answer", "play_engine_error", COUNT, PENDING, UNPUBLISHED, VERDICT):
        st.session_state.pop(key, None)
    if publish(services.feed, game, game.start()):
        take_up(game)
        st.rerun()


def let_go() -> None:
    """This session lost its game to another window (a reload resumed it there): it
    drops the game and what it kept of it, and says why."""
    for key in (GAME, "play_hint", "play_last_answer", "play_engine_error", COUNT, PENDING, UNPUBLISHED, VERDICT):
        st.session_state.pop(key, None)
    st.session_state["play_message"] = ("warning", "Your game goes on in another window.")


def show_message() -> None:
    message = st.session_state.pop("play_message", None)
    if message:
        (st.warning if message[0] == "warning" else st.error)(message[1])


def controls(game: PlayGame) -> None:
    """The buttons; each acts in its callback, and the fragment redraws."""
    your_turn = game.human_to_play and st.session_state.get(VERDICT) is None
    asking = st.session_state.get(PENDING) is not None
    row = st.container(horizontal=True)  # one element for the row: fewer for the browser to take at each draw
    row.button("Pass", disabled=not your_turn, key="play_pass", on_click=on_pass)
    row.button("Undo", disabled=game.over or not game.moves, key="play_undo", on_click=on_undo)
    row.button("Resign", disabled=game.over, key="play_resign", on_click=on_resign)
    row.button("Hint", disabled=not your_turn or asking, key="play_hint_button", icon=":material/lightbulb:",
               on_click=on_hint)
    if row.button("New game", key="play_new_game"):
        if not game.over:  # (even with no move: else it stays "playing" and would come back after a reload)
            send(game, game.abandon())  # stored as unfinished: result "?"
        st.session_state.pop(GAME, None)
        st.session_state.pop(PENDING, None)
        st.rerun()  # the whole page: the new-game form


def typed_move(game: PlayGame) -> None:
    """The keyboard way to play: type a point (e.g. D4)."""
    with st.form("play_typed", clear_on_submit=True, border=False):
        row = st.container(horizontal=True, vertical_alignment="bottom")
        row.text_input("Or type a point", placeholder="e.g. D4", key="play_typed_point", width=200)
        row.form_submit_button("Play", disabled=game.over or game.counting, on_click=on_typed)


def render() -> None:
    services = current()
    st.title("Play against the engine")
    if not require("play"):  # and each action below checks again in its callback (``allowed``)
        return
    if not services.feed.has_bus:
        st.info("Playing needs the engine workers, which the dashboard reaches over the broker; this "
                "dashboard runs without one (--no-bus).")
        return
    if GAME in st.session_state and session_game() is None:  # resumed in another window meanwhile
        let_go()
    if st.session_state.get(GAME) is None and resume_unfinished(services, on_abandon):
        st.rerun()
    game: PlayGame | None = st.session_state.get(GAME)
    if game is None:
        show_message()
        new_game_form(services)
        return
    runs = st.session_state["play_page_runs"] = st.session_state.get("play_page_runs", 0) + 1
    you = "black" if game.human == "B" else "white"
    # data-page-runs: how often the whole page ran (a move reruns only the fragment below)
    st.markdown(f"You play **{you}** against gobuddy at **{game.level}** · {game.size}x{game.size}, "
                f"komi {game.komi:g}" + (f", handicap {game.handicap}" if game.handicap else "")
                + f'<span class="play-page-runs" data-page-runs="{runs}"></span>', unsafe_allow_html=True)
    play_area()


@st.fragment
def play_area() -> None:
    """The board and its panel: a click, a button or the engine's answer reruns only
    this. The engine is asked without waiting; while it thinks the run ends by waiting
    for the answer (a click meanwhile interrupts the wait) and then draws it."""
    services = current()
    game = session_game()
    if game is None:
        if GAME in st.session_state:
            let_go()
        st.rerun()
    settle(services, game)
    verdict = open_verdict(game)
    hint = st.session_state.get("play_hint")
    hint = hint if hint and hint[0] == len(game.moves) and not game.over else None  # resigning plays no move
    hint_answer = hint[1] if hint else None
    simple = simple_hints(game.level)
    count = current_count(game) if game.counting or game.reason == "score" else None
    if game.counting and count is None:  # e.g. the session came back after the passes
        with st.spinner("Counting…"):
            count = start_count(services, game)
    marks = {} if count is None else dict(ownership=count.territory(game), dead=count.dead_vertices(),
                                          highlights=count.unsure_vertices() if game.counting else ())
    marks.update(board_marks(verdict))
    left, right = st.columns([3, 2], gap="large")
    with left:
        marks.setdefault("recommendations", recommendations(hint_answer, 1 if simple else TOP))
        svg = board_svg(game.size, game.position.board, last_move=last_vertex(game.moves),
                        move_count=len(game.moves), **marks)
        your_turn = game.human_to_play and verdict is None
        svg_board(svg, game.size, key="play_board", on_click=on_point,
                  stone=("black" if game.human == "B" else "white") if your_turn else None)
    with right:
        show_message()
        engine = "white" if game.human == "B" else "black"
        caps = game.state().captures
        st.caption(f"Move {len(game.moves)} · captures: black {caps['B']}, white {caps['W']} · board {game.board_id}")
        if game.counting and count is not None:
            count_panel(game, count, on_accept=lambda: accept_count(current(), game, count))
        elif game.over:
            st.success(f"Game over: {game.result} ({game.reason})")
            if count is not None and count.dead:
                st.caption("Counted dead: " + "; ".join(describe(count.status.groups[i], game.size)
                                                          for i in sorted(count.dead)))
            if st.button("Open in Replay", key="play_replay"):
                st.session_state["replay_game"] = game.game_id
                st.switch_page("views/replay.py", query_params={"game": game.game_id})
        elif verdict is not None:
            verdict_panel(verdict, on_decide)
        elif game.engine_to_play:
            st.markdown(f"**The engine ({engine}) is to play.**")
        else:
            st.markdown("**Your move** — click a point on the board.")
        status = st.empty()
        last = st.session_state.get("play_last_answer")
        if last and not game.over and not game.counting:  # the engine's last view is not the count
            show_winrate(last)
        if hint:
            hint_panel(*hint, simple=simple)
        typed_move(game)
        controls(game)
        if not game.over:
            teach_switch(game)
        error = st.session_state.get("play_engine_error")
        if error and game.engine_to_play:
            st.error(f"The engine did not move: {error}")
            st.button("Ask the engine again", key="play_retry", on_click=on_retry)
    send(game)  # the moves drawn go on the bus now (the page is drawn before the broker's acknowledgements)
    wait_for_engine(services, status)


if __name__ == "__main__":
    render()
