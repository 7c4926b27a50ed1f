"""The Go board drawn as an SVG string, by our own code (no images, no fonts to load).

    svg = board_svg(9, position.board, last_move="E5",
                    recommendations=[Recommendation("D4", 1, 0.56), ...],
                    ownership=answer["ownership"], highlights=["C3"], dead=["F3"], px=480)

What is drawn, bottom to top: wood, lines, star points, coordinates (GTP letters
without ``I`` along the top and bottom, numbers 1..size from the bottom up along both
sides), ownership shading (optional), stones with shading, the dead-stone marks (a cross of
the other colour, ``class="dead"``), the last-move mark, the mistake marks (a dot in the
class colour, optional), the recommendations (a disc with the rank and the win rate in
percent, best first), a line of play as numbered stones (optional), each
recommendation's line hidden until the pointer is over it (optional; the CSS of
``HOVER_STYLE`` does it, no script: in the SVG as a ``<style>``, or once on a page that
shows boards often, ``hover_style=False``) and the highlighted problem points (red rings).
A board without those lines carries no ``<style>``: a page that draws one again and
again does not make the browser restyle the whole document each time.

Stones are ``stones[r * size + c]`` with row 0 at the TOP (``Position.board``), values
``1`` black, ``-1`` white, ``0`` empty. Vertices are GTP strings. Every stone is a
``<circle class="stone black|white" data-vertex="D4">`` and the ``<svg>`` carries
``data-size``, ``data-move-count`` and ``data-stones`` (the number of stones), so that
browser tests and the latency bench can find what they wait for.

Not checked: that the stones form a legal position; recommendations or highlights on
``pass`` or off the board are skipped silently (a caller lists a recommended pass in
words).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Mapping, Sequence

from gobuddy.go.coords import GTP_COLUMNS, CoordinateError, check_size, from_gtp

WOOD = "#dcb35c"
WOOD_EDGE = "#c49a45"
LINE = "#3b2a14"
RANK_FILLS = ("#1565c0", "#42a5f5", "#64b5f6", "#90caf9", "#bbdefb")
PROBLEM = "#d32f2f"
MARGIN_CELLS = 1.1  # the margin around the grid, in cells, with coordinates (0.6 without)


@dataclass(frozen=True)
class Recommendation:
    """One engine suggestion: ``rank`` 1 is the best; ``winrate`` is for the side to
    move, in [0, 1]."""

    vertex: str
    rank: int
    winrate: float


def star_points(size: int) -> list[tuple[int, int]]:
    """(row, col) of the star points: the 3-3 points on 7x7..12x12, the 4-4 points
    from 13x13, the centre on odd sizes, and the side points on odd sizes from 15x15."""
    if size < 7:
        return [(size // 2, size // 2)] if size % 2 and size >= 5 else []
    edge = 2 if size < 13 else 3
    lines = [edge, size - 1 - edge]
    if size % 2:
        mid = size // 2
        lines_mid = lines + [mid] if size >= 15 else lines
        points = [(r, c) for r in lines_mid for c in lines_mid]
        if (mid, mid) not in points:
            points.append((mid, mid))
        return points
    return [(r, c) for r in lines for c in lines]


class _Geometry:
    def __init__(self, size: int, px: int, coordinates: bool) -> None:
        self.size = size
        margin_cells = MARGIN_CELLS if coordinates else 0.6
        self.cell = px / (size - 1 + 2 * margin_cells)
        self.margin = self.cell * margin_cells
        self.px = px

    def xy(self, row: int, col: int) -> tuple[float, float]:
        return self.margin + col * self.cell, self.margin + row * self.cell


def _point(vertex: str, size: int) -> tuple[int, int] | None:
    try:
        p = from_gtp(vertex, size)
    except (CoordinateError, AttributeError):
        return None
    return None if p == size * size else divmod(p, size)


def _f(x: float) -> str:
    return f"{x:.1f}"


def board_svg(size: int, stones: Sequence[int], *, px: int = 480, last_move: str | None = None,
              recommendations: Sequence[Recommendation] = (), ownership: Sequence[float] | None = None,
              highlights: Sequence[str] = (), coordinates: bool = True, move_count: int | None = None,
              dead: Sequence[str] = (), marks: Mapping[str, str] | None = None,
              line: Sequence[tuple[str, str]] = (),
              hover_lines: Mapping[str, Sequence[tuple[str, str]]] | None = None,
              hover_style: bool = True) -> str:
    """The board as one ``<svg>`` element, ``px`` pixels square (it scales down to its
    container). Raises ``ValueError`` when ``stones`` or ``ownership`` do not have
    ``size * size`` entries.

    ``marks``: vertex -> colour, a dot on the stone there (the review's mistake marks,
    ``class="mistake-mark"``). ``line``: ``(colour "B"/"W", vertex)`` moves drawn as
    numbered stones 1, 2, ... (``class="pv-stone"``; a point already taken is skipped).
    ``hover_lines``: recommendation vertex -> such a line, drawn hidden and shown while
    the pointer is over that recommendation (CSS only: ``g.pv-hover``, with
    ``HOVER_STYLE`` in the SVG unless ``hover_style`` is False: the page has it)."""
    check_size(size)
    n = size * size
    if len(stones) != n:
        raise ValueError(f"stones has {len(stones)} entries, a {size}x{size} board needs {n}")
    if ownership is not None and len(ownership) != n:
        raise ValueError(f"ownership has {len(ownership)} entries, a {size}x{size} board needs {n}")
    g = _Geometry(size, px, coordinates)
    count = sum(1 for v in stones if v)
    attrs = f'data-size="{size}" data-stones="{count}"'
    if move_count is not None:
        attrs += f' data-move-count="{int(move_count)}"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="go-board" {attrs} width="{px}" height="{px}" '
             f'viewBox="0 0 {px} {px}" style="max-width:100%;height:auto" role="img" '
             f'aria-label="Go board, {size} by {size}, {count} stones">',
             _defs(hover_style and any((hover_lines or {}).get(r.vertex) for r in recommendations)),
             f'<rect class="wood" x="0" y="0" width="{px}" height="{px}" rx="{_f(g.cell * 0.15)}" '
             f'fill="{WOOD}" stroke="{WOOD_EDGE}" stroke-width="2"/>']
    parts += _lines(g)
    if coordinates:
        parts += _coordinates(g)
    if ownership is not None:
        parts += _ownership(g, stones, ownership)
    parts += _stones(g, stones)
    parts += _dead(g, stones, dead)
    if last_move:
        parts += _last_move(g, stones, last_move)
    if marks:
        parts += _marks(g, stones, marks)
    parts += _recommendations(g, stones, recommendations)
    if line:
        parts += _line(g, stones, line, "pv")
    for rec in recommendations if hover_lines else ():
        moves = hover_lines.get(rec.vertex) if hover_lines else None
        if moves:
            parts += _line(g, stones, moves, "pv-hover", rank=rec.rank)
    parts += _highlights(g, highlights)
    parts.append("</svg>")
    return "".join(parts)


HOVER_STYLE = ("<style>.go-board g.pv-hover{visibility:hidden;pointer-events:none}"
               + "".join(f'.go-board g.rec[data-rank="{r}"]:hover~g.pv-hover[data-rank="{r}"]{{visibility:visible}}'
                         for r in range(1, 10))
               + "</style>")


def _defs(with_style: bool) -> str:
    return ((HOVER_STYLE if with_style else "") + '<defs>'
            '<radialGradient id="gb-black" cx="35%" cy="30%" r="70%">'
            '<stop offset="0%" stop-color="#6b6b6b"/><stop offset="45%" stop-color="#222"/>'
            '<stop offset="100%" stop-color="#000"/></radialGradient>'
            '<radialGradient id="gb-white" cx="35%" cy="30%" r="75%">'
            '<stop offset="0%" stop-color="#ffffff"/><stop offset="70%" stop-color="#e8e8e8"/>'
            '<stop offset="100%" stop-color="#b8b8b8"/></radialGradient>'
            '</defs>')


def _lines(g: _Geometry) -> list[str]:
    size, out = g.size, []
    lo, hi = g.xy(0, 0)[0], g.xy(0, size - 1)[0]
    width = max(1.0, g.cell / 32)
    for i in range(size):
        x, y = g.xy(i, i)
        edge = 2 * width if i in (0, size - 1) else width
        for x1, y1, x2, y2 in ((lo, y, hi, y), (x, lo, x, hi)):  # row i, then column i
            out.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{LINE}" '
                       f'stroke-width="{_f(edge)}"/>')
    for r, c in star_points(size):
        x, y = g.xy(r, c)
        out.append(f'<circle class="star" cx="{_f(x)}" cy="{_f(y)}" r="{_f(g.cell * 0.09)}" fill="{LINE}"/>')
    return out


def _coordinates(g: _Geometry) -> list[str]:
    size, font = g.size, g.cell * 0.36
    style = f'font-family="sans-serif" font-size="{_f(font)}" fill="{LINE}" text-anchor="middle"'
    sides = (g.margin * 0.45, g.px - g.margin * 0.45)  # top and bottom, left and right
    labels = ([(g.xy(0, c)[0], y, GTP_COLUMNS[c]) for c in range(size) for y in sides]
              + [(x, g.xy(r, 0)[1], str(size - r)) for r in range(size) for x in sides])
    return [f'<text class="coord" x="{_f(x)}" y="{_f(y + font * 0.35)}" {style}>{label}</text>'
            for x, y, label in labels]


def _ownership(g: _Geometry, stones: Sequence[int], ownership: Sequence[float]) -> list[str]:
    """A black or white square per point, its side growing with the certainty; drawn
    over a stone only when the stone's owner is the other side (it looks dead)."""
    out = []
    for p, value in enumerate(ownership):
        v = max(-1.0, min(1.0, float(value)))
        if abs(v) < 0.15 or (stones[p] and stones[p] * v > 0):
            continue
        r, c = divmod(p, g.size)
        x, y = g.xy(r, c)
        side = g.cell * (0.2 + 0.3 * abs(v))
        fill = "#000" if v > 0 else "#fff"
        out.append(f'<rect class="owner {"black" if v > 0 else "white"}" x="{_f(x - side / 2)}" '
                   f'y="{_f(y - side / 2)}" width="{_f(side)}" height="{_f(side)}" fill="{fill}" '
                   f'fill-opacity="{0.25 + 0.4 * abs(v):.2f}"/>')
    return out


def _stones(g: _Geometry, stones: Sequence[int]) -> list[str]:
    out = []
    radius = g.cell * 0.47
    for p, v in enumerate(stones):
        if not v:
            continue
        r, c = divmod(p, g.size)
        x, y = g.xy(r, c)
        colour = "black" if v > 0 else "white"
        vertex = f"{GTP_COLUMNS[c]}{g.size - r}"
        stroke = ' stroke="#555" stroke-width="0.8"' if v < 0 else ""
        out.append(f'<circle class="stone {colour}" data-vertex="{vertex}" cx="{_f(x)}" cy="{_f(y)}" '
                   f'r="{_f(radius)}" fill="url(#gb-{colour})"{stroke}/>')
    return out


def _dead(g: _Geometry, stones: Sequence[int], vertices: Sequence[str]) -> list[str]:
    """A cross in the other colour over each stone counted dead (empty points skipped)."""
    out = []
    arm = g.cell * 0.2
    for vertex in vertices:
        rc = _point(vertex, g.size)
        if rc is None or not stones[rc[0] * g.size + rc[1]]:
            continue
        x, y = g.xy(*rc)
        colour = "#fff" if stones[rc[0] * g.size + rc[1]] > 0 else "#000"
        out.append(f'<path class="dead" data-vertex="{escape(vertex.upper())}" '
                   f'd="M{_f(x - arm)} {_f(y - arm)}L{_f(x + arm)} {_f(y + arm)}M{_f(x - arm)} {_f(y + arm)}'
                   f'L{_f(x + arm)} {_f(y - arm)}" stroke="{colour}" stroke-width="{_f(max(1.5, g.cell / 14))}"/>')
    return out


def _last_move(g: _Geometry, stones: Sequence[int], vertex: str) -> list[str]:
    rc = _point(vertex, g.size)
    if rc is None:
        return []
    x, y = g.xy(*rc)
    on = stones[rc[0] * g.size + rc[1]]
    colour = "#fff" if on > 0 else "#000"
    return [f'<circle class="last-move" data-vertex="{escape(vertex.upper())}" cx="{_f(x)}" cy="{_f(y)}" '
            f'r="{_f(g.cell * 0.2)}" fill="none" stroke="{colour}" stroke-width="{_f(max(1.5, g.cell / 18))}"/>']


def _recommendations(g: _Geometry, stones: Sequence[int], recs: Sequence[Recommendation]) -> list[str]:
    out = []
    for rec in sorted(recs, key=lambda item: -item.rank):  # the best drawn last, on top
        rc = _point(rec.vertex, g.size)
        if rc is None or stones[rc[0] * g.size + rc[1]]:
            continue
        x, y = g.xy(*rc)
        fill = RANK_FILLS[min(rec.rank, len(RANK_FILLS)) - 1] if rec.rank >= 1 else RANK_FILLS[-1]
        text = "#fff" if rec.rank <= 2 else "#0d2a4a"
        rank_font, rate_font = g.cell * 0.30, g.cell * 0.24
        out.append(f'<g class="rec" data-rank="{rec.rank}" data-vertex="{escape(rec.vertex.upper())}">'
                   f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(g.cell * 0.44)}" fill="{fill}" fill-opacity="0.92" '
                   f'stroke="#0d2a4a" stroke-width="{1.5 if rec.rank == 1 else 0.6}"/>'
                   f'<text x="{_f(x)}" y="{_f(y - g.cell * 0.04)}" font-family="sans-serif" font-weight="bold" '
                   f'font-size="{_f(rank_font)}" fill="{text}" text-anchor="middle">{rec.rank}</text>'
                   f'<text x="{_f(x)}" y="{_f(y + g.cell * 0.26)}" font-family="sans-serif" '
                   f'font-size="{_f(rate_font)}" fill="{text}" text-anchor="middle">'
                   f'{100 * rec.winrate:.0f}%</text></g>')
    return out


def _marks(g: _Geometry, stones: Sequence[int], marks: Mapping[str, str]) -> list[str]:
    """A dot of the given colour on each marked stone (empty points skipped)."""
    out = []
    for vertex, colour in marks.items():
        rc = _point(vertex, g.size)
        if rc is None or not stones[rc[0] * g.size + rc[1]]:
            continue
        x, y = g.xy(*rc)
        out.append(f'<circle class="mistake-mark" data-vertex="{escape(vertex.upper())}" cx="{_f(x)}" cy="{_f(y)}" '
                   f'r="{_f(g.cell * 0.16)}" fill="{escape(colour)}" stroke="#fff" stroke-width="0.8"/>')
    return out


def _line(g: _Geometry, stones: Sequence[int], moves: Sequence[tuple[str, str]], kind: str,
          rank: int | None = None) -> list[str]:
    """Numbered stones for a line of play, in one group of class ``kind``; a point
    taken on the board or earlier in the line, a pass or a point off the board is
    skipped (its number is not drawn, the following ones keep theirs)."""
    taken = {p for p, v in enumerate(stones) if v}
    attrs = f' data-rank="{rank}"' if rank is not None else ""
    out = [f'<g class="{kind}"{attrs}>']
    radius, font = g.cell * 0.45, g.cell * 0.38
    for number, (colour, vertex) in enumerate(moves, start=1):
        rc = _point(vertex, g.size)
        if rc is None or rc[0] * g.size + rc[1] in taken:
            continue
        taken.add(rc[0] * g.size + rc[1])
        x, y = g.xy(*rc)
        black = colour.upper().startswith("B")
        fill, text = ("#111", "#fff") if black else ("#f4f4f4", "#111")
        out.append(f'<g class="pv-stone" data-vertex="{escape(vertex.upper())}" data-number="{number}">'
                   f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(radius)}" fill="{fill}" fill-opacity="0.88" '
                   f'stroke="#555" stroke-width="0.8"/>'
                   f'<text x="{_f(x)}" y="{_f(y + font * 0.36)}" font-family="sans-serif" font-weight="bold" '
                   f'font-size="{_f(font)}" fill="{text}" text-anchor="middle">{number}</text></g>')
    out.append("</g>")
    return out


def _highlights(g: _Geometry, vertices: Sequence[str]) -> list[str]:
    out = []
    for vertex in vertices:
        rc = _point(vertex, g.size)
        if rc is None:
            continue
        x, y = g.xy(*rc)
        out.append(f'<circle class="problem" data-vertex="{escape(vertex.upper())}" cx="{_f(x)}" cy="{_f(y)}" '
                   f'r="{_f(g.cell * 0.5)}" fill="none" stroke="{PROBLEM}" '
                   f'stroke-width="{_f(max(2.0, g.cell / 10))}" stroke-dasharray="{_f(g.cell / 6)} {_f(g.cell / 12)}"/>')
    return out


def winrate_bar_svg(winrate_black: float, *, width: int = 480, height: int = 26) -> str:
    """A horizontal bar: black's share of the win rate from the left, white's to the
    right, with both percentages written on it."""
    b = max(0.0, min(1.0, float(winrate_black)))
    split = width * b
    font = height * 0.55
    room = font * 4.5  # about the width of "B 50.0%"
    y = _f(height / 2 + font * 0.35)
    style = f'font-family="sans-serif" font-size="{_f(font)}"'
    if split >= room:  # black's label inside its part, else just right of it
        black = f'<text x="6" y="{y}" {style} fill="#fff">B {100 * b:.1f}%</text>'
    else:
        black = f'<text x="{_f(split + 6)}" y="{y}" {style} fill="#111">B {100 * b:.1f}%</text>'
    if width - split >= room:
        white = f'<text x="{width - 6}" y="{y}" {style} fill="#111" text-anchor="end">W {100 * (1 - b):.1f}%</text>'
    else:
        white = (f'<text x="{_f(split - 6)}" y="{y}" {style} fill="#fff" text-anchor="end">'
                 f'W {100 * (1 - b):.1f}%</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="winrate-bar" data-winrate-black="{b:.3f}" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" style="max-width:100%;height:auto">'
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#f4f4f4" stroke="#888"/>'
            f'<rect x="0" y="0" width="{_f(split)}" height="{height}" fill="#111"/>{black}{white}</svg>')


REASON = "#00838f"


def reason_marks(svg: str, size: int, vertices: Sequence[str], *, px: int = 480, coordinates: bool = True) -> str:
    """``svg`` (a ``board_svg`` of the same ``size``, ``px`` and ``coordinates``) with
    the points an explanation is about marked: a teal square around each, the first (the
    group it concerns) drawn thicker, in one ``<g class="reason-where">`` on top, each
    ``<rect class="reason-mark" data-vertex="D4">``. Points off the board or ``pass`` are
    skipped; no vertices leave ``svg`` as it was."""
    g = _Geometry(size, px, coordinates)
    out = []
    for index, vertex in enumerate(vertices):
        rc = _point(vertex, size)
        if rc is None:
            continue
        x, y = g.xy(*rc)
        half = g.cell * 0.46
        width = max(2.0, g.cell / (8 if index == 0 else 14))
        out.append(f'<rect class="reason-mark" data-vertex="{escape(vertex.upper())}" x="{_f(x - half)}" '
                   f'y="{_f(y - half)}" width="{_f(2 * half)}" height="{_f(2 * half)}" rx="{_f(g.cell * 0.08)}" '
                   f'fill="none" stroke="{REASON}" stroke-width="{_f(width)}"/>')
    if not out or not svg.endswith("</svg>"):
        return svg
    return svg[:-len("</svg>")] + '<g class="reason-where">' + "".join(out) + "</g></svg>"
