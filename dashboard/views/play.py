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
asked without waiting (``views/play_flow``) and the board shows the player's stone at once
(provisional, drawn by the browser). The run waits up to ``play_flow.ANSWER_GRACE_S`` for the
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

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from dashboard.board_svg import board_svg
from dashboard.store.games import GameSummary, UnknownGame
from dashboard.views.click_board import svg_board
from dashboard.views.game_board import TOP, last_vertex, recommendations, show_winrate
from dashboard.views.login import refusal, require
from dashboard.views.page_context import Services, current, session_id
from dashboard.views.play_count import COUNT, Count, count_panel, current_count, describe
from dashboard.views.play_engine import PENDING, ask_async, wait_for_engine
from dashboard.views.play_flow import UNPUBLISHED, human_move, publish, send, settle, start_count
from dashboard.views.play_game import PlayGame
from dashboard.views.play_hint import hint_panel, remember_hint, simple_hints
from dashboard.views.play_new import new_game_settings
from dashboard.views.play_resume import GAME, OFFER, abandoned, resume_unfinished, session_game, take_up
from dashboard.views.play_teach import (VERDICT, board_marks, decide, open_verdict, teach_switch, teaches_by_default,
                                        verdict_panel)
from gobuddy.go.handicap import HandicapError


def accept_count(services: Services, game: PlayGame, count: Count) -> None:
    """End the game with the count the players accepted, and publish it."""
    if allowed():
        send(game, game.end_by_score(count.dead_vertices()))


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
        remember_hint(game)


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
            count_panel(game, count, on_accept=lambda: accept_count(current(), game, count), allowed=allowed)
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
