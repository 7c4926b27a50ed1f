"""Variations on the Replay page: try moves from any position, see the engine's answer,
keep every line tried as a tree, and take them along in the SGF download. The stored
game never changes.

``VariationTree`` (plain data, no Streamlit) holds, per starting position (the move
count ``n`` of the game), a tree of tried moves, each with the engine's answer for the
position it made (None when no engine was asked). The page keeps one tree per game in
the session (``tree_for``) and the line being looked at (``Path``: the game, ``n`` and
the moves tried from there). ``try_point`` plays a point for the side to move at the
end of that line: an illegal point is refused with a toast (it floats over the page,
so nothing under it moves) and the reason kept for the panel; a legal one is added,
with the engine's answer when the engine can be asked (``ask``).

``panel`` draws the controls: the line shown, the engine's answer, a point to try by
name, play the answer, back one, back to the game, and every line tried from here.

Not kept: the tree outlives neither the browser session nor a restart (the store
keeps games as one line of moves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import streamlit as st

from dashboard.views.game_board import legal_reason
from gobuddy.go.coords import CoordinateError, from_gtp
from gobuddy.go.position import Position

TREES = "replay_trees"
PATH = "replay_path"
ERROR = "replay_try_error"
Answer = Mapping[str, Any]
Asker = Callable[[list[tuple[str, str]], str, str], Answer]  # (moves before, colour, vertex) -> answer


@dataclass
class VarNode:
    color: str = ""
    vertex: str = ""
    answer: Answer | None = None
    comment: str | None = None  # an imported SGF's
    children: dict[str, "VarNode"] = field(default_factory=dict)


@dataclass
class VariationTree:
    """Lines tried from positions of one game: ``roots[n]`` holds those from move count n."""

    roots: dict[int, VarNode] = field(default_factory=dict)

    def add(self, n: int, moves: list[tuple[str, str]], answer: Answer | None) -> VarNode:
        """Add the line ``moves`` (colour, vertex) from position ``n`` (its prefix may be
        there already); ``answer`` is for the position after its last move (kept when
        None and the node had one)."""
        node = self.roots.setdefault(n, VarNode())
        for color, vertex in moves:
            node = node.children.setdefault(vertex, VarNode(color, vertex))
        if answer is not None:
            node.answer = answer
        return node

    def node(self, n: int, vertices: list[str]) -> VarNode | None:
        node = self.roots.get(n)
        for vertex in vertices:
            if node is None:
                return None
            node = node.children.get(vertex)
        return node

    def lines(self, n: int) -> list[list[VarNode]]:
        """Every line from position ``n`` to a leaf, in the order they were tried."""
        out: list[list[VarNode]] = []

        def walk(node: VarNode, prefix: list[VarNode]) -> None:
            if not node.children and prefix:
                out.append(prefix)
            for child in node.children.values():
                walk(child, prefix + [child])

        if n in self.roots:
            walk(self.roots[n], [])
        return out

    def for_sgf(self) -> dict[int, list[list[tuple[str, str, str | None]]]]:
        """``sgf_io.export_sgf``'s ``variations``: per n, each line's moves with a comment
        saying what the engine made of the position after it."""
        return {n: [[(v.color, v.vertex, "\n\n".join(t for t in (v.comment, answer_comment(v.answer)) if t) or None)
                     for v in line] for line in self.lines(n)]
                for n in sorted(self.roots) if self.lines(n)}


def answer_comment(answer: Answer | None) -> str | None:
    """``Engine: win rate B 61.0% · best reply D5`` for a position tried, or None."""
    if not answer:
        return None
    text = f"Engine: win rate B {100 * float(answer['root']['winrate_black']):.1f}%"
    moves = answer.get("moves") or []
    return text + (f" · best reply {moves[0]['move']}" if moves else "")


@dataclass(frozen=True)
class Path:
    """The line shown: ``vertices`` tried from the position after ``n`` moves of ``game``."""

    game: str
    n: int
    vertices: tuple[str, ...] = ()


def tree_for(game_id: str, stored: Mapping[str, Any] | None = None) -> VariationTree:
    """This session's tree for the game; made, the first time, from the variations
    stored with it (an imported SGF's: move count -> lines of [colour, vertex, comment])."""
    trees = st.session_state.setdefault(TREES, {})
    if game_id not in trees:
        trees[game_id] = from_stored(stored or {})
    return trees[game_id]


def from_stored(stored: Mapping[str, Any]) -> VariationTree:
    """A tree of the stored lines (their comments kept as the nodes' ``comment``)."""
    tree = VariationTree()
    for n, lines in stored.items():
        for line in lines:
            node = tree.roots.setdefault(int(n), VarNode())
            for color, vertex, *comment in line:
                node = node.children.setdefault(vertex, VarNode(color, vertex))
                node.comment = comment[0] if comment and comment[0] else node.comment
    return tree


def current_path(game_id: str, n: int) -> Path:
    """The line being looked at from this position (empty when the game was stepped)."""
    path = st.session_state.get(PATH)
    if not isinstance(path, Path) or (path.game, path.n) != (game_id, n):
        path = Path(game_id, n)
        st.session_state[PATH] = path
    return path


def line_moves(tree: VariationTree, path: Path) -> list[tuple[str, str]]:
    node, out = tree.roots.get(path.n), []
    for vertex in path.vertices:
        node = node.children[vertex] if node is not None and vertex in node.children else None
        if node is None:
            break
        out.append((node.color, node.vertex))
    return out


def position_after(base: Position, moves: list[tuple[str, str]]) -> Position:
    pos = base.copy()
    for _, vertex in moves:
        pos.play(from_gtp(vertex, pos.size))
    return pos


def refusal(pos: Position, vertex: str) -> str | None:
    """Why ``vertex`` cannot be tried in ``pos`` (plain words), or None."""
    try:
        return legal_reason(pos, vertex)
    except CoordinateError as exc:
        return str(exc)


def try_point(game_id: str, n: int, base: Position, vertex: str, ask: Asker | None) -> bool:
    """Play ``vertex`` at the end of the current line from position ``n``; True if it
    was added. An illegal point: a toast and the reason kept (``ERROR``). ``ask`` gets
    the engine's answer (its errors are kept as the reason and the move stays tried)."""
    vertex = vertex.strip().upper()
    tree, path = tree_for(game_id), current_path(game_id, n)
    moves = line_moves(tree, path)
    pos = position_after(base, moves)
    why = refusal(pos, vertex)
    if why:
        st.session_state[ERROR] = f"{vertex} is not possible: {why}"
        st.toast(st.session_state[ERROR], icon=":material/block:")
        return False
    st.session_state.pop(ERROR, None)
    color = "B" if pos.to_play == 1 else "W"
    answer = None
    if ask is not None:
        try:
            answer = ask(moves, color, vertex)
        except Exception as exc:  # timeout, no broker, an engine error: shown, not raised
            st.session_state[ERROR] = f"No answer from the engine for {vertex}: {exc}"
    tree.add(n, moves + [(color, vertex)], answer)
    st.session_state[PATH] = Path(game_id, n, tuple(v for _, v in moves) + (vertex,))
    return True


def step_back(game_id: str, n: int) -> None:
    open_line(game_id, n, current_path(game_id, n).vertices[:-1])


def open_line(game_id: str, n: int, vertices: tuple[str, ...] = ()) -> None:
    """Show the line ``vertices`` from position ``n`` (none: back to the game)."""
    st.session_state[PATH] = Path(game_id, n, vertices)
    st.session_state.pop(ERROR, None)


def panel(detail: Any, n: int, base: Position, path: Path, moves: list[tuple[str, str]],
          answer: Mapping[str, Any] | None, ask: Asker | None, then: Callable[[], None] | None = None) -> None:
    """Try a move by name, play the engine's answer, step back, leave, reopen a line;
    ``then`` is called after each of these (in the button's callback: the page redraws
    what shows the line)."""
    g = detail.game
    tree = tree_for(g.id)
    pos = position_after(base, moves)
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
    error = st.session_state.get(ERROR)
    if error:
        st.caption(f":red[{error}]")
    reply = (answer.get("moves") or [None])[0] if (answer and moves) else None
    if reply is not None:
        mover = 100 * float(reply["winrate"])
        st.markdown(f"The engine answers **{reply['move']}** ({to_play} {mover:.1f}%).")
    c = st.columns([2, 1], vertical_alignment="bottom")
    c[0].text_input(f"{to_play} plays", key="replay_try_text", placeholder="e.g. D4")
    c[1].button("Try", key="replay_try_button", width="stretch", on_click=_then,
                args=(then, _try_typed, g.id, n, base, ask))
    c = st.columns(3)
    c[0].button("Its answer", key="replay_try_reply", disabled=reply is None or reply["move"] == "pass",
                on_click=_then, args=(then, try_point, g.id, n, base, reply["move"] if reply else "", ask),
                width="stretch")
    c[1].button("Back one", key="replay_try_back", disabled=not moves, on_click=_then,
                args=(then, step_back, g.id, n), width="stretch")
    c[2].button("To the game", key="replay_try_leave", disabled=not moves, on_click=_then,
                args=(then, open_line, g.id, n), width="stretch")
    lines = tree.lines(n)
    if lines:
        st.caption(f"Lines tried from move {n} (kept until the browser session ends; in the SGF download):")
        for i, nodes in enumerate(lines):
            vertices = tuple(v.vertex for v in nodes)
            st.button(" ".join(f"{v.color} {v.vertex}" for v in nodes), key=f"replay_line_{i}",
                      on_click=_then, args=(then, open_line, g.id, n, vertices), disabled=vertices == path.vertices)


def _then(then: Callable[[], None] | None, action: Callable[..., Any], *args: Any) -> None:
    action(*args)
    if then is not None:
        then()


def _try_typed(game_id: str, n: int, base: Position, ask: Asker | None) -> None:
    typed = str(st.session_state.get("replay_try_text") or "").strip()
    if typed:
        try_point(game_id, n, base, typed, ask)
