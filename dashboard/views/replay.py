"""Replay: step through a stored game with the engine's view of every position, as
KaTrain and Sabaki users expect.

Left, and sticky (it stays in view while the right side scrolls): the step buttons
(Left/Right: one move, Home/End: the start and the end), the slider, and the board with
the engine's top five, the mistakes marked on the stones in their class colour
(``move_list.board_marks``), a candidate's line as numbered stones while the pointer is
over it (or always, for the one chosen under "Show the line of", stepped through move by
move with its slider), and the territory
where the analysis has an ownership. Right: the win rate and score lead over the game
(``score_graph``: a click on a move's column goes there), the candidates and why the
engine's first choice is good, what the next move cost and, for an inaccuracy or
worse, why in plain words (``reasons``: the explainer with the stored analyses before
and after it, ranked; the first reason's points squared on the board), the buttons
that ask the engine (this position; the whole game spread over all workers; "think
longer": more visits, the answer growing on the page, the deeper answer stored), tabs:
the mistakes worst first (each with its first reasons; the tab open first), every move
with its loss (``move_list``: a click jumps there), the report per player with the SGF
download (the review as comments, the variations as branches); and "Try another move here" (``variations``:
try moves on the board or by name and see the engine's answer, kept as a tree, never
changing the stored game; an imported SGF's variations and comments are there too).
Asking the engine and trying moves need the player role (``dashboard.access``),
checked when the request would go out; a viewer sees what is stored. A refused move
is a toast, which floats: nothing on the page moves.

The page opens on the game in the URL (``?game=``; with ``?move=m``, on the position move
m is played in, as the Player page links a mistake), else the latest finished game.

A step is drawn in the browser, with no run of the page: the full run (the game read,
reviewed and replayed once: ``Loaded``) sends the whole main line to the board's
component (``replay_stepper``, data from ``replay_frames``), whose buttons, keys and
slider, the move list and the mark under the graph step it there at once. The server
learns the move shown a moment after the last step (``follow``), and then reruns only
the panels that show the position (``VIEWS``: the panel beside the board, the
variations; the board itself only when it shows something the browser cannot draw:
a variation, the line chosen, trying moves), with what the full run read: no
database, no review, no graph. A jump from the server (a mistake or the graph
clicked: ``_go``; the move set by another page) moves the browser's board. The tabs
and the variations box draw their content only while open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import streamlit as st

from dashboard.board_svg import HOVER_STYLE, board_svg
from dashboard.mistakes import GameReview, MoveReview, review_game
from dashboard.store import Store, UnknownGame
from dashboard.store.games import GameDetail
from dashboard.views import replay_stepper as stepper
from dashboard.views import variations as var
from dashboard.views.game_board import (candidates_table, hover_lines, last_vertex, line_of, passes_recommended,
                                        recommendations, show_winrate)
from dashboard.views.games import default_game
from dashboard.views.login import can
from dashboard.views.move_list import HEIGHT, board_marks, entries, mistakes_list
from dashboard.views.page_context import Services, current
from dashboard.views.reasons import mark_where, show_reasons
from dashboard.views.replay_data import cached, load
from dashboard.views.replay_engine import analysis_buttons, engine_asker, ownership_toggle
from dashboard.views.replay_frames import frames
from dashboard.views.replay_reasons import (article, best_reasons, is_mistake, mistake_points, mistakes_why,
                                            played_reasons, verdict)
from dashboard.views.replay_report import count_words, report_table, sgf_download
from dashboard.views.score_graph import MARGIN, clickable_graph
from gobuddy.explain import Reason
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.position import Position
from gobuddy.go.record import GameError

MOVE = "replay_move"
KNOWN = "replay_known"  # the move the browser's board was last told or told us: MOVE set elsewhere is a jump
COUNTED_AT = "replay_counted_at"  # the final position when its count named dead stones: the server draws them
VIEWS = ("replay_board", "replay_panel", "replay_try")  # the server's views of the position
TRY_OPEN, TABS = "replay_try_open", "replay_tabs"
PX = 520
SHORT_NAMES = {"rank": "#", "win rate": "win", "score lead": "lead"}


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
        st.query_params.pop("move", None)  # a link's move was for its game
    return game_id


def markdown_table(rows: list[dict[str, Any]], names: Mapping[str, str] | None = None) -> str:
    """Rows as a Markdown table (lighter than a dataframe at every step); ``names``
    shortens column titles."""
    if not rows:
        return ""
    head = list(rows[0])
    cell = lambda v: str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join((names or {}).get(h, h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(r.get(h, "")) for h in head) + " |" for r in rows]
    return "\n".join(lines)


def show_position(views: tuple[str, ...] | None = None) -> None:
    """Redraw the server's views of the position (``views``, else all of ``VIEWS``) and
    nothing else: called last in the callbacks that change what is shown (a click in
    the mistakes or the graph, a line tried, the move the browser shows)."""
    st.rerun(list(views or VIEWS))


def _go(n: int) -> None:
    """Jump: the browser's board goes to move count ``n`` too."""
    stepper.jump_to(st.session_state, MOVE, n)
    st.session_state[KNOWN] = n
    show_position()


def follow(n: int) -> None:
    """The browser's board shows move count ``n`` (stepped there): the panels follow;
    the board is drawn again only where the server's drawing of it shows more than the
    browser draws (a variation, the line chosen, trying moves, the stones counted dead)."""
    state = st.session_state
    path = state.get(var.PATH)
    board = bool(state.get("replay_line") or state.get("replay_trying") or getattr(path, "vertices", ())
                 or n == state.get(COUNTED_AT))
    state[MOVE] = state[KNOWN] = n
    show_position(VIEWS if board else tuple(v for v in VIEWS if v != "replay_board"))


def shown_move(last: int) -> int:
    """The move count shown (kept within the game)."""
    return min(max(0, int(st.session_state.get(MOVE, 0))), last)


STICKY = ("<style>[data-testid='stColumn']:has(.st-key-replay_board_col)"
          "{position:sticky;top:3.75rem;align-self:flex-start;z-index:2}</style>")


@dataclass(frozen=True)
class Loaded:
    """What a full run of the page read and worked out for the game, once: the views
    that redraw at a step (the fragments of ``VIEWS``) get it as it was then."""

    services: Services
    detail: GameDetail
    keys: dict
    answers: dict[int, Any]
    problems: list
    review: GameReview
    moves: list[tuple[int, str, str]]  # (number, colour, vertex) of the moves replayed
    game: GoGame  # the game up to ``last``, replayed once: the positions come from it
    reasons: dict[int, list[str]]  # move count -> the points of the first reason the next move was a mistake
    dead: list[str] | None = None  # the stones the final count lifted (None: no count named them)
    made: dict = field(default_factory=dict, compare=False)  # the browser's frames, made once per full run

    def frames(self, ownership: bool) -> dict[str, Any]:
        """The main line for the browser's board (``replay_frames``), with the ownership or without."""
        if ownership not in self.made:
            problems = {}
            for p in self.problems:
                problems.setdefault(p.move_number, []).extend(p.points)
            self.made[ownership] = frames(self.game, self.moves, self.answers, self.review, px=PX,
                                          ownership=ownership, problems=problems, reasons=self.reasons)
        return self.made[ownership]

    @property
    def last(self) -> int:
        return len(self.moves)


@dataclass(frozen=True)
class Shown:
    """The position shown: after ``n`` moves of the game (``base``), then the moves
    ``tried`` of the variation being looked at (``pos``), with its engine answer, the
    next move of the game (reviewed, when no variation is shown) and why it was a mistake."""

    n: int
    base: Position
    path: var.Path
    tried: list[tuple[str, str]]
    node: var.VarNode | None
    answer: Mapping[str, Any] | None
    pos: Position
    nxt: MoveReview | None
    why: list[Reason]


def shown(page: Loaded, n: int) -> Shown:
    g = page.detail.game
    base = page.game.position_at(n)
    path = var.current_path(g.id, n)
    tree = var.tree_for(g.id)
    tried = var.line_moves(tree, path)
    node = tree.node(n, [v for _, v in tried]) if tried else None
    answer = node.answer if node is not None else page.answers.get(n)
    nxt = page.review.moves[n] if n < len(page.review.moves) and not tried else None
    why = played_reasons(page.detail, page.answers, nxt, base) if is_mistake(nxt) else []
    return Shown(n, base, path, tried, node, answer, var.position_after(base, tried), nxt, why)


def the_board(page: Loaded, s: Shown) -> None:
    """The board: the browser's component with the whole main line, and the server's
    drawing of the position shown: the game's position after ``n`` moves, or the
    variation's end, with marks, the candidates (lines on hover), the chosen line, the
    ownership, the points the first reason of ``why`` is about and, at the end, the
    stones the final count lifted (crossed out). Trying moves, a
    click on it plays a point in a variation from the position the browser shows."""
    g, n, answer, moves = page.detail.game, s.n, s.answer, s.tried
    last = moves[-1][1] if moves else last_vertex([(c, v) for _, c, v in page.moves[:n]])
    shown_at = n + len(moves)
    ownership = bool(st.session_state.get("replay_ownership"))
    owner = answer.get("ownership") if (answer and ownership) else None
    chosen = st.session_state.get("replay_line")
    line = []
    if answer and chosen:
        cands = [m for m in answer["moves"][:5] if m["move"] == chosen]
        line = line_of(answer, cands[0]) if cands else []
        line = line[:int(st.session_state.get(f"replay_line_moves_{shown_at}_{chosen}", len(line)))]
    problems = [p for p in page.problems if p.move_number == n] if not moves else []
    svg = board_svg(g.size, s.pos.board, px=PX, last_move=last, recommendations=recommendations(answer),
                    ownership=owner, highlights=[v for p in problems for v in p.points], move_count=shown_at,
                    marks=board_marks(page.review, n), line=line, hover_lines=hover_lines(answer),
                    dead=page.dead if counted(page, s) else (), hover_style=False)  # the page has it (render): no restyling of the page at a step
    svg = mark_where(svg, s.why, g.size, px=PX)
    trying = bool(st.session_state.get("replay_trying"))

    def point(at: int, vertex: str) -> None:
        st.session_state[MOVE] = st.session_state[KNOWN] = at
        base = page.game.position_at(at)
        var.try_point(g.id, at, base, vertex, engine_asker(page.services, page.detail, at))
        show_position()  # the board shows the line's new end (a refused point: the toast floats)

    stepper.board(g.id, page.frames(ownership), n=n, svg=svg, at=n, tried=len(moves), trying=trying,
                  on_move=follow, on_point=point)


def counted(page: Loaded, s: Shown) -> bool:
    """Whether the position shown is the game's final one and its count named dead stones."""
    return page.dead is not None and s.n == page.last and not s.tried


@st.fragment(key="replay_board")
def board_view(page: Loaded) -> None:
    """The step buttons, the slider and the board (a view of ``VIEWS``)."""
    s = shown(page, shown_move(page.last))
    the_board(page, s)
    if can("analyse"):
        st.toggle("Try moves on the board", key="replay_trying", on_change=show_position,
                  help="A click plays a move in a variation from this position; the stored game is unchanged")
    else:
        st.session_state["replay_trying"] = False


@st.fragment(key="replay_panel")
def panel_view(page: Loaded) -> None:
    """What is known of the position shown: where it is, the verdict on the next move
    and why, the win rate, the graph, the candidates and why the first, the line
    chooser, the ownership toggle and the engine buttons (a view of ``VIEWS``)."""
    detail, answers, review, last = page.detail, page.answers, page.review, page.last
    s = shown(page, shown_move(last))
    n, tried, answer, nxt = s.n, s.tried, s.answer, s.nxt
    g = detail.game
    st.markdown(f"**{g.title}** · {g.size}x{g.size}, komi {g.komi:g}, {g.rules}"
                + (f" · result {g.result}" if g.result else ""))
    where = f"Move {n} of {last}" + (f" + {len(tried)} tried" if tried else "")
    with st.container(key=f"replay_panel_at_{n}"):  # the position the panel shows: for browser tests and the bench
        st.markdown(f"{where} · {'black' if s.pos.to_play == 1 else 'white'} to play · captures: "
                    f"black {s.pos.captures[1]}, white {s.pos.captures[-1]}")
    if counted(page, s):
        st.caption(count_words(g.result, Ruleset(g.rules, g.komi).scoring, s.pos, page.dead or ()))
    messages()
    comment = s.node.comment if s.node is not None else ((detail.extra or {}).get("comments") or {}).get(str(n))
    if comment:
        st.caption(f"Comment: {comment}")
    if nxt is not None:
        st.markdown(verdict(nxt, review.unit))
        if s.why:
            show_reasons(s.why, key="replay_played", title=f"Why {'black' if nxt.color == 'B' else 'white'} "
                         f"{nxt.vertex} was {article(nxt.category or '')}")
    for p in (page.problems if not tried else []):
        if p.move_number == n:
            st.warning(f"The board reported: {p.message or p.kind}")
    show_winrate(answer)
    if answer:
        st.markdown(markdown_table(candidates_table(answer), SHORT_NAMES))
        hint = best_reasons(detail, answers, n, s.pos, answer, tried)
        if hint:
            show_reasons(hint, key="replay_hint", title=f"Why {answer['moves'][0]['move']}, the engine's choice")
        cands = [m["move"] for m in answer["moves"][:5] if m.get("pv")]
        if cands:
            chosen = st.segmented_control("Show the line of", cands, key="replay_line", on_change=show_position,
                                          help="The engine's expected continuation as numbered stones "
                                               "(or point at a candidate on the board)")
            pv = next((m.get("pv") or [] for m in answer["moves"][:5] if m["move"] == chosen), [])
            if len(pv) > 1:
                st.slider("Moves of the line shown", 1, len(pv), len(pv),
                          key=f"replay_line_moves_{n + len(tried)}_{chosen}",
                          help="Step through the line one move at a time", on_change=show_position)
        if passes_recommended(answer):
            st.caption(f"The engine suggests passing ({', '.join(passes_recommended(answer))}).")
    ownership_toggle(answer, page.services.feed.has_bus, on_change=show_position)
    analysis_buttons(page.services, detail, page.keys, answers, n)


@st.fragment(key="replay_try")
def try_view(page: Loaded) -> None:
    """Try another move from the position shown (a view of ``VIEWS``)."""
    s = shown(page, shown_move(page.last))
    if s.tried:
        st.session_state[TRY_OPEN] = True  # a line tried: shown open
    box = st.expander("Try another move here", icon=":material/science:", key=TRY_OPEN, on_change="rerun")
    with box:
        if not box.open:
            return  # drawn when opened
        if can("analyse"):
            var.panel(page.detail, s.n, s.base, s.path, s.tried, s.answer,
                      engine_asker(page.services, page.detail, s.n), then=show_position)
        else:
            st.caption("Trying moves needs the player role.")


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
    st.markdown(STICKY + HOVER_STYLE, unsafe_allow_html=True)
    game_id = choose_game(store)
    if game_id is None:
        st.info("No game is stored yet. Play one, or import SGF files on the Games page.")
        return
    opened = st.session_state.get("replay_loaded") != game_id
    if opened:
        st.session_state["replay_loaded"] = game_id
        st.session_state[MOVE] = deep_link_move()
    try:
        detail, keys, answers, problems, dead = load(store, game_id)
        last = max(keys) if keys else 0
        g = detail.game
        game = GoGame.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play, detail.setup,
                               [(m.color, m.vertex) for m in detail.moves[:last]])
    except (UnknownGame, GameError) as exc:
        st.error(f"This game cannot be replayed: {exc}")
        return
    if detail.missing_moves:
        st.warning(f"Moves {list(detail.missing_moves)[:10]} have not been received: the replay stops at move {last}.")
    moves = [(m.number, m.color, m.vertex) for m in detail.moves[:last]]
    review = review_game(moves, answers)
    var.tree_for(game_id, (detail.extra or {}).get("variations"))  # an imported SGF's variations, once per session
    page = Loaded(services, detail, keys, answers, problems, review, moves, game,
                  mistake_points(detail, answers, review, game), dead if last == len(detail.moves) else None)
    st.session_state[COUNTED_AT] = last if page.dead is not None else None
    n = shown_move(last)
    if opened or st.session_state.get(KNOWN) != n:  # opened, or the move set by another page: the browser goes there
        stepper.jump_to(st.session_state, MOVE, n)
        st.session_state[KNOWN] = n
    left, right = st.columns([3, 2], gap="large")
    with left, st.container(key="replay_board_col"):
        board_view(page)
    with right:
        panel_view(page)
        if answers:
            clickable_graph(answers, review, last, key=f"replay_graph_{game_id}", on_move=_go)
            stepper.ruler(game_id, n=n, last=last, margin=MARGIN)
        tabs = st.tabs(["Mistakes", "Moves", "Report"], key=TABS, on_change="rerun")  # each drawn when chosen
        with tabs[0]:
            if tabs[0].open:
                mistakes_list(review, _go, mistakes_why(detail, answers, review, game))
        with tabs[1]:
            if tabs[1].open:
                stepper.move_list(game_id, entries(review, moves), n=n, last=last, height=HEIGHT)
        with tabs[2]:
            if tabs[2].open:
                rows = report_table(review)  # a player a column: a column a figure ran past the page's edge
                st.markdown(markdown_table([{"": name, **{r["player"]: r[name] for r in rows}}
                                            for name in list(rows[0])[1:]]))
                st.caption(f"Losses in {review.unit}; accuracy as KaTrain's (100 = no loss).")
                sgf_download(services, detail)
        try_view(page)


def deep_link_move() -> int:
    """The position a link opens on: ``?move=m``, the position move m is played in (as
    the Player page links a mistake), else the start."""
    try:
        return max(0, int(st.query_params.get("move", "")) - 1)
    except ValueError:
        return 0


if __name__ == "__main__":
    render()
