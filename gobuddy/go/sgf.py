"""SGF files <-> game records: reading FF[1]-FF[4] Go files, writing FF[4].

Decision: our own small parser (``gobuddy.go.sgf_grammar``) rather than sgfmill or
pysgf. The grammar is a dozen lines of EBNF; we need errors that name a line and a
column, records that come back from a write unchanged, property values kept exactly
as written, and a core with no third-party dependency (``gobuddy.go`` is numpy and the
standard library only). sgfmill reports errors without positions, and would still
need a bridge to our record and coordinates. Layered as sgfmill is: the grammar
(``sgf_grammar``) knows nothing of Go; this module gives Go meaning to its raw nodes.

Reading (``parse_sgf``):
- Bytes are decoded with the charset named by ``CA`` in the first game's root (UTF-8
  when absent). If that fails (undecodable bytes or an unknown charset name) UTF-8 is
  tried, then latin-1, which always succeeds: a file without ``CA`` that is not UTF-8
  is read as latin-1. A UTF-8 byte-order mark is skipped. The first game's ``CA``
  governs the whole collection. ``str`` input is taken as already decoded.
- The root node gives ``GameInfo``: SZ (square only, 2..25; default 19), KM (default
  0), HA, RU (known rule sets stored lowercase; default ``"chinese"``), PB, PW, BR,
  WR, DT, PC, EV, GN, RE (``RE[]`` is ``None``); FF, GM and CA are checked and consumed;
  every other property of the root node goes verbatim into ``GameInfo.extra``.
- Every node: B/W (``[]``, and ``[tt]`` on boards up to 19x19, are pass), AB/AW/AE
  (point lists, ``aa:cc`` rectangles expanded row by row), PL, C (Text: escapes and
  soft line breaks removed, line breaks read as ``\\n``); every other property is kept
  raw (escapes in place) in ``Node.properties``.
- Errors: one ``SgfError`` naming line, column and what was expected. Not errors:
  illegal moves or positions (SGF may record them; ``GameRecord.position_at``
  complains), moves of the same colour twice, setup mixed with a move in one node.

Writing (``dump_sgf``): FF[4], CA[UTF-8], GM[1], SZ, KM, RU always (known rule sets
in their usual spelling, ``Japanese``); other info only when set; passes as ``[]``;
setup points one by one; a line break every ten nodes, after a commented node and
before each variation. Raw values are written as they are, so they must be valid raw
SGF (``ValueError`` otherwise). ``parse_sgf(dump_sgf(r))`` equals ``r`` for every
record whose text fields use ``\\n`` line breaks and no tabs (simple-text fields no
line breaks at all), whose known rule names are lowercase, whose ``result`` is not
``""``, and whose root node keeps its uninterpreted properties in ``info.extra``;
``dump_sgf(parse_sgf(dump_sgf(r)))`` equals ``dump_sgf(r)``.
"""

from __future__ import annotations

import codecs
import math
import re
from decimal import Decimal
from typing import Iterable

from gobuddy.go.coords import (BLACK, MAX_SIZE, MIN_SIZE, WHITE, CoordinateError,
                               color_from_str, color_to_str, from_sgf, to_sgf)
from gobuddy.go.record import GameInfo, GameRecord, Node
from gobuddy.go.sgf_grammar import (RawNode, RawProperty, SgfError, escape_text, is_raw_value,
                                    parse_collection, scan_first_node, split_compose, unescape_text)

__all__ = ["SgfError", "parse_sgf", "dump_sgf"]

_INFO_TEXT = {"PB": "black", "PW": "white", "BR": "black_rank", "WR": "white_rank",
              "DT": "date", "PC": "place", "EV": "event", "GN": "game_name"}
_RULES = {"chinese": "Chinese", "japanese": "Japanese", "korean": "Korean", "aga": "AGA",
          "goe": "GOE", "nz": "NZ", "tromp-taylor": "Tromp-Taylor"}
_ROOT_READ = {"FF", "GM", "CA", "SZ", "KM", "HA", "RU", "RE", *_INFO_TEXT}
_NODE_READ = {"B", "W", "AB", "AW", "AE", "PL", "C"}
_NODES_PER_LINE = 10
_IDENT = re.compile(r"[A-Z]+")


# ---------------------------------------------------------------------- reading
def parse_sgf(data: bytes | str) -> list[GameRecord]:
    """Every game tree of an SGF collection as a ``GameRecord``, in file order.

    Raises ``SgfError`` (a ``ValueError`` with ``.line`` and ``.column``) for malformed
    text and for values that do not fit their property (bad points, sizes, numbers)."""
    text = _decode(data) if isinstance(data, (bytes, bytearray)) else data
    if text.startswith("\ufeff"):
        text = text[1:]
    return [_record(tree) for tree in parse_collection(text)]


def _decode(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    props = scan_first_node(data.decode("latin-1")) or {}
    declared = [v.strip() for v in props.get("CA", [])[:1] if v.strip()]
    for charset in declared + ["utf-8"]:
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("latin-1")


def _one(prop: RawProperty) -> str:
    if len(prop.values) != 1:
        raise prop.error(f"{prop.ident} takes one value, found {len(prop.values)}", 1)
    return prop.values[0]


def _record(raw_root: RawNode) -> GameRecord:
    props = raw_root.properties
    size = _size(props["SZ"]) if "SZ" in props else 19
    if "GM" in props and _one(props["GM"]).strip() != "1":
        raise props["GM"].error(f"GM[{props['GM'].values[0]}] is not a game of Go (expected GM[1])", 0)
    if "FF" in props and _one(props["FF"]).strip() not in ("1", "2", "3", "4"):
        raise props["FF"].error(f"unsupported file format FF[{props['FF'].values[0]}] (expected 1 to 4)", 0)
    info = GameInfo(size=size, komi=0.0)
    if "KM" in props:
        info.komi = _real(props["KM"])
    if "HA" in props:
        text = _one(props["HA"]).strip()
        if not text.isdigit():
            raise props["HA"].error(f"HA expects a number of stones, found {text!r}", 0)
        info.handicap = int(text)
    if "RU" in props:
        rules = unescape_text(_one(props["RU"]), simple=True)
        info.rules = rules.lower() if rules.lower() in _RULES else rules
    if "RE" in props:
        info.result = unescape_text(_one(props["RE"]), simple=True) or None
    for ident, name in _INFO_TEXT.items():
        if ident in props:
            setattr(info, name, unescape_text(_one(props[ident]), simple=True))
    for ident, prop in props.items():
        if ident not in _ROOT_READ and ident not in _NODE_READ:
            info.extra[ident] = list(prop.values)
    record = GameRecord(info, _node(raw_root, size, root=True))
    stack = [(raw_root, record.root)]
    while stack:
        raw, node = stack.pop()
        for raw_child in raw.children:
            child = node.add_child(_node(raw_child, size, root=False))
            stack.append((raw_child, child))
    return record


def _size(prop: RawProperty) -> int:
    text = _one(prop).strip()
    parts = split_compose(text)
    cols, rows = parts if parts is not None else (text, text)
    if not (cols.strip().isdigit() and rows.strip().isdigit()):
        raise prop.error(f"SZ expects a board size such as SZ[9], found {text!r}", 0)
    if int(cols) != int(rows):
        raise prop.error(f"non-square board SZ[{text}] is not supported", 0)
    if not MIN_SIZE <= int(cols) <= MAX_SIZE:
        raise prop.error(f"board size {int(cols)} is not supported (expected {MIN_SIZE} to {MAX_SIZE})", 0)
    return int(cols)


def _real(prop: RawProperty) -> float:
    text = _one(prop).strip().replace(",", ".")
    if text == "":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise prop.error(f"{prop.ident} expects a number, found {prop.values[0]!r}", 0)
    return value


def _node(raw: RawNode, size: int, root: bool) -> Node:
    node = Node()
    props = raw.properties
    if "B" in props and "W" in props:
        raise props["W"].error("a node holds both B and W: expected one move per node")
    for ident, color in (("B", BLACK), ("W", WHITE)):
        if ident in props:
            try:
                node.move = (color, from_sgf(_one(props[ident]), size))
            except CoordinateError as exc:
                raise props[ident].error(f"bad move {ident}[{props[ident].values[0]}]: {exc}", 0) from None
    seen: dict[int, str] = {}
    for ident, points in (("AB", node.setup_black), ("AW", node.setup_white), ("AE", node.setup_empty)):
        if ident in props:
            points.extend(_point_list(props[ident], size, seen))
    if "PL" in props:
        try:
            node.to_play = color_from_str(unescape_text(_one(props["PL"]), simple=True))
        except CoordinateError:
            raise props["PL"].error(f"PL expects B or W, found {props['PL'].values[0]!r}", 0) from None
    if "C" in props:
        node.comment = unescape_text(_one(props["C"]))
    if not root:
        node.properties = {k: list(p.values) for k, p in props.items() if k not in _NODE_READ}
    return node


def _point_list(prop: RawProperty, size: int, seen: dict[int, str]) -> list[int]:
    """Expand AB/AW/AE values (points and ``aa:cc`` rectangles); refuse repeats."""
    points: list[int] = []
    for i, raw in enumerate(prop.values):
        corners = split_compose(raw) or (raw, raw)
        try:
            (r1, c1), (r2, c2) = (divmod(_stone(c, size), size) for c in corners)
        except CoordinateError as exc:
            raise prop.error(f"bad point {prop.ident}[{raw}]: {exc}", i) from None
        for r in range(min(r1, r2), max(r1, r2) + 1):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                p = r * size + c
                if p in seen:
                    raise prop.error(f"point {to_sgf(p, size)!r} is set twice in one node "
                                     f"({seen[p]} and {prop.ident})", i)
                seen[p] = prop.ident
                points.append(p)
    return points


def _stone(text: str, size: int) -> int:
    if len(text) != 2:
        raise CoordinateError(f"{text!r} is not an SGF point")
    point = from_sgf(text, size)
    if point == size * size:  # "tt" on boards up to 19x19
        raise CoordinateError(f"SGF point {text!r} is off a {size}x{size} board")
    return point


# ---------------------------------------------------------------------- writing
def dump_sgf(records: GameRecord | Iterable[GameRecord]) -> str:
    """SGF FF[4] text of one record or a collection of them (one game tree each).

    Raises ``ValueError`` for what cannot be written faithfully: points off the board,
    malformed raw values or identifiers, a property in ``properties``/``extra`` that this
    module interprets, or properties on the root node (they belong in ``info.extra``)."""
    if isinstance(records, GameRecord):
        records = [records]
    out: list[str] = []
    for record in records:
        _dump_tree(record, out)
        out.append("\n")
    return "".join(out)


def _dump_tree(record: GameRecord, out: list[str]) -> None:
    stack: list[Node | None] = [record.root]
    first = True
    while stack:
        node = stack.pop()
        if node is None:
            out.append(")")
            continue
        out.append("(" if first else "\n(")
        count, pending_break = 0, False
        while True:
            if count == _NODES_PER_LINE or pending_break:
                out.append("\n")
                count = 0
            out.append(";" + (_root_props(record) if first else "") + _node_props(node, record.info.size))
            count += 1
            pending_break, first = first or bool(node.comment), False
            if len(node.children) != 1:
                break
            node = node.children[0]
        if not node.children:
            out.append(")")
        else:
            stack.append(None)
            stack.extend(reversed(node.children))


def _prop(ident: str, values: Iterable[str]) -> str:
    return ident + "".join(f"[{v}]" for v in values)


def _root_props(record: GameRecord) -> str:
    info = record.info
    if record.root.properties:
        raise ValueError(f"root node properties {list(record.root.properties)} belong in info.extra")
    parts = ["FF[4]CA[UTF-8]GM[1]", _prop("SZ", [str(info.size)]), _prop("KM", [_format_real(info.komi)]),
             _prop("RU", [escape_text(_RULES.get(info.rules, info.rules))])]
    if info.handicap:
        parts.append(_prop("HA", [str(int(info.handicap))]))
    for ident, name in _INFO_TEXT.items():
        if getattr(info, name):
            parts.append(_prop(ident, [escape_text(getattr(info, name))]))
    if info.result is not None:
        parts.append(_prop("RE", [escape_text(info.result)]))
    parts.append(_raw_props(info.extra, _ROOT_READ | _NODE_READ, "info.extra"))
    return "".join(parts)


def _node_props(node: Node, size: int) -> str:
    parts = []
    try:
        if node.move is not None:
            color, point = node.move
            parts.append(_prop(color_to_str(color), [to_sgf(point, size)]))
        for ident, points in (("AB", node.setup_black), ("AW", node.setup_white), ("AE", node.setup_empty)):
            if points:
                if size * size in points:
                    raise CoordinateError(f"pass cannot be a setup point in {ident}")
                parts.append(_prop(ident, [to_sgf(p, size) for p in points]))
        if node.to_play is not None:
            parts.append(_prop("PL", [color_to_str(node.to_play)]))
    except CoordinateError as exc:
        raise ValueError(f"cannot write node {node!r}: {exc}") from None
    parts.append(_raw_props(node.properties, _NODE_READ, "Node.properties"))
    if node.comment is not None:
        parts.append(_prop("C", [escape_text(node.comment)]))
    return "".join(parts)


def _raw_props(props: dict[str, list[str]], reserved: set[str], where: str) -> str:
    parts = []
    for ident, values in props.items():
        if not _IDENT.fullmatch(ident) or ident in reserved:
            raise ValueError(f"{where} cannot hold property {ident!r} "
                             f"({'interpreted by the record' if ident in reserved else 'not an SGF identifier'})")
        if not values:
            raise ValueError(f"{where}[{ident!r}] has no value")
        for v in values:
            if not is_raw_value(v):
                raise ValueError(f"{where}[{ident!r}] value {v!r} is not raw SGF (escape it with escape_text)")
        parts.append(_prop(ident, values))
    return "".join(parts)


def _format_real(value: float) -> str:
    """A float as SGF Real: no exponent, no trailing ``.0``."""
    if not math.isfinite(value):
        raise ValueError(f"komi {value!r} is not a finite number")
    text = format(Decimal(repr(float(value))), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text

