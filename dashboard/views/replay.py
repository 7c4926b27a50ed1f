"""Replay: step through a stored game with the engine's view of every position, as
KaTrain and Sabaki users expect.

Left, and sticky (it stays in view while the right side scrolls): the step buttons
(Left/Right: one move, Home/End: the start and the end), the slider, and the board with
the engine's top five, the mistakes marked on the stones in their class colour
(``move_list.board_marks``), a candidate's line as numbered stones while the pointer is
over it (or always, for the one chosen under "Show the line of"), and the territory
where the analysis has an ownership. Right: the win rate and score lead over the game
(``score_graph``: a click on a move's column goes there), the candidates, what the next
move cost, the buttons that ask the engine (this position; the whole game spread over
all workers; "think longer": more visits, the answer growing on the page, the deeper
answer stored), tabs: every move with its loss (``move_list``: a click jumps there),
the mistakes worst first, the report per player with the SGF download (the review as
comments, the variations as branches); and "Try another move here" (``variations``:
try moves on the board or by name and see the engine's answer, kept as a tree, never
changing the stored game; an imported SGF's variations and comments are there too).
Asking the engine and trying moves need the player role (``dashboard.access``),
checked when the request would go out; a viewer sees what is stored. A refused move
is a toast, which floats: nothing on the page moves.

The page opens on the game in the URL (``?game=``), else the latest finished game.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

import streamlit as st

from dashboard.board_svg import board_svg
from dashboard.mistakes import CLASSES, GameReview, MoveReview, review_game
from dashboard.store import RecordError, Store, UnknownGame
from dashboard.store.games import GameDetail
from dashboard.store.replay import play, start_position
from dashboard.store.sgf_io import export_sgf
from dashboard.views import variations as var
from dashboard.views.click_board import clickable_board
from dashboard.views.game_analysis import analyse_positions, batch_timeout, think_longer, try_move
from dashboard.views.game_board import (candidates_table, hover_lines, last_vertex, line_of, passes_recommended,
                                        recommendations, show_winrate)
from dashboard.views.games import default_game
from dashboard.views.login import can, require
from dashboard.views.move_list import board_marks, mistakes_list, move_list
from dashboard.views.page_context import Services, current
from dashboard.views.score_graph import clickable_graph
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.position import Position

MOVE = "replay_move"
GENERATION = "replay_generation"
CACHE_S = 5.0


def choose_game(store: Store) -> str | None:
    games = cached("replay_games", None, lambda: store.list_games(limit=200).games)
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
        st.session_state["replay_game"] = wanted if wanted in ids else (default_game(games) or ids[0])
    game_id = st.selectbox("Game", ids, key="replay_game", format_func=lambda i: titles.get(i, i))
    if st.query_params.get("game") != game_id:
        st.query_params["game"] = game_id
    return game_id


def cached(name: str, key: Any, make: Any) -> Any:
    """``make()``, kept in this session for ``CACHE_S`` seconds under ``key`` (a new key,
    or ``fresh()``, loads again): stepping through a game reads the database once."""
    now = time.monotonic()
    tag = (key, st.session_state.get(GENERATION, 0))
    held = st.session_state.get(name)
    if held is not None and held[0] == tag and now - held[1] < CACHE_S:
        return held[2]
    value = make()
    st.session_state[name] = (tag, now, value)
    return value


def fresh() -> None:
    """What was stored changed (an analysis): the next run reads the database again."""
    st.session_state[GENERATION] = int(st.session_state.get(GENERATION, 0)) + 1


def load(store: Store, game_id: str) -> tuple[GameDetail, dict, dict[int, Any], list]:
    """The game, its position keys, its stored analyses (move count -> answer) and the
    problems the board reported (``cached``)."""
    def read() -> tuple[GameDetail, dict, dict[int, Any], list]:
        return (store.get_game(game_id), store.position_keys(game_id),
                {n: a.answer for n, a in store.analyses_for_game(game_id).items()}, store.problems(game_id))

    return cached("replay_data", game_id, read)


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """Rows as a Markdown table (lighter than a dataframe at every step)."""
    if not rows:
        return ""
    head = list(rows[0])
    cell = lambda v: str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(r.get(h, "")) for h in head) + " |" for r in rows]
    return "\n".join(lines)


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
    c = st.columns(4, vertical_alignment="center")
    c[0].button("Start", key="replay_first", on_click=_go, args=(0,), shortcut="Home", icon=":material/first_page:", width="stretch")
    c[1].button("Back", key="replay_prev", on_click=_step, args=(-1, last), shortcut="Left",
                icon=":material/chevron_left:", width="stretch")
    c[2].button("Next", key="replay_next", on_click=_step, args=(1, last), shortcut="Right",
                icon=":material/chevron_right:", width="stretch")
    c[3].button("End", key="replay_last", on_click=_go, args=(last,), shortcut="End", icon=":material/last_page:", width="stretch")
    if last > 0:
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


STICKY = ("<style>[data-testid='stColumn']:has(.st-key-replay_board_col)"
          "{position:sticky;top:3.75rem;align-self:flex-start;z-index:2}</style>")
THINK_FACTOR = 4


def analysis_buttons(services: Services, detail: GameDetail, keys: dict, answers: Mapping[int, Any], n: int) -> None:
    """Analyse this position (also when its analysis lacks the ownership), the whole
    game, or think longer about this one; with progress, then the page runs again."""
    feed, config = services.feed, services.config
    if not feed.has_bus:
        st.caption("No broker configured: only stored analyses are shown.")
        return
    allowed = can("analyse")  # the buttons stay (disabled) for viewers; a click is checked below all the same
    if not allowed:
        st.caption("Asking the engine needs the player role: only stored analyses are shown.")
    answer = answers.get(n)
    missing = [k for k in sorted(keys) if k not in answers]
    stored_visits = int(answer["root"]["visits"]) if answer else 0
    has_owner = bool(answer and answer.get("ownership") is not None)
    deeper = min(100_000, THINK_FACTOR * max(stored_visits, config.analysis_visits))
    c = st.columns(3)
    one = c[0].button("Analyse this position", key="replay_ask", disabled=(answer is not None and has_owner)
                      or not allowed, width="stretch",
                      help="Asks again where the stored analysis has no ownership")
    whole = c[1].button(f"Analyse the game ({len(missing)} left)", key="replay_all",
                        disabled=not missing or not allowed, type="primary", width="stretch",
                        help="Every position not analysed yet, spread over all engine workers")
    longer = c[2].button(f"Think longer ({deeper} visits)", key="replay_think", disabled=not allowed,
                         width="stretch", icon=":material/hourglass_top:",
                         help="A deeper search of this position, shown as it grows; the deeper answer is stored")
    if longer and require("analyse"):
        think(services, detail, keys, n, deeper)
        return
    numbers = [n] if one else (missing if whole else [])
    if not numbers or not require("analyse"):
        return
    workers = sum(p.online for p in feed.presence("engine"))
    bar = st.progress(0.0, text=f"Asking {workers} engine worker(s) about {len(numbers)} position(s)…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(1, total), text=f"{done} of {total} positions analysed")

    visits = max(config.analysis_visits, stored_visits) if one else config.analysis_visits
    run = analyse_positions(feed, services.store, detail, keys, numbers, visits=visits,
                            timeout_s=batch_timeout(config.analysis_timeout_s, len(numbers), workers),
                            progress=progress)
    st.session_state["replay_run"] = (run.stored, dict(list(run.failed.items())[:5]), len(run.failed), run.seconds)
    fresh()
    st.rerun()


def think(services: Services, detail: GameDetail, keys: dict, n: int, visits: int) -> None:
    """Think longer about the position after ``n`` moves: each partial answer shown in
    place (visits, best move, win rate), the final one stored, then the page runs again."""
    shown = st.empty()

    def grown(answer: Mapping[str, Any]) -> None:
        best = (answer.get("moves") or [{}])[0]
        shown.info(f"Thinking… {answer['root']['visits']} visits · best {best.get('move', '?')} · "
                   f"black {100 * float(answer['root']['winrate_black']):.1f}%", icon=":material/hourglass_top:")

    shown.info(f"Thinking about move {n} with {visits} visits…", icon=":material/hourglass_top:")
    timeout_s = services.config.analysis_timeout_s * THINK_FACTOR
    try:
        final, stored = think_longer(services.feed, services.store, detail, keys, n, visits=visits, timeout_s=timeout_s,
                             on_partial=grown)
    except (TimeoutError, EngineRequestFailed, ConnectionError, ValueError) as exc:
        shown.error(f"Thinking longer failed: {exc}")
        return
    best = (final.get("moves") or [{}])[0]
    st.session_state["replay_thought"] = (f"Thought longer: {final['root']['visits']} visits · best "
                                          f"{best.get('move', '?')} · " + (
                                              "stored." if stored else "the stored analysis searched more: kept."))
    fresh()
    st.rerun()


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


def engine_asker(services: Services, detail: GameDetail, n: int) -> var.Asker | None:
    """How a tried move gets the engine's answer, or None when the engine cannot be asked."""
    if not (services.feed.has_bus and can("analyse")):
        return None

    def ask(before: list[tuple[str, str]], color: str, vertex: str) -> Mapping[str, Any]:
        if not require("analyse"):
            raise PermissionError("asking the engine needs the player role")
        return try_move(services.feed, detail, n, color, vertex, before=before,
                        visits=services.config.analysis_visits, timeout_s=services.config.analysis_timeout_s)

    return ask


def variations_panel(services: Services, detail: GameDetail, n: int, base: Position, path: var.Path,
                     moves: list[tuple[str, str]], answer: Mapping[str, Any] | None) -> None:
    """Try a move by name, play the engine's answer, step back, leave, reopen a line."""
    g = detail.game
    tree = var.tree_for(g.id)
    ask = engine_asker(services, detail, n)
    pos = var.position_after(base, moves)
    to_play = "Black" if pos.to_play == 1 else "White"
    if moves:
        line = " ".join(f"{c}\u00a0{v}" for c, v in moves)
        st.markdown(f"**Variation from move {n}:** {line} · the stored game is unchanged.")
    else:
        st.caption(f"Turn on **Try moves on the board** and click a point, or name one here: {to_play} "
                   "plays it from this position and the engine answers. The stored game is unchanged.")
    if ask is None:
        st.caption("The engine cannot be asked here (no broker, or not a player): the moves are tried "
                   "without its answers.")
    error = st.session_state.get(var.ERROR)
    if error:
        st.caption(f":red[{error}]")
    reply = (answer.get("moves") or [None])[0] if (answer and moves) else None
    if reply is not None:
        mover = 100 * float(reply["winrate"])
        st.markdown(f"The engine answers **{reply['move']}** ({to_play} {mover:.1f}%).")
    c = st.columns([2, 1], vertical_alignment="bottom")
    c[0].text_input(f"{to_play} plays", key="replay_try_text", placeholder="e.g. D4")
    c[1].button("Try", key="replay_try_button", width="stretch", on_click=_try_typed, args=(g.id, n, base, ask))
    c = st.columns(3)
    c[0].button("Its answer", key="replay_try_reply", disabled=reply is None or reply["move"] == "pass",
                on_click=var.try_point, args=(g.id, n, base, reply["move"] if reply else "", ask), width="stretch")
    c[1].button("Back one", key="replay_try_back", disabled=not moves, on_click=var.step_back, args=(g.id, n),
                width="stretch")
    c[2].button("To the game", key="replay_try_leave", disabled=not moves, on_click=var.leave,
                args=(g.id, n), width="stretch")
    lines = tree.lines(n)
    if lines:
        st.caption(f"Lines tried from move {n} (kept until the browser session ends; in the SGF download):")
        for i, nodes in enumerate(lines):
            vertices = tuple(v.vertex for v in nodes)
            st.button(" ".join(f"{v.color} {v.vertex}" for v in nodes), key=f"replay_line_{i}",
                      on_click=var.open_line, args=(g.id, n, vertices), disabled=vertices == path.vertices)


def _try_typed(game_id: str, n: int, base: Position, ask: var.Asker | None) -> None:
    typed = str(st.session_state.get("replay_try_text") or "").strip()
    if typed:
        var.try_point(game_id, n, base, typed, ask)


def sgf_download(services: Services, detail: GameDetail) -> None:
    """The game as SGF with the review and this session's variations, written when the
    button is pressed (not at every step)."""
    if not can("download"):
        st.caption("Downloading SGF needs the player role.")
        return
    if detail.missing_moves:
        st.caption(f"No SGF yet: moves {list(detail.missing_moves)[:10]} have not been received.")
        return
    game_id, lines = detail.game.id, var.tree_for(detail.game.id).for_sgf()

    def text() -> str:
        with services.store.session() as session:
            return sgf_text(session, game_id, lines)

    st.download_button("Download SGF (review and variations)", text, file_name=f"{game_id}.sgf",
                       mime="application/x-go-sgf", key="replay_download", icon=":material/download:")


def sgf_text(session: Any, game_id: str, lines: Mapping[int, Any]) -> str:
    """``export_sgf`` with the variations; one that no longer fits the game is left out."""
    try:
        return export_sgf(session, game_id, variations=lines)
    except ValueError:
        return export_sgf(session, game_id)


def the_board(services: Services, detail: GameDetail, n: int, base: Position, path: var.Path,
              moves: list[tuple[str, str]], answer: Mapping[str, Any] | None, review: GameReview) -> None:
    """The board: the game's position after ``n`` moves, or the variation's end, with
    marks, the candidates (lines on hover), the chosen line and the ownership."""
    g = detail.game
    pos = var.position_after(base, moves)
    last = moves[-1][1] if moves else last_vertex([(m.color, m.vertex) for m in detail.moves[:n]])
    shown_at = n + len(moves)
    owner = answer.get("ownership") if (answer and st.session_state.get("replay_ownership")) else None
    chosen = st.session_state.get("replay_line")
    line = []
    if answer and chosen:
        cands = [m for m in answer["moves"][:5] if m["move"] == chosen]
        line = line_of(answer, cands[0]) if cands else []
    problems = [p for p in load(services.store, g.id)[3] if p.move_number == n] if not moves else []
    svg = board_svg(g.size, pos.board, px=520, last_move=last, recommendations=recommendations(answer),
                    ownership=owner, highlights=[v for p in problems for v in p.points], move_count=shown_at,
                    marks=board_marks(review, n), line=line, hover_lines=hover_lines(answer))
    if not st.session_state.get("replay_trying"):
        st.markdown(f'<div class="gobuddy-board">{svg}</div>', unsafe_allow_html=True)
        return
    nonce = st.session_state.get("replay_try_clicks", 0)
    clicked = clickable_board(svg, g.size, key=f"replay-try-{g.id}-{n}-{len(moves)}-{nonce}", px=520)
    if clicked:
        st.session_state["replay_try_clicks"] = nonce + 1
        if var.try_point(g.id, n, base, clicked, engine_asker(services, detail, n)):
            st.rerun()  # draw the line's new end (a refused point: the toast of this run stays)


def ownership_toggle(answer: Mapping[str, Any] | None, has_bus: bool) -> None:
    """The territory toggle; says when this position's analysis has no ownership."""
    has_owner = bool(answer and answer.get("ownership") is not None)
    help_text = None if has_owner else ("Not analysed yet: Analyse this position" if not answer else
                                        "Analysed without ownership: Analyse this position to get it")
    on = st.toggle("Show territory (ownership)", key="replay_ownership", help=help_text)
    if on and not has_owner:
        where = " (needs the engine workers)" if not has_bus else ""
        st.caption(("This position is not analysed yet" if not answer else
                    "This position was analysed without ownership")
                   + f": **Analyse this position** gets it{where}.")


def messages() -> None:
    run = st.session_state.pop("replay_run", None)
    if run:
        stored, sample, failed, seconds = run
        (st.success if not failed else st.warning)(
            f"Analysed {stored} position(s) in {seconds:.1f} s" + (f"; {failed} failed, e.g. "
                                                                   + "; ".join(f"after move {k}: {v}" for k, v in sample.items())
                                                                   if failed else "."))
    thought = st.session_state.pop("replay_thought", None)
    if thought:
        st.success(thought, icon=":material/hourglass_bottom:")


def render() -> None:
    services = current()
    store = services.store
    st.title("Replay")
    st.markdown(STICKY, unsafe_allow_html=True)
    game_id = choose_game(store)
    if game_id is None:
        st.info("No game is stored yet. Play one, or import SGF files on the Games page.")
        return
    if st.session_state.get("replay_loaded") != game_id:
        st.session_state["replay_loaded"] = game_id
        st.session_state[MOVE] = 0
    try:
        detail, keys, answers, problems = load(store, game_id)
    except (UnknownGame, RecordError) as exc:
        st.error(f"This game cannot be replayed: {exc}")
        return
    last = max(keys) if keys else 0
    if detail.missing_moves:
        st.warning(f"Moves {list(detail.missing_moves)[:10]} have not been received: the replay stops at move {last}.")
    moves = [(m.number, m.color, m.vertex) for m in detail.moves[:last]]
    review = review_game(moves, answers)
    extra = detail.extra or {}
    var.tree_for(game_id, extra.get("variations"))  # an imported SGF's variations, once per session
    left, right = st.columns([3, 2], gap="large")
    with left, st.container(key="replay_board_col"):
        n = navigation(last)
        base = position_at(detail, n)
        path = var.current_path(game_id, n)
        tried = var.line_moves(var.tree_for(game_id), path)
        node = var.tree_for(game_id).node(n, [v for _, v in tried]) if tried else None
        answer = node.answer if node is not None else answers.get(n)
        the_board(services, detail, n, base, path, tried, answer, review)
        if can("analyse"):
            st.toggle("Try moves on the board", key="replay_trying",
                      help="A click plays a move in a variation from this position; the stored game is unchanged")
        else:
            st.session_state["replay_trying"] = False
    with right:
        g = detail.game
        st.markdown(f"**{g.title}** · {g.size}x{g.size}, komi {g.komi:g}, {g.rules}"
                    + (f" · result {g.result}" if g.result else ""))
        where = f"Move {n} of {last}" + (f" + {len(tried)} tried" if tried else "")
        shown_pos = var.position_after(base, tried)
        st.markdown(f"{where} · {'black' if shown_pos.to_play == 1 else 'white'} to play · captures: "
                    f"black {shown_pos.captures[1]}, white {shown_pos.captures[-1]}")
        messages()
        comment = node.comment if node is not None else (extra.get("comments") or {}).get(str(n))
        if comment:
            st.caption(f"Comment: {comment}")
        nxt = review.moves[n] if n < len(review.moves) and not tried else None
        if nxt is not None:
            st.markdown(verdict(nxt, review.unit))
        for p in (problems if not tried else []):
            if p.move_number == n:
                st.warning(f"The board reported: {p.message or p.kind}")
        show_winrate(answer)
        if answers:
            clickable_graph(answers, review, n, last, key=f"replay_graph_{game_id}", on_move=_go)
        if answer:
            st.markdown(markdown_table(candidates_table(answer)))
            cands = [m["move"] for m in answer["moves"][:5] if m.get("pv")]
            if cands:
                st.segmented_control("Show the line of", cands, key="replay_line",
                                     help="The engine's expected continuation as numbered stones "
                                          "(or point at a candidate on the board)")
            if passes_recommended(answer):
                st.caption(f"The engine suggests passing ({', '.join(passes_recommended(answer))}).")
        ownership_toggle(answer, services.feed.has_bus)
        analysis_buttons(services, detail, keys, answers, n)
        tabs = st.tabs(["Moves", "Mistakes", "Report"])
        with tabs[0]:
            move_list(review, moves, n, _go)
        with tabs[1]:
            mistakes_list(review, _go)
        with tabs[2]:
            st.markdown(markdown_table(report_table(review)))
            st.caption(f"Losses in {review.unit}; accuracy as KaTrain's (100 = no loss).")
            sgf_download(services, detail)
        with st.expander("Try another move here", icon=":material/science:", expanded=bool(tried)):
            if can("analyse"):
                variations_panel(services, detail, n, base, path, tried, answer)
            else:
                st.caption("Trying moves needs the player role.")


if __name__ == "__main__":
    render()
