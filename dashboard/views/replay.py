"""Replay: step through a stored game with the engine's view of every position.

Step with the buttons, the slider or the keyboard (Left/Right: one move, Home/End: the
start and the end). For each position: the board with the engine's top five (from the
database; a button asks the workers and stores the answer; another analyses every
position of the game at once, spread over all workers, with progress), the win-rate
bar, and what the next move cost. Below: the win rate (and the score lead where the
model has one) over the game, the mistakes ordered by how much each move lost, in
KaTrain-like classes, each a click away, a report per player, and "try another move":
click a point (or type one) and see the engine's answer to it. Asking the engine
needs the player role (``dashboard.access``), checked when the request would go out;
a viewer sees what is stored.
"""

from __future__ import annotations

from typing import Any, Mapping

import plotly.graph_objects as go
import streamlit as st

from dashboard.board_svg import board_svg
from dashboard.mistakes import CLASS_COLOURS, CLASSES, GameReview, MoveReview, review_game
from dashboard.store import RecordError, Store, UnknownGame
from dashboard.store.games import GameDetail
from dashboard.store.replay import play, start_position
from dashboard.views.click_board import clickable_board
from dashboard.views.game_analysis import analyse_positions, batch_timeout, try_move
from dashboard.views.game_board import (candidates_table, last_vertex, legal_reason, passes_recommended,
                                        recommendations, show_board, show_winrate)
from dashboard.views.login import can, require
from dashboard.views.page_context import Services, current
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import CoordinateError, from_gtp
from gobuddy.go.position import Position

MOVE = "replay_move"


def choose_game(store: Store) -> str | None:
    games = store.list_games(limit=200).games
    wanted = st.query_params.get("game") or st.session_state.get("replay_game")
    ids = [g.id for g in games]
    if wanted and wanted not in ids:
        try:
            store.get_game(wanted)
            ids.insert(0, wanted)
        except UnknownGame:
            st.warning(f"There is no game {wanted!r}.")
    if not ids:
        return None
    titles = {g.id: f"{g.started_at:%Y-%m-%d %H:%M} · {g.title} ({g.move_count} moves)" for g in games}
    if st.session_state.get("replay_game") not in ids:
        st.session_state["replay_game"] = wanted if wanted in ids else ids[0]
    game_id = st.selectbox("Game", ids, key="replay_game", format_func=lambda i: titles.get(i, i))
    if st.query_params.get("game") != game_id:
        st.query_params["game"] = game_id
    return game_id


def position_at(detail: GameDetail, n: int) -> Position:
    g = detail.game
    pos = start_position(g.size, g.rules, g.to_play, detail.setup)
    for m in detail.moves[:n]:
        play(pos, m.number, m.color, m.vertex)
    return pos


def _go(n: int) -> None:
    st.session_state[MOVE] = n


def _step(delta: int, last: int) -> None:
    """Relative to the move shown when the click is handled (two quick presses: two moves)."""
    st.session_state[MOVE] = min(last, max(0, int(st.session_state.get(MOVE, 0)) + delta))


def navigation(last: int) -> int:
    """Buttons (with keyboard shortcuts) and a slider; returns the move count shown."""
    n = min(max(0, int(st.session_state.get(MOVE, 0))), last)
    st.session_state[MOVE] = n
    c = st.columns([1.5, 1.5, 1.5, 1.5, 3], vertical_alignment="center")
    c[0].button("Start", key="replay_first", on_click=_go, args=(0,), shortcut="Home", icon=":material/first_page:")
    c[1].button("Back", key="replay_prev", on_click=_step, args=(-1, last), shortcut="Left",
                icon=":material/chevron_left:")
    c[2].button("Next", key="replay_next", on_click=_step, args=(1, last), shortcut="Right",
                icon=":material/chevron_right:")
    c[3].button("End", key="replay_last", on_click=_go, args=(last,), shortcut="End", icon=":material/last_page:")
    if last > 0:
        with c[4]:
            st.slider("Move", 0, last, key=MOVE, label_visibility="collapsed")
    return int(st.session_state[MOVE])


def verdict(move: MoveReview | None, unit: str) -> str:
    """One line about the move played from this position."""
    if move is None:
        return ""
    played = f"Next: move {move.number}, {'black' if move.color == 'B' else 'white'} {move.vertex}"
    if move.loss is None:
        return played + (f" · the engine preferred {move.best}" if move.best and move.best != move.vertex else "")
    unit_text = "points" if unit == "points" else "% win rate"
    best = "" if move.top_move else (f", the engine preferred {move.best}" if move.best else "")
    return f"{played}: lost {move.loss:.1f} {unit_text} ({move.category}){best}"


def winrate_graph(answers: Mapping[int, Mapping[str, Any]], review: GameReview, n: int) -> go.Figure:
    xs = sorted(answers)
    fig = go.Figure()
    colours = {m.number: CLASS_COLOURS[m.category] for m in review.moves if m.category}
    fig.add_trace(go.Scatter(x=xs, y=[100 * answers[x]["root"]["winrate_black"] for x in xs], mode="lines+markers",
                             name="black win rate %", line=dict(color="#222"),
                             marker=dict(color=[colours.get(x, "#222") for x in xs], size=7)))
    leads = [(x, a["root"]["score_lead"] if a["to_play"] == "B" else -a["root"]["score_lead"])
             for x, a in sorted(answers.items()) if a["root"].get("score_lead") is not None]
    if leads:
        fig.add_trace(go.Scatter(x=[x for x, _ in leads], y=[y for _, y in leads], name="black score lead",
                                 yaxis="y2", mode="lines", line=dict(color="#1565c0", dash="dot")))
    fig.add_vline(x=n, line=dict(color="#d32f2f", width=1))
    fig.add_hline(y=50, line=dict(color="#999", width=1, dash="dash"))
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=10, b=10), legend=dict(orientation="h", y=1.15),
                      xaxis=dict(title="move"), yaxis=dict(title="black win rate %", range=[0, 100]),
                      yaxis2=dict(title="score lead", overlaying="y", side="right", showgrid=False))
    return fig


def analysis_buttons(services: Services, detail: GameDetail, keys: dict, answers: Mapping[int, Any], n: int) -> None:
    feed, config = services.feed, services.config
    if not feed.has_bus:
        st.caption("No broker configured: only stored analyses are shown.")
        return
    allowed = can("analyse")  # the buttons stay (disabled) for viewers; a click is checked below all the same
    if not allowed:
        st.caption("Asking the engine needs the player role: only stored analyses are shown.")
    missing = [k for k in sorted(keys) if k not in answers]
    one = st.button("Analyse this position", key="replay_ask", disabled=n in answers or not allowed, width="stretch")
    whole = st.button(f"Analyse the game ({len(missing)} left)", key="replay_all", disabled=not missing or not allowed,
                      type="primary", width="stretch",
                      help="Every position not analysed yet, spread over all engine workers")
    numbers = [n] if one else (missing if whole else [])
    if not numbers or not require("analyse"):
        return
    workers = sum(p.online for p in feed.presence("engine"))
    bar = st.progress(0.0, text=f"Asking {workers} engine worker(s) about {len(numbers)} position(s)…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(1, total), text=f"{done} of {total} positions analysed")

    run = analyse_positions(feed, services.store, detail, keys, numbers, visits=config.analysis_visits,
                            timeout_s=batch_timeout(config.analysis_timeout_s, len(numbers), workers),
                            progress=progress)
    st.session_state["replay_run"] = (run.stored, dict(list(run.failed.items())[:5]), len(run.failed), run.seconds)
    st.rerun()


def mistakes_list(review: GameReview) -> None:
    found = review.mistakes("inaccuracy")
    unit = "points" if review.unit == "points" else "% win rate"
    if not found:
        st.caption("No inaccuracy or worse among the analysed moves.")
        return
    for m in found[:30]:
        who = "Black" if m.color == "B" else "White"
        label = f"Move {m.number} · {who} {m.vertex} · −{m.loss:.1f} {unit} · {m.category}" + (
            f" (best {m.best})" if m.best and not m.top_move else "")
        st.button(label, key=f"replay_mistake_{m.number}", on_click=_go, args=(m.number - 1,), width="stretch")


def report_table(review: GameReview) -> list[dict[str, Any]]:
    rows = []
    for color in "BW":
        p = review.players[color]
        row: dict[str, Any] = {"player": "Black" if color == "B" else "White", "moves judged": p.moves,
                               "accuracy": f"{p.accuracy:.0f}" if p.accuracy is not None else "–",
                               "top move": f"{100 * p.top_move_rate:.0f}%" if p.top_move_rate is not None else "–",
                               "top five": f"{100 * p.top5_rate:.0f}%" if p.top5_rate is not None else "–"}
        row.update({name: p.histogram.get(name, 0) for name in CLASSES})
        rows.append(row)
    return rows


def try_another(services: Services, detail: GameDetail, pos: Position, n: int, answer: Mapping | None) -> None:
    g = detail.game
    color = "B" if pos.to_play == 1 else "W"
    st.caption(f"{'Black' if color == 'B' else 'White'} to play: click a point (or type it) to see the "
               "engine's answer to that move.")
    svg = board_svg(g.size, pos.board, recommendations=recommendations(answer), move_count=n, px=420)
    nonce = st.session_state.get("replay_try_clicks", 0)
    clicked = clickable_board(svg, g.size, key=f"replay-try-{g.id}-{n}-{nonce}", px=420)
    typed = st.text_input("Point", key=f"replay_try_text_{n}", placeholder="e.g. D4")
    go_typed = st.button("Try this move", key="replay_try_button", disabled=not typed)
    vertex = clicked or (typed.strip().upper() if go_typed else None)
    if clicked:
        st.session_state["replay_try_clicks"] = nonce + 1
    if vertex:
        try:
            why = legal_reason(pos, vertex)
        except CoordinateError as exc:
            why = str(exc)
        if why:
            st.warning(f"{vertex} is not possible: {why}")
        elif require("analyse"):
            with st.spinner(f"Asking the engine about {vertex}…"):
                try:
                    result = try_move(services.feed, detail, n, color, vertex, visits=services.config.analysis_visits,
                                      timeout_s=services.config.analysis_timeout_s)
                except (TimeoutError, EngineRequestFailed, ConnectionError) as exc:
                    st.error(f"No answer: {exc}")
                    return
            st.session_state["replay_try"] = (g.id, n, color, vertex, result)
    tried = st.session_state.get("replay_try")
    if not tried or tried[:2] != (g.id, n):
        return
    _, _, color, vertex, result = tried
    mover_rate = result["root"]["winrate_black"] if color == "B" else 1 - result["root"]["winrate_black"]
    text = f"After {'black' if color == 'B' else 'white'} {vertex}: {100 * mover_rate:.1f}% for {color}"
    if answer and answer["moves"]:
        best = answer["moves"][0]
        text += f" · the engine's best here, {best['move']}, gives {100 * best['winrate']:.1f}%"
    st.markdown(text)
    after = pos.copy()
    after.play(from_gtp(vertex, g.size))
    show_board(g.size, after.board, last_move=vertex, answer=result, move_count=n + 1, px=420)
    st.dataframe(candidates_table(result), hide_index=True, width="stretch")


def render() -> None:
    services = current()
    store = services.store
    st.title("Replay")
    game_id = choose_game(store)
    if game_id is None:
        st.info("No game is stored yet. Play one, or import SGF files on the Games page.")
        return
    if st.session_state.get("replay_loaded") != game_id:
        st.session_state["replay_loaded"] = game_id
        st.session_state[MOVE] = 0
    try:
        detail = store.get_game(game_id)
        keys = store.position_keys(game_id)
    except (UnknownGame, RecordError) as exc:
        st.error(f"This game cannot be replayed: {exc}")
        return
    answers = {n: a.answer for n, a in store.analyses_for_game(game_id).items()}
    last = max(keys) if keys else 0
    if detail.missing_moves:
        st.warning(f"Moves {list(detail.missing_moves)[:10]} have not been received: the replay stops at move {last}.")
    run = st.session_state.pop("replay_run", None)
    if run:
        stored, sample, failed, seconds = run
        (st.success if not failed else st.warning)(
            f"Analysed {stored} position(s) in {seconds:.1f} s" + (f"; {failed} failed, e.g. "
                                                                   + "; ".join(f"after move {k}: {v}" for k, v in sample.items())
                                                                   if failed else "."))
    n = navigation(last)
    pos = position_at(detail, n)
    answer = answers.get(n)
    moves = [(m.number, m.color, m.vertex) for m in detail.moves[:last]]
    review = review_game(moves, answers)
    problems = [p for p in store.problems(game_id) if p.move_number == n]
    left, right = st.columns([3, 2], gap="large")
    with left:
        show_board(detail.game.size, pos.board, last_move=last_vertex([(m.color, m.vertex) for m in detail.moves[:n]]),
                   answer=answer, ownership=st.session_state.get("replay_ownership", False),
                   highlights=[v for p in problems for v in p.points], move_count=n)
    with right:
        g = detail.game
        st.markdown(f"**{g.title}** · {g.size}x{g.size}, komi {g.komi:g}, {g.rules}"
                    + (f" · result {g.result}" if g.result else ""))
        st.markdown(f"Move {n} of {last} · {'black' if pos.to_play == 1 else 'white'} to play · captures: "
                    f"black {pos.captures[1]}, white {pos.captures[-1]}")
        nxt = review.moves[n] if n < len(review.moves) else None
        if nxt is not None:
            st.markdown(verdict(nxt, review.unit))
        for p in problems:
            st.warning(f"The board reported: {p.message or p.kind}")
        show_winrate(answer)
        if answer:
            st.dataframe(candidates_table(answer), hide_index=True, width="stretch")
            if passes_recommended(answer):
                st.caption(f"The engine suggests passing ({', '.join(passes_recommended(answer))}).")
        st.toggle("Show territory (ownership)", key="replay_ownership")
        analysis_buttons(services, detail, keys, answers, n)
    if answers:
        st.subheader("Win rate over the game")
        st.plotly_chart(winrate_graph(answers, review, n), key="replay_graph", config={"displayModeBar": False})
    c1, c2 = st.columns([3, 2], gap="large")
    with c1:
        st.subheader("Mistakes")
        mistakes_list(review)
    with c2:
        st.subheader("Report")
        st.dataframe(report_table(review), hide_index=True, width="stretch")
        st.caption(f"Losses in {review.unit}; accuracy as KaTrain's (100 = no loss).")
    with st.expander("Try another move here", icon=":material/science:"):
        if services.feed.has_bus and can("analyse"):
            try_another(services, detail, pos, n, answer)
        elif services.feed.has_bus:
            st.caption("Asking the engine needs the player role.")
        else:
            st.caption("Needs the engine workers (the dashboard runs with --no-bus).")


if __name__ == "__main__":
    render()
