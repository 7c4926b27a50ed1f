"""Play: a game against the engine, by clicking intersections.

Choose colour, board size, komi, handicap and the engine's strength (visits per move);
then click a point to play, or pass, undo (your move and the engine's answer), resign,
or ask for a hint (the engine's top five on the board). The engine's moves come from
the workers over the bus (``genmove`` requests); after two passes the game is counted
(``views/play_count``): the judge of ``gobuddy.ai.final_status`` proposes the dead
stones (crossed out on the board, territory shaded, the groups listed, unsure ones
ringed), the players toggle groups by clicking a stone or its box, and "Accept the
count" stores the area count.

Storage, decided: the page publishes the game's events (and the retained board state)
on a web board ``web-<n>`` exactly like a physical board, and the recorder stores them;
there is one path into the database. Without a running recorder the game is played
but not stored. The Live page can follow a web game like any other.

Playing needs the player role (``dashboard.access``): each run of the page checks it on
the server (``views/login.require``) before it handles any click.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.board_svg import board_svg
from dashboard.live_feed import LiveFeed, position_request
from dashboard.views.click_board import clickable_board
from dashboard.views.game_board import candidates_table, last_vertex, recommendations, show_winrate
from dashboard.views.login import require
from dashboard.views.page_context import Services, current, session_id
from dashboard.views.play_count import COUNT, Count, count_panel, current_count, describe
from dashboard.views.play_game import IllegalMove, PlayGame
from gobuddy.bus import topics
from gobuddy.bus.delivery import PublishRejected
from gobuddy.bus.messages import GameEvent
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import CoordinateError
from gobuddy.go.handicap import HandicapError

STRENGTHS = (10, 25, 50, 100, 200, 400, 800, 1600)
SIZES = (9, 13, 19, 7, 5)
GAME = "play_game"


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


def engine_trouble(exc: Exception) -> str:
    """What to tell the player when the engine did not answer: busy workers say so."""
    if isinstance(exc, EngineRequestFailed) and exc.busy:
        after = exc.error.retry_after_ms
        return ("the engines are busy with other boards right now; ask again"
                + (f" in {max(1, round(after / 1000))} s" if after else ""))
    return str(exc)


def ask_engine(services: Services, game: PlayGame, purpose: str, visits: int, ownership: bool = False) -> Any:
    """The engine's answer for the game's current position (blocking, with a spinner)."""
    request = position_request(purpose, size=game.size, komi=game.komi, rules=game.rules, setup=game.setup,
                               moves=game.moves, to_play=game.to_play, visits=visits,
                               timeout_s=services.config.analysis_timeout_s, board_id=game.board_id,
                               include_ownership=ownership)
    return services.feed.request(request)


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
    publish(services.feed, game, game.end_by_score(count.dead_vertices()))


def engine_move(services: Services, game: PlayGame) -> None:
    """Ask for and play the engine's move, publish it, and count the game after two passes."""
    try:
        answer = ask_engine(services, game, "genmove", game.visits)
    except (TimeoutError, EngineRequestFailed, ConnectionError) as exc:
        st.session_state["play_engine_error"] = engine_trouble(exc)
        return
    vertex = answer.moves[0].move if answer.moves else "pass"
    try:
        events = game.play(vertex)
    except IllegalMove as exc:
        st.session_state["play_engine_error"] = f"the engine answered an illegal move: {exc}"
        return
    st.session_state["play_last_answer"] = answer.to_dict()
    publish(services.feed, game, events)
    if game.counting:
        start_count(services, game)


def human_move(services: Services, game: PlayGame, vertex: str) -> None:
    try:
        events = game.play(vertex)
    except (IllegalMove, CoordinateError) as exc:
        st.session_state["play_message"] = ("warning", str(exc))
        return
    publish(services.feed, game, events)
    if game.counting:
        start_count(services, game)


def new_game_form(services: Services) -> None:
    st.subheader("New game")
    with st.form("play_new"):
        c1, c2, c3 = st.columns(3)
        name = c1.text_input("Your name", value="guest", max_chars=64)
        colour = c2.radio("You play", ["Black", "White"], horizontal=True)
        size = c3.selectbox("Board size", SIZES)
        c4, c5, c6 = st.columns(3)
        komi = c4.number_input("Komi", value=7.0, step=0.5, min_value=-50.0, max_value=50.0)
        handicap = c5.selectbox("Handicap stones (black)", [0, 2, 3, 4, 5, 6, 7, 8, 9])
        visits = c6.select_slider("Engine strength (visits per move)", STRENGTHS, value=200)
        started = st.form_submit_button("Start the game", type="primary")
    if not started:
        return
    try:
        board_id = services.feed.claim_web_slot(session_id())
        game = PlayGame.new(board_id, size=size, komi=float(komi), handicap=handicap, human=colour[0],
                            visits=visits, player_name=name)
    except (HandicapError, RuntimeError) as exc:
        st.error(str(exc))
        return
    for key in ("play_hint", "play_last_answer", "play_engine_error", COUNT):
        st.session_state.pop(key, None)
    if publish(services.feed, game, game.start()):
        st.session_state[GAME] = game
        st.rerun()


def show_message() -> None:
    message = st.session_state.pop("play_message", None)
    if message:
        (st.warning if message[0] == "warning" else st.error)(message[1])


def controls(services: Services, game: PlayGame) -> None:
    """The buttons; each changes the game, publishes, and reruns."""
    your_turn = not game.over and not game.counting and not game.engine_to_play
    c1, c2, c3 = st.columns(3)
    if c1.button("Pass", disabled=not your_turn, key="play_pass"):
        human_move(services, game, "pass")
        st.rerun()
    if c2.button("Undo", disabled=game.over or not game.moves, key="play_undo"):
        events = game.undo()
        st.session_state.pop("play_engine_error", None)
        if events:
            publish(services.feed, game, events)
        st.rerun()
    if c3.button("Resign", disabled=game.over, key="play_resign"):
        publish(services.feed, game, game.resign(game.human))
        st.rerun()
    c4, c5 = st.columns(2)
    if c4.button("Hint", disabled=not your_turn, key="play_hint_button", icon=":material/lightbulb:"):
        with st.spinner("Asking the engine…"):
            try:
                answer = ask_engine(services, game, "hint", services.config.analysis_visits)
            except (TimeoutError, EngineRequestFailed, ConnectionError) as exc:
                st.session_state["play_message"] = ("error", f"No hint: {engine_trouble(exc)}")
            else:
                st.session_state["play_hint"] = (len(game.moves), answer.to_dict())
        st.rerun()
    if c5.button("New game", key="play_new_game"):
        if not game.over and game.moves:
            publish(services.feed, game, game.abandon())  # stored as unfinished: result "?"
        st.session_state.pop(GAME, None)
        st.rerun()


def typed_move(game: PlayGame) -> str | None:
    """The keyboard way to play: type a point (e.g. D4); returns it when submitted."""
    with st.form("play_typed", clear_on_submit=True, border=False):
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        text = c1.text_input("Or type a point", placeholder="e.g. D4", key="play_typed_point")
        sent = c2.form_submit_button("Play", disabled=game.over or game.counting)
    return (text.strip().upper() or None) if sent else None


def render() -> None:
    services = current()
    st.title("Play against the engine")
    if not require("play"):  # every move, hint and engine request below runs in this run, after this check
        return
    if not services.feed.has_bus:
        st.info("Playing needs the engine workers, which the dashboard reaches over the broker; this "
                "dashboard runs without one (--no-bus).")
        return
    game: PlayGame | None = st.session_state.get(GAME)
    if game is None:
        new_game_form(services)
        return
    show_message()
    hint = st.session_state.get("play_hint")
    hint_answer = hint[1] if hint and hint[0] == len(game.moves) else None
    pos = game.position()
    count = current_count(game) if game.counting or game.reason == "score" else None
    if game.counting and count is None:  # e.g. the session came back after the passes
        with st.spinner("Counting…"):
            count = start_count(services, game)
    marks = {} if count is None else dict(ownership=count.territory(game), dead=count.dead_vertices(),
                                          highlights=count.unsure_vertices() if game.counting else ())
    left, right = st.columns([3, 2], gap="large")
    with left:
        svg = board_svg(game.size, pos.board, last_move=last_vertex(game.moves),
                        recommendations=recommendations(hint_answer), move_count=len(game.moves), **marks)
        nonce = st.session_state.get("play_clicks", 0)
        clicked = clickable_board(svg, game.size, key=f"play-{game.game_id}-{game.seq}-{nonce}")
    with right:
        you, engine = ("black", "white") if game.human == "B" else ("white", "black")
        st.markdown(f"You play **{you}** against gobuddy ({game.visits} visits) · {game.size}x{game.size}, "
                    f"komi {game.komi:g}" + (f", handicap {game.handicap}" if game.handicap else ""))
        caps = game.state().captures
        st.caption(f"Move {len(game.moves)} · captures: black {caps['B']}, white {caps['W']} · board {game.board_id}")
        accepted = False
        if game.counting and count is not None:
            accepted = count_panel(game, count)
        elif game.over:
            st.success(f"Game over: {game.result} ({game.reason})")
            if count is not None and count.dead:
                st.caption("Counted dead: " + "; ".join(describe(count.status.groups[i], game.size)
                                                          for i in sorted(count.dead)))
            if st.button("Open in Replay", key="play_replay"):
                st.session_state["replay_game"] = game.game_id
                st.switch_page("views/replay.py", query_params={"game": game.game_id})
        elif game.engine_to_play:
            st.markdown(f"**The engine ({engine}) is to play.**")
        else:
            st.markdown("**Your move** — click a point on the board.")
        last = st.session_state.get("play_last_answer")
        if last and not game.over:
            show_winrate(last)
        if hint_answer:
            st.caption("Hint: the engine's top five for you")
            st.dataframe(candidates_table(hint_answer), hide_index=True, width="stretch")
        typed = typed_move(game)
        controls(services, game)
        error = st.session_state.get("play_engine_error")
        if error and game.engine_to_play:
            st.error(f"The engine did not move: {error}")
            if st.button("Ask the engine again", key="play_retry"):
                st.session_state.pop("play_engine_error", None)
                st.rerun()
    if clicked is not None:
        st.session_state["play_clicks"] = nonce + 1  # a fresh chart: each click is handled once
    if accepted and count is not None:
        accept_count(services, game, count)
        st.rerun()
    if clicked is not None and count is not None and game.counting:
        count.toggle_at(clicked)  # a click on a stone counts its group dead or alive
        st.rerun()
    clicked = clicked or typed
    if clicked is not None:
        if game.over or game.counting or game.engine_to_play:
            st.session_state["play_message"] = ("warning", "Wait for your turn.")
        else:
            human_move(services, game, clicked)
        st.rerun()
    if game.engine_to_play and not st.session_state.get("play_engine_error"):
        with right, st.spinner("The engine is thinking…"):
            engine_move(services, game)
        st.rerun()


if __name__ == "__main__":
    render()
