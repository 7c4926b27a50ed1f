"""Live: follow a board's game as it happens.

The page picks a board (``default_board``: a physical board playing, else one online,
else a live web game; the default moves on when a better board appears, a board the
user picks in the selector stays); a fragment re-runs every ``--live-interval`` seconds (0.1 s by
default) and draws, from the live feed's memory (never the database): the position on
a real board with the engine's top five (rank and win rate on the points; while the
engine searches, its partial answer, growing) and, beside the top five, why the
engine's first choice is good in plain words (``reasons.hint_reasons``: made once per
position and answer, not at every redraw), the win-rate bar, captures, whose turn it
is, the board's problem in plain words with its points ringed in red, and whether
the board and the engine workers are online. Once the game is over it shows the result
(and the stones its count took as dead, crossed) instead of the engine's view. Only the
fragment refreshes. Each of its runs keeps following the feed (``FOLLOW_S``): it waits
(up to a second) for the feed to change, so a new move is drawn the moment it arrives
rather than at the next tick, and a click on the page ends the run at once
(``give_way``: Streamlit's own yield point in ``st.session_state``; only public
Streamlit API here, no peeking at its runner); so does a change of the sidebar's status
lines, whose own fragment waits for this one (``sidebar_stale``).

A redraw is cheap (``LiveView``): every element has its own place, replaced in place
and only when its content changed; the board's SVG is made once per position, answer
and toggles. Not drawn on a redraw: anything read from the database (nothing is).
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from dashboard.board_svg import board_svg
from dashboard.live_board import LiveBoard, color_name, other
from dashboard.live_feed import LiveFeed
from dashboard.views.game_board import (candidates_table, last_vertex, passes_recommended, recommendations,
                                        winrate_lines)
from dashboard.views.page_context import STATUS_SHOWN, bus_status, current, vertices_in_words
from dashboard.views.reasons import hint_reasons, reasons_markdown
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import EngineAnswer, Problem
from gobuddy.explain import Reason
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position

FOLLOW_S = 30.0  # how long one timer run of the live fragment keeps following the feed
MAX_WAIT_S = 1.0  # it redraws at least this often (ages, presence)
WAIT_SLICE_S = 0.05  # how often it looks for a pending click meanwhile

PROBLEM_WORDS = {
    "two_stones": "{n} new stones at {where}: take away all but the one you meant to play.",
    "stone_lifted": "The {stones} at {where} {was} lifted: put {it} back.",
    "stone_moved": "A stone moved ({where}): put it back where it was.",
    "illegal_point": "A stone at {where} is not a legal move: take it away.",
    "ko": "{where} retakes the ko at once, which the rules forbid: play elsewhere first.",
    "unclear_reading": "The sensors cannot read {where} clearly: centre the stone on its point.",
    "sensor_fault": "A sensor fault at {where}: the board needs a check.",
}


def problem_in_words(problem: Problem, board: LiveBoard | None) -> str:
    """The board's problem as one plain sentence, e.g. "Remove the 3 captured white
    stones at D4, D5 and E5." (colours from the game: captured stones belong to the
    side that did not play last; a wrong-colour stone is the side not to play)."""
    points = list(problem.points)
    n, where = len(points), vertices_in_words(points) or "the board"
    plural = n != 1
    if problem.kind == "captures_not_removed":
        last = board.last_move if board is not None else None
        colour = f" {color_name(other(last[0]))}" if last else ""
        if plural:
            return f"Remove the {n} captured{colour} stones at {where}."
        return f"Remove the captured{colour} stone at {where}."
    if problem.kind == "wrong_color":
        if board is None:
            return f"A stone of the wrong colour is at {where}: take it away."
        return (f"A {color_name(other(board.to_play))} stone was put at {where}, but {color_name(board.to_play)} "
                f"is to play: take it away.")
    if problem.kind == "engine_stone_misplaced":  # points: where it was put, then where it belongs
        if n == 2:
            return f"The engine's stone belongs on {points[1]}, not on {points[0]}: move it."
        return f"A stone was put at {where} before the engine chose its move: take it back and wait for the lights."
    if problem.kind == "board_mismatch":  # the edge's message lists what to put right
        text = problem.message.strip()
        if not text:
            return f"The board does not match the game at {where}: set it as recorded."
        return text[0].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")
    template = PROBLEM_WORDS.get(problem.kind)
    if template is None:
        return problem.message or f"Problem ({problem.kind}) at {where}."
    return template.format(n=n, where=where, stones="stones" if plural else "stone", was="were" if plural else "was",
                           it="them" if plural else "it")


def _board_online(board_id: str, feed: LiveFeed) -> bool | None:
    """A physical board's presence; None for web boards (the dashboard plays those)."""
    if not board_id.startswith("board-"):
        return None
    return next((p.online for p in feed.presence("board") if p.client_id == board_id), False)


LIVE_WEB_S = 300  # a web game without a message for longer is not live (a Play tab left open)
CHOSEN = "live_board_chosen"  # True once the user picked the board (selector or ?board=): it stays


def board_rank(board_id: str, board: LiveBoard | None, online: bool | None, now: int) -> int:
    """How well ``board_id`` suits as the board Live opens on, lower is better: 0 a
    physical board playing (and not known to be offline), 1 a physical board online,
    2 a web game playing with a message (its ``ts``, this host's clock: the dashboard
    plays web games) in the last ``LIVE_WEB_S``, 3 anything else."""
    playing = board is not None and board.status == "playing"
    if board_id.startswith("board-"):
        return 0 if playing and online is not False else 1 if online else 3
    if board is not None and playing and now - board.ts <= LIVE_WEB_S * 1000:
        return 2
    return 3


def default_board(candidates: dict[str, tuple[LiveBoard | None, bool | None]], current: str | None,
                  now: int) -> str | None:
    """The board Live shows when the user chose none: the best ranked of ``candidates``
    (id -> its game and presence; ties: physical boards first, then by id), except that
    ``current`` stays while no candidate ranks strictly better (no flipping between
    equals). None when there is no candidate."""
    if not candidates:
        return None
    ranks = {i: board_rank(i, *candidates[i], now) for i in candidates}
    best = min(ranks, key=lambda i: (ranks[i], not i.startswith("board-"), i))
    return current if current in ranks and ranks[current] <= ranks[best] else best


def board_candidates(feed: LiveFeed) -> dict[str, tuple[LiveBoard | None, bool | None]]:
    """Every board heard of (a game or a presence), with its game and its presence."""
    games = {b.board_id: b for b in feed.boards()}
    online = {p.client_id: p.online for p in feed.presence("board")}
    return {i: (games.get(i), online.get(i)) for i in games.keys() | online.keys()}


def _chosen() -> None:
    st.session_state[CHOSEN] = True


def choose_board(feed: LiveFeed) -> str | None:
    """The board selector. Until the user picks one (or the link names one with
    ``?board=``), it shows ``default_board``, which ``should_follow`` moves on when a
    better board appears; a board the user picked stays."""
    candidates = board_candidates(feed)
    ids = sorted(candidates, key=lambda i: (not i.startswith("board-"), i))
    if not ids:
        return None
    wanted = st.query_params.get("board")
    if wanted in ids and "live_board" not in st.session_state:
        st.session_state["live_board"] = wanted
        st.session_state[CHOSEN] = True
    current = st.session_state.get("live_board")
    if current not in ids or not st.session_state.get(CHOSEN):
        st.session_state["live_board"] = default_board(candidates, current, now_ms())
    return st.selectbox("Board", ids, key="live_board", on_change=_chosen,
                        format_func=lambda i: f"{i} (web game)" if i.startswith("web-") else i)


def should_follow(feed: LiveFeed, board_id: str) -> bool:
    """Whether the page should run again to show a better board than ``board_id``: the
    user chose none and ``default_board`` now picks another."""
    if st.session_state.get(CHOSEN):
        return False
    return default_board(board_candidates(feed), board_id, now_ms()) != board_id


def give_way() -> None:
    """Let a click on the page (or leaving it) take over at once: reading
    ``st.session_state`` is one of Streamlit's yield points, where a run with a newer
    request pending (a full rerun or a stop; not this fragment's own next tick, which
    waits for this run) ends with Streamlit's own exception, as at any ``st`` call.
    Returns when nothing is pending."""
    st.session_state.get("live_board")


def wait_for_news(feed: LiveFeed, seen: int, max_wait_s: float) -> None:
    """Block until the feed changed since generation ``seen`` or ``max_wait_s`` passed;
    a pending click ends the run meanwhile (``give_way``, every ``WAIT_SLICE_S``)."""
    deadline = time.monotonic() + max_wait_s
    while (left := deadline - time.monotonic()) > 0:
        give_way()
        if feed.wait_for(lambda f: f.generation != seen, min(WAIT_SLICE_S, left)):
            return


SLOTS = ("status", "board", "problem", "problem_note", "heading", "facts", "bar", "lead", "top", "note", "reasons",
         "replay", "footer")


class LiveView:
    """The live part's places, made once per run of the fragment (a line of status, then
    the board on the left and the panel on the right): each holds at most one element
    and a redraw replaces it in place, only where its content changed. So nothing of an
    earlier draw can stay behind (a container drawn again with fewer elements kept the
    old ones on screen until the run ended: stale "Game ... last message" lines, even of
    the previous game), and a redraw sends only what changed (the board's SVG only when
    the position, the answer or a toggle did)."""

    def __init__(self) -> None:
        self.places: dict[str, Any] = {"status": st.empty()}
        left, right = st.columns([5, 4], gap="medium")
        self.places["board"] = left.empty()
        for name in SLOTS[2:]:
            self.places[name] = right.empty()
        self.shown: dict[str, tuple[str, Any]] = {}

    def put(self, name: str, kind: str = "empty", content: Any = None, **options: Any) -> None:
        """Show ``content`` as a ``kind`` element (``st.<kind>``) in place ``name``;
        ``empty`` clears it. Nothing is sent when it shows that already."""
        shown = (kind, repr((content, options)))
        if self.shown.get(name) == shown:
            return
        self.shown[name] = shown
        place = self.places[name]
        if kind == "empty":
            place.empty()
        else:
            getattr(place, kind)(content, **options)


def render_live(feed: LiveFeed, board_id: str, show_ownership: bool, show_recs: bool) -> None:
    """The body of the live fragment: in a full run of the page it draws once; in the
    fragment's own (timer) runs it follows the feed for ``FOLLOW_S`` (see the module
    docstring), redrawing at least every ``MAX_WAIT_S``, for the ages."""
    full = st.session_state.pop("live_full_run", False)
    view = LiveView()
    ends = time.monotonic() + (0.0 if full else FOLLOW_S)
    while True:
        seen = feed.generation
        draw_live(feed, board_id, show_ownership, show_recs, view)
        if not full and should_follow(feed, board_id):
            st.rerun()  # the whole page: its selector shows the better board
        if not full and sidebar_stale():
            return  # the sidebar's status fragment runs after this run only
        left = ends - time.monotonic()
        if left <= 0:
            return
        wait_for_news(feed, seen, min(MAX_WAIT_S, left))
        give_way()


def sidebar_stale() -> bool:
    """Whether the sidebar's status lines (``page_context.bus_status``) no longer say what
    the feed says: this fragment then ends its run, because the sidebar's own fragment
    (``dashboard/app.py``) waits for it."""
    shown = st.session_state.get(STATUS_SHOWN)
    return shown is not None and shown != bus_status(current())


_SVGS: dict[tuple[Any, ...], str] = {}


def board_view(board: LiveBoard, answer: EngineAnswer | None, show_ownership: bool, show_recs: bool) -> str:
    """The board's SVG (in its ``gobuddy-board`` box), made once per position, answer and
    toggles: a redraw for anything else (an age, a presence) reuses it."""
    key = (board.board_id, board.game_id, board.version, board.problem, _answer_key(answer), show_ownership,
           show_recs)
    svg = _SVGS.get(key)
    if svg is None:
        data = answer.to_dict() if answer is not None else None
        owner = data.get("ownership") if (data and show_ownership) else None
        svg = board_svg(board.size, board.stones, px=520, last_move=last_vertex(board.moves),
                        recommendations=recommendations(data) if show_recs else (), ownership=owner,
                        highlights=board.problem.points if board.problem else (), move_count=board.move_number,
                        dead=board.dead or ())
        svg = f'<div class="gobuddy-board">{svg}</div>'
        if len(_SVGS) > 64:
            _SVGS.clear()
        _SVGS[key] = svg
    return svg


def _answer_key(answer: EngineAnswer | None) -> tuple[Any, ...] | None:
    if answer is None:
        return None
    return (answer.id, answer.is_during_search, answer.root.visits, answer.position_key.hash)


def live_position(board: LiveBoard) -> Position:
    """The position ``board`` shows, replayed (``gobuddy.go.game``)."""
    return Game.from_position(board.size, Ruleset(board.rules, board.komi), board.setup, board.moves,
                              board.to_play).position


def live_reasons(board: LiveBoard, answer: EngineAnswer) -> list[Reason]:
    """The reasons for the engine's first choice in ``answer`` (``explain_hint``), made
    once per position and answer: while the search runs, again only when its first
    choice changes (a redraw, a tick or a growing answer with the same first move
    reuses them). None for a board whose record cannot be replayed."""
    if board.position_hash is None or board.replay_error or not answer.moves:
        return []
    key = ("live", board.board_id, board.game_id, board.position_hash, answer.id, answer.moves[0].move,
           answer.is_during_search)
    return hint_reasons(lambda: live_position(board), answer, key=key)


def draw_live(feed: LiveFeed, board_id: str, show_ownership: bool, show_recs: bool,
              view: LiveView | None = None) -> None:
    """Everything the live part shows, once (into ``view``'s places; a new view when None)."""
    view = view or LiveView()
    board = feed.board(board_id)
    engines = [p for p in feed.presence("engine") if p.online]
    online = _board_online(board_id, feed)
    status = [f"**{board_id}**"]
    if online is not None:
        status.append(":green[board online]" if online else ":red[board offline]")
    status.append(f":green[{len(engines)} engine worker{'s' if len(engines) != 1 else ''} online]" if engines
                  else ":red[no engine worker online]")
    if not feed.connected():
        status.append(":red[bus disconnected]")
    view.put("status", "markdown", " · ".join(status))
    if board is None or board.status == "idle" or board.game_id is None:
        for name in SLOTS[1:]:
            view.put(name)
        view.put("heading", "info", f"No game on {board_id} yet. Start one at the board; it will appear here at once.")
        return
    over = board.status == "ended"
    if not over:
        feed.watch(board_id)
    # Once the game is over the result is the word: the engine counts the final position
    # with every stone alive (dead ones too), so its win rate, score lead and "passing"
    # would contradict it (as on the Play page, none of them is shown then).
    answer_msg = None if over else feed.answer_for(board) or feed.hint_for(board)
    answer: dict[str, Any] | None = answer_msg.to_dict() if answer_msg is not None else None
    view.put("board", "markdown", board_view(board, answer_msg, show_ownership, show_recs), unsafe_allow_html=True)
    if board.problem is not None:
        view.put("problem", "error", problem_in_words(board.problem, board), icon=":material/warning:")
    else:
        view.put("problem")
    view.put("problem_note", *(("caption", f"The board says: {board.problem.message}")
                               if board.problem is not None and board.problem.message else ("empty",)))
    if over:
        reason = f" ({board.end_reason})" if board.end_reason else ""
        view.put("heading", "success", f"Game over: {board.result or 'no result'}{reason}")
    else:
        view.put("heading", "markdown", f"### {color_name(board.to_play).capitalize()} to play")
    last = board.last_move
    caps = board.capture_counts
    view.put("facts", "markdown", f"Move {board.move_number}"
             + (f" · last: {color_name(last[0])} {last[1]}" if last else "")
             + f"  \nCaptures: black {caps['B']} · white {caps['W']}"
             + f"  \nKomi {board.komi:g} · {board.rules}" + (f" · handicap {board.handicap}" if board.handicap else ""))
    if over:
        view.put("bar")
        view.put("lead", *(("caption", f"Counted dead: {vertices_in_words(board.dead)} "
                                       f"({len(board.dead)} stone{'s' if len(board.dead) != 1 else ''}).")
                           if board.dead else ("empty",)))
    elif answer is not None:
        bar, lead = winrate_lines(answer)
        view.put("bar", "markdown", bar, unsafe_allow_html=True)
        view.put("lead", "caption", lead)
    else:
        view.put("bar")
        trouble = feed.analysis_trouble(board)
        view.put("lead", "caption", f"No evaluation of this position: {trouble} (asking again shortly)." if trouble
                 else "The engine is thinking about this position…" if feed.analysing(board_id)
                 else "No evaluation of this position yet.")
    if answer is not None and show_recs:
        view.put("top", "table", candidates_table(answer), border="horizontal", hide_index=True)
        passes = passes_recommended(answer)
        view.put("note", *(("caption", f"The engine suggests passing ({', '.join(passes)}).") if passes
                           else ("caption", f"Still searching: {answer['root']['visits']} visits so far.")
                           if answer.get("is_during_search") else ("empty",)))
        why = live_reasons(board, answer_msg) if answer_msg is not None else []
        view.put("reasons", *(("markdown", reasons_markdown(why, f"Why {answer['moves'][0]['move']}"))
                              if why else ("empty",)))
    else:
        for name in ("top", "note", "reasons"):
            view.put(name)
    view.put("replay", *(("warning", f"The record cannot be replayed here: {board.replay_error}")
                         if board.replay_error else ("empty",)))
    view.put("footer", "caption", f"Game {board.game_id} · last message {age_words(now_ms() - board.received_ms)}")


def age_words(ms: int) -> str:
    """How long ago, to the second: a redraw for anything else (an engine worker's
    status, a partial answer) then sends nothing new for it."""
    return "less than a second ago" if ms < 1000 else f"{ms // 1000} s ago"


def render() -> None:
    services = current()
    feed = services.feed
    st.title("Live")
    if not feed.has_bus:
        st.info("No broker is configured (the dashboard runs with --no-bus), so there is nothing live to "
                "show. Games and Replay work from the database.")
        return
    board_id = choose_board(feed)
    if board_id is None:
        st.info("No board has been heard from yet. Boards appear here as soon as they connect.")
        _refresh_until_boards(services.config.live_interval_s * 10)
        return
    c1, c2 = st.columns(2)
    show_recs = c1.toggle("Show the engine's top five", value=True, key="live_recs")
    show_ownership = c2.toggle("Show territory (ownership)", value=False, key="live_ownership")
    # The live fragment runs for long stretches (see render_live): hide the toolbar's
    # "running" indicator and its Stop button on this page, which would otherwise show
    # all the time.
    st.html("<style>[data-testid='stStatusWidget']{visibility:hidden}</style>")
    st.session_state["live_full_run"] = True
    st.fragment(run_every=services.config.live_interval_s)(render_live)(feed, board_id, show_ownership, show_recs)


def _refresh_until_boards(interval_s: float) -> None:
    @st.fragment(run_every=max(0.5, interval_s))
    def wait() -> None:
        if current().feed.boards() or current().feed.presence("board"):
            st.rerun()

    wait()


if __name__ == "__main__":
    render()
