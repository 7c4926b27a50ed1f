"""Go property values of SGF, read leniently: each reader takes a ``RawProperty`` and
the ``Repairs`` of the reading, and returns the value, repairing what it can.

Repaired (each reported through ``Repairs``, so a strict reading refuses it): several
values, or a property repeated in one node, where one value is expected (all equal:
one kept; else the first kept, except Text such as ``C``, whose values are joined);
whitespace inside a point; ``SZ[]`` (19) and ``SZ[19x19]``; a komi or handicap
written with words around the number (the number), or with none (0); ``PL[1]`` and
``PL[2]`` of old files (black, white), and other ``PL`` values (ignored); results
outside FF[4]'s forms that say who won (``White resigns.`` is ``B+R``; ``W+Time Over``
is ``W+T``); other results are kept as written, with a warning.
Refused (``SgfError`` at the value): moves and points off the board or not points,
non-square boards and sizes outside 2..25, several moves in one ``B``/``W``.
What is NOT checked here: anything about positions (legality, setup that kills).
"""

from __future__ import annotations

import math
import re

from gobuddy.go.coords import BLACK, MAX_SIZE, MIN_SIZE, WHITE, CoordinateError, color_from_str, from_sgf
from gobuddy.go.sgf_grammar import RawProperty, Repairs, split_compose, unescape_text

_SIZE = re.compile(r"\s*(\d+)\s*(?:([:xX×])\s*(\d+))?\s*")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")
MAX_DIGITS = 6  # a size or a number of stones longer than this is refused before int() (Python
#                 refuses more than 4,300 digits with a plain ValueError, not an SgfError)
_WORDS = {"R": "R", "RESIGN": "R", "RESIGNATION": "R", "T": "T", "TIME": "T", "TIMEOUT": "T",
          "F": "F", "FORFEIT": "F", "ILLEGAL": "F"}
_FF4_RESULT = re.compile(r"(?:[BW]\+(?:\d+(?:\.\d+)?|R|Resign|T|Time|F|Forfeit)?|0|Draw|Void|\?)")
_NAMED_RESULT = re.compile(r"(?i)\s*(black|white)\s+(wins|resigns|resigned|loses on time|forfeits)\b")


def one(prop: RawProperty, repairs: Repairs) -> str:
    """The raw value of a property that takes one: the first of several, after a warning."""
    values = prop.values
    if len(values) > 1:
        same = all(v.strip() == values[0].strip() for v in values)
        how = f"written {len(prop.repeats) + 1} times in one node" if prop.repeats else f"has {len(values)} values"
        repairs.add(f"repeat {prop.ident}", f"{prop.ident} {how}",
                    "kept one (all equal)" if same else f"kept the first, {prop.ident}[{values[0]}]",
                    prop.where)
    return values[0]


def text(prop: RawProperty, repairs: Repairs) -> str:
    """A Text property (``C``, ``GC``): several values are joined by a blank line."""
    if len(prop.values) > 1:
        how = f"written {len(prop.repeats) + 1} times in one node" if prop.repeats else f"has {len(prop.values)} values"
        repairs.add(f"repeat {prop.ident}", f"{prop.ident} {how}", "joined them, a blank line between", prop.where)
    return "\n\n".join(unescape_text(v) for v in prop.values)


def move(prop: RawProperty, size: int, repairs: Repairs) -> int:
    """``B``/``W``: a point or pass (``[]``; ``[tt]`` on boards up to 19x19)."""
    if len(prop.values) != 1:
        raise prop.error(f"{prop.ident} takes one value, found {len(prop.values)}", 1)
    return _point(prop, 0, prop.values[0], size, True, repairs)


def _point(prop: RawProperty, index: int, raw: str, size: int, pass_ok: bool, repairs: Repairs,
           shown: str | None = None) -> int:
    """One point (``pass_ok``: or pass) of value ``index``; ``shown`` names the whole
    value in messages when ``raw`` is a corner of a rectangle."""
    shown = raw if shown is None else shown
    clean = "".join(raw.split())
    try:
        if not pass_ok and len(clean) != 2:
            raise CoordinateError(f"{clean!r} is not an SGF point")
        point = from_sgf(clean, size)
        if not pass_ok and point == size * size:  # "tt" on boards up to 19x19
            raise CoordinateError(f"SGF point {clean!r} is off a {size}x{size} board")
    except CoordinateError as exc:
        raise prop.error(f"bad {'move' if pass_ok else 'point'} {prop.ident}[{shown}]: {exc}", index) from None
    if clean != raw and clean:
        repairs.add("point whitespace", f"whitespace inside the point {prop.ident}[{shown}]",
                    "dropped it", prop.value_where[index])
    return point


def points(prop: RawProperty, size: int, repairs: Repairs) -> list[tuple[int, int]]:
    """``AB``/``AW``/``AE`` values as ``(point, value index)`` pairs, ``aa:cc``
    rectangles expanded row by row; a point named twice in the property once."""
    found: dict[int, int] = {}
    for i, raw in enumerate(prop.values):
        corners = split_compose(raw)
        (r1, c1), (r2, c2) = ((divmod(_point(prop, i, c, size, False, repairs, raw), size) for c in corners)
                              if corners else [divmod(_point(prop, i, raw, size, False, repairs), size)] * 2)
        for r in range(min(r1, r2), max(r1, r2) + 1):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                found.setdefault(r * size + c, i)
    return list(found.items())


def board_size(prop: RawProperty, repairs: Repairs) -> int:
    """``SZ``: a square size 2..25; ``SZ[]`` is 19 and ``SZ[19x19]`` 19, with a warning."""
    raw = one(prop, repairs)
    if raw.strip() == "":
        repairs.add("SZ empty", "SZ[] has no size", "read as 19, the default", prop.value_where[0])
        return 19
    m = _SIZE.fullmatch(raw)
    if m is None:
        raise prop.error(f"SZ expects a board size such as SZ[9], found {raw.strip()!r}", 0)
    cols, sep, rows = m.group(1), m.group(2), m.group(3) or m.group(1)
    if max(len(cols), len(rows)) > MAX_DIGITS:
        raise prop.error(f"board size {raw.strip()[:20]!r}... is not supported (expected {MIN_SIZE} to {MAX_SIZE})", 0)
    if int(cols) != int(rows):
        raise prop.error(f"non-square board SZ[{raw.strip()}] is not supported", 0)
    if sep and sep != ":":
        repairs.add("SZ odd", f"SZ[{raw}] is not an SGF size", f"read as SZ[{int(cols)}]", prop.value_where[0])
    if not MIN_SIZE <= int(cols) <= MAX_SIZE:
        raise prop.error(f"board size {int(cols)} is not supported (expected {MIN_SIZE} to {MAX_SIZE})", 0)
    return int(cols)


def komi(prop: RawProperty, repairs: Repairs) -> float:
    """``KM``: a real number; empty is 0, words around a number are dropped, a value
    with no number is 0 (each with a warning)."""
    raw = one(prop, repairs)
    text_ = raw.strip().replace(",", ".")
    if text_ == "":
        repairs.add("KM empty", "KM[] has no komi", "read as 0", prop.value_where[0])
        return 0.0
    try:
        value = float(text_)
    except ValueError:
        found = _NUMBER.search(text_)
        value = float(found.group().replace(",", ".")) if found else 0.0
        repairs.add(f"KM odd {raw}", f"KM[{raw}] is not a number", f"read as KM[{value:g}]", prop.value_where[0])
    if not math.isfinite(value):
        raise prop.error(f"KM expects a number, found {raw!r}", 0)
    return value


def handicap(prop: RawProperty, repairs: Repairs) -> int:
    """``HA``: a number of stones; anything else is read as the number in it, or 0."""
    raw = one(prop, repairs).strip()
    if raw.isdigit() and len(raw) <= MAX_DIGITS:
        return int(raw)
    found = _NUMBER.search(raw)
    if found and len(found.group()) > MAX_DIGITS + 8:
        raise prop.error(f"HA expects a number of stones, found {raw[:20]!r}...", 0)
    value = max(0, int(float(found.group().replace(",", ".")))) if found else 0
    repairs.add(f"HA odd {raw}", f"HA[{raw}] is not a number of stones", f"read as HA[{value}]", prop.value_where[0])
    return value


def player(prop: RawProperty, repairs: Repairs) -> int | None:
    """``PL``: ``B``/``W`` (or ``black``/``white``); ``1``/``2`` of old files with a
    warning; anything else is ignored (``None``) with a warning."""
    raw = unescape_text(one(prop, repairs), simple=True).strip()
    try:
        return color_from_str(raw)
    except CoordinateError:
        key = raw.lower()
    if key in ("1", "2"):
        color = BLACK if key == "1" else WHITE
        repairs.add(f"PL {key}", f"PL[{raw}] (an old numeric colour)", f"read as PL[{'B' if key == '1' else 'W'}]",
                    prop.value_where[0])
        return color
    repairs.add(f"PL odd {raw}", f"PL[{raw}] is not B or W", "ignored", prop.value_where[0])
    return None


def result(prop: RawProperty, repairs: Repairs) -> str | None:
    """``RE`` as FF[4] text (``None`` for ``RE[]``). FF[4] forms are kept as written;
    ``B+Time Over``, ``W+timeout``, ``B+Illegal``, ``White resigns.``, ``B+3.5 points``
    and the like become ``B+T``, ``W+T``, ``B+F``, ``B+R``, ``B+3.5`` with a warning;
    anything else is kept as written, with a warning."""
    raw = unescape_text(one(prop, repairs), simple=True)
    if raw == "":
        return None
    if _FF4_RESULT.fullmatch(raw.strip()):
        return raw
    fixed = _read_result(raw.strip())
    if fixed is None:
        repairs.add(f"RE odd {raw}", f"RE[{raw}] is not an FF[4] result", "kept as written", prop.value_where[0])
        return raw
    repairs.add(f"RE {raw}", f"RE[{raw}] is not an FF[4] result", f"read as RE[{fixed}]", prop.value_where[0])
    return fixed


def _read_result(raw: str) -> str | None:
    upper = raw.upper()
    if upper in ("JIGO", "DRAW", "B+0", "W+0"):
        return "0"
    named = _NAMED_RESULT.match(raw)
    if named is not None:
        side = "B" if named.group(1).lower() == "black" else "W"
        other = "W" if side == "B" else "B"
        verb = named.group(2).lower()
        return {"wins": f"{side}+", "resigns": f"{other}+R", "resigned": f"{other}+R",
                "loses on time": f"{other}+T", "forfeits": f"{other}+F"}[verb]
    if len(upper) >= 2 and upper[0] in "BW" and upper[1] == "+":
        rest = upper[2:].strip()
        word = re.match(r"[A-Z]+", rest)
        if word is not None and word.group() in _WORDS:
            return f"{upper[0]}+{_WORDS[word.group()]}"
        number = re.match(r"\d+(?:\.\d+)?", rest)
        if number is not None:
            return f"{upper[0]}+{number.group()}"
        if rest == "" or rest[0] in ",;:(":
            return f"{upper[0]}+"
    return None
