"""The whole main line of a stored game as data for the Replay page's board in the
browser (``dashboard/static/replay_board.js``), sent once, so that a step is drawn
there at once, with no run of the page.

One entry per position, after n = 0 .. ``last`` moves (plain JSON, columns of lists):

| field      | per position n                                                         |
|------------|------------------------------------------------------------------------|
| ``stones`` | a string of size*size characters, row 0 at the top: ``x`` black, ``o`` white, ``.`` empty |
| ``lastMove`` | the GTP vertex of move n (None at the start or after a pass)         |
| ``recs``   | the engine's first five: ``[vertex, rank, win rate %]``, or None unanalysed |
| ``lines``  | each candidate's principal variation: vertex -> ``[vertex, ...]``, ``toPlay`` first |
| ``toPlay`` | the side the analysis is for (``B``/``W``; None unanalysed): the line's colours alternate from it |
| ``owner``  | the ownership in percent for black (size*size ints), or None (only when asked) |
| ``problems`` | the points the board reported a problem at                           |
| ``reasons``  | the points of the first reason why move n+1 was a mistake (squared)  |

``marks``: per move number m (index m-1), the class colour of move m when it was an
inaccuracy or worse, else None; the browser derives a position's marks from it as
``move_list.board_marks`` does. ``base``: the inside of ``board_svg``'s empty board
(gradients, wood, lines, star points, coordinates), drawn by Python so the browser
only adds what changes; ``px`` and ``marginCells`` give its geometry.

What the browser draws from it is what ``board_svg`` draws (the same classes and data
attributes: ``svg.go-board[data-move-count]``, ``circle.stone[data-vertex]``, ...);
the browser tests compare the two. Not here: the variations tried and the line chosen
(the server draws those, ``replay.the_board``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from dashboard.board_svg import MARGIN_CELLS, board_svg
from dashboard.mistakes import CLASS_COLOURS, CLASSES, GameReview
from dashboard.views.game_board import TOP, recommendations
from gobuddy.go.game import Game

STONE_CHARS = {1: "x", -1: "o", 0: "."}
WORST_MARKED = CLASSES.index("inaccuracy")


def stones_text(board: Sequence[int]) -> str:
    """``Position.board`` as one character a point: ``x`` black, ``o`` white, ``.`` empty."""
    return "".join(STONE_CHARS[int(v)] for v in board)


def base_inside(size: int, px: int) -> str:
    """What ``board_svg`` draws of an empty board inside its ``<svg>`` (defs, wood,
    lines, star points, coordinates): the same for every position."""
    svg = board_svg(size, [0] * (size * size), px=px, hover_style=False)
    return svg[svg.index(">") + 1:-len("</svg>")]


def move_marks(review: GameReview, last: int) -> list[str | None]:
    """Per move 1..``last`` (index m-1): its class colour when it was an inaccuracy or
    worse, else None."""
    by_number = {m.number: m for m in review.moves}
    out: list[str | None] = []
    for number in range(1, last + 1):
        m = by_number.get(number)
        bad = m is not None and m.category is not None and CLASSES.index(m.category) <= WORST_MARKED
        out.append(CLASS_COLOURS[m.category] if bad and m is not None and m.category else None)
    return out


def percent(ownership: Sequence[float]) -> list[int]:
    return [int(round(100 * max(-1.0, min(1.0, float(v))))) for v in ownership]


def frames(game: Game, moves: Sequence[tuple[int, str, str]], answers: Mapping[int, Mapping[str, Any]],
           review: GameReview, *, px: int = 520, ownership: bool = False,
           problems: Mapping[int, Sequence[str]] | None = None,
           reasons: Mapping[int, Sequence[str]] | None = None) -> dict[str, Any]:
    """The data of every position of ``game`` (its moves replayed: ``moves`` are
    (number, colour, vertex) of them) for the browser's board. ``ownership``: include
    each analysed position's ownership; ``problems`` and ``reasons``: move count ->
    vertices to ring or square."""
    size, last = game.position.size, len(moves)
    stones, last_move, recs, lines, to_play, owner = [], [], [], [], [], []
    for n, pos in game.positions():
        if n > last:
            break
        stones.append(stones_text(pos.board))
        vertex = moves[n - 1][2] if n else None
        last_move.append(vertex if vertex and vertex != "pass" else None)
        answer = answers.get(n)
        recs.append([[r.vertex, r.rank, round(100 * r.winrate)] for r in recommendations(answer)] if answer else None)
        lines.append({m["move"]: list(m["pv"]) for m in answer["moves"][:TOP] if m.get("pv")} if answer else {})
        to_play.append(answer.get("to_play", "B") if answer else None)
        held = answer.get("ownership") if (answer and ownership) else None
        owner.append(percent(held) if held is not None and len(held) == size * size else None)
    count = len(stones)
    return {"size": size, "px": px, "marginCells": MARGIN_CELLS, "base": base_inside(size, px), "last": count - 1,
            "stones": stones, "lastMove": last_move, "recs": recs, "lines": lines, "toPlay": to_play,
            "owner": owner,
            "marks": move_marks(review, count - 1),
            "problems": [list((problems or {}).get(n, ())) for n in range(count)],
            "reasons": [list((reasons or {}).get(n, ())) for n in range(count)]}
