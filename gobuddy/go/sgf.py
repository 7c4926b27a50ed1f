"""SGF files <-> game records: reading FF[1]-FF[4] Go files, writing FF[4].

Decision: our own small parser (``gobuddy.go.sgf_grammar``) rather than sgfmill or
pysgf. The grammar is a dozen lines of EBNF; we need errors that name a line and a
column, records that come back from a write unchanged, property values kept exactly
as written, and a core with no third-party dependency (``gobuddy.go`` is numpy and the
standard library only). sgfmill reports errors without positions, and would still
need a bridge to our record and coordinates. Layered as sgfmill is: the grammar
(``sgf_grammar``) knows nothing of Go; this module gives Go meaning to its raw nodes.

Reading (``read_sgf``; ``parse_sgf`` is its records alone) is lenient: what a
real-world file gets wrong is repaired where the meaning is clear, and each repair is
reported as an ``SgfWarning`` (line, column, the problem, what was done), repeats of
one kind counted. ``read_sgf(data, strict=True)`` refuses each of them instead.
- Bytes are decoded with the charset named by ``CA`` in the first game's root (UTF-8
  when absent); a UTF-8 or UTF-16 byte-order mark decides the charset itself. If the
  named charset fails (undecodable bytes, unknown name: a warning) UTF-8 is tried,
  then latin-1, which always succeeds: a file without ``CA`` that is not UTF-8 is read
  as latin-1. The first game's ``CA`` governs the whole collection. ``str`` input is
  taken as already decoded.
- The grammar (``sgf_grammar``) skips text outside the game trees (mail headers,
  notes), closes trees left open at the end of the file, reads FF[3] long and
  lower-case names (``AddBlack`` is ``AB``) and merges a property repeated in a node.
- The root node gives ``GameInfo``: SZ (square only, 2..25; default 19), KM (default
  0), HA, RU (known rule sets stored lowercase; default ``"chinese"``), PB, PW, BR,
  WR, DT, PC, EV, GN, RE (``RE[]`` is ``None``); FF, GM and CA are checked and consumed;
  every other property of the root node goes verbatim into ``GameInfo.extra``.
  ``gobuddy.go.sgf_values`` says how odd values are read (``SZ[]``, ``KM[6.5 pts]``,
  ``PL[1]``, ``RE[White resigns.]``, a single-valued property given twice).
- Every node: B/W (``[]``, and ``[tt]`` on boards up to 19x19, are pass), AB/AW/AE
  (point lists, ``aa:cc`` rectangles expanded row by row), PL, C (Text: escapes and
  soft line breaks removed, line breaks read as ``\\n``); every other property is kept
  raw (escapes in place) in ``Node.properties``. Repaired: a node with both B and W
  becomes two nodes (in the order written); a point set by two of AB/AW/AE in one node
  keeps the last.
- Setup (AB/AW/AE, PL) in any node, the root or later, is kept where it stands: the
  record holds it (``GameRecord.linear_line`` folds it for readers that keep a game
  as a start position and moves).
- Errors: one ``SgfError`` naming line, column and what is wrong, for what cannot be
  repaired. Not errors: illegal moves or positions (SGF may record them;
  ``GameRecord.position_at`` complains), moves of the same colour twice, setup mixed
  with a move in one node.

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

from dataclasses import dataclass

from gobuddy.go import sgf_values as values
from gobuddy.go.coords import BLACK, WHITE, CoordinateError, color_to_str, to_sgf
from gobuddy.go.record import GameInfo, GameRecord, Node
from gobuddy.go.sgf_grammar import (RawNode, RawProperty, Repairs, SgfError, SgfWarning, escape_text,
                                    is_raw_value, parse_collection, scan_first_node, unescape_text)

__all__ = ["SgfError", "SgfRead", "SgfWarning", "read_sgf", "parse_sgf", "dump_sgf"]

_INFO_TEXT = {"PB": "black", "PW": "white", "BR": "black_rank", "WR": "white_rank",
              "DT": "date", "PC": "place", "EV": "event", "GN": "game_name"}
_RULES = {"chinese": "Chinese", "japanese": "Japanese", "korean": "Korean", "aga": "AGA",
          "goe": "GOE", "nz": "NZ", "tromp-taylor": "Tromp-Taylor"}
_ROOT_READ = {"FF", "GM", "CA", "SZ", "KM", "HA", "RU", "RE", *_INFO_TEXT}
_NODE_READ = {"B", "W", "AB", "AW", "AE", "PL", "C"}
_NODES_PER_LINE = 10
_IDENT = re.compile(r"[A-Z]+")


# ---------------------------------------------------------------------- reading
@dataclass
class SgfRead:
    """What reading an SGF file gave: its games in file order (``records``), where
    each game tree's root node begins (``starts``: line, column), and the repairs made
    (``warnings``: none for a well-formed file)."""

    records: list[GameRecord]
    starts: list[tuple[int, int]]
    warnings: list[SgfWarning]

    def first(self) -> tuple[GameRecord, list[SgfWarning]]:
        """The first game and the warnings, one more when the file holds several games
        (the others are not taken: a reader that keeps one game uses this)."""
        warnings = list(self.warnings)
        if len(self.records) > 1:
            warnings.append(SgfWarning(*self.starts[1], f"the file holds {len(self.records)} games",
                                       "took the first, left the others"))
        return self.records[0], warnings


def read_sgf(data: bytes | str, strict: bool = False) -> SgfRead:
    """Every game tree of an SGF collection as a ``GameRecord``, and the repairs made.

    Lenient: what can be repaired is, with a warning each (see the module docstring);
    ``strict=True`` refuses each of those as an ``SgfError`` instead (to check that a
    writer needs no repair). Raises ``SgfError`` (a ``ValueError`` with ``.line`` and
    ``.column``) for what cannot be repaired: malformed structure inside a game tree,
    values that do not fit their property (points off the board, unsupported sizes)."""
    repairs = Repairs(strict)
    if isinstance(data, (bytes, bytearray)):
        text = _decode(bytes(data), repairs)
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    trees = parse_collection(text, repairs)
    records = [_record(tree, repairs) for tree in trees]
    return SgfRead(records, [tree.where for tree in trees], repairs.warnings())


def parse_sgf(data: bytes | str) -> list[GameRecord]:
    """``read_sgf(data).records``: every game, read leniently, the warnings dropped."""
    return read_sgf(data).records


def _decode(data: bytes, repairs: Repairs) -> str:
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError:
                data = data[len(bom):]
                break
    props = scan_first_node(data.decode("latin-1")) or {}
    declared = [v.strip() for v in props.get("CA", [])[:1] if v.strip()]
    for charset in declared + ["utf-8"]:
        try:
            text = data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
        if declared and charset != declared[0]:
            repairs.add("charset", f"CA[{declared[0]}] does not decode the file", f"read it as {charset}", (1, 1))
        return text
    if declared:
        repairs.add("charset", f"CA[{declared[0]}] does not decode the file", "read it as latin-1", (1, 1))
    return data.decode("latin-1")


def _record(raw_root: RawNode, repairs: Repairs) -> GameRecord:
    props = raw_root.properties
    size = values.board_size(props["SZ"], repairs) if "SZ" in props else 19
    for ident, known, refusal in (("GM", ("1",), "GM[{}] is not a game of Go (expected GM[1])"),
                                  ("FF", ("1", "2", "3", "4"), "unsupported file format FF[{}] (expected 1 to 4)")):
        if ident in props:
            value = values.one(props[ident], repairs).strip()
            if value == "":
                repairs.add(f"{ident} empty", f"{ident}[] is empty", "ignored", props[ident].where)
            elif value not in known:
                raise props[ident].error(refusal.format(value), 0)
    info = GameInfo(size=size, komi=0.0)
    if "KM" in props:
        info.komi = values.komi(props["KM"], repairs)
    if "HA" in props:
        info.handicap = values.handicap(props["HA"], repairs)
    if "RU" in props:
        rules = unescape_text(values.one(props["RU"], repairs), simple=True)
        info.rules = rules.lower() if rules.lower() in _RULES else rules
    if "RE" in props:
        info.result = values.result(props["RE"], repairs)
    for ident, name in _INFO_TEXT.items():
        if ident in props:
            setattr(info, name, unescape_text(values.one(props[ident], repairs), simple=True))
    for ident, prop in props.items():
        if ident not in _ROOT_READ and ident not in _NODE_READ:
            _note_merged(prop, repairs)
            info.extra[ident] = list(prop.values)
    root, last = _nodes(raw_root, size, True, repairs)
    record = GameRecord(info, root)
    stack = [(raw_root, last)]
    while stack:
        raw, node = stack.pop()
        for raw_child in raw.children:
            first, last = _nodes(raw_child, size, False, repairs)
            node.add_child(first)
            stack.append((raw_child, last))
    return record


def _note_merged(prop: RawProperty, repairs: Repairs, what: str = "values") -> None:
    if prop.repeats:
        repairs.add(f"merged {prop.ident}", f"{prop.ident} written {len(prop.repeats) + 1} times in one node",
                    f"merged the {what}", prop.repeats[0])


def _nodes(raw: RawNode, size: int, root: bool, repairs: Repairs) -> tuple[Node, Node]:
    """The node(s) of one raw node: two, chained, when it holds both B and W (in the
    order written); returns (first, last)."""
    node = Node()
    props = raw.properties
    moves = sorted((props[i].where, i) for i in ("B", "W") if i in props)
    if moves:
        ident = moves[0][1]
        node.move = (BLACK if ident == "B" else WHITE, values.move(props[ident], size, repairs))
    _setup(node, [props[i] for i in props if i in ("AB", "AW", "AE")], size, repairs)
    if "PL" in props:
        node.to_play = values.player(props["PL"], repairs)
    if "C" in props:
        node.comment = values.text(props["C"], repairs)
    if not root:
        for k, p in props.items():
            if k not in _NODE_READ:
                _note_merged(p, repairs)
                node.properties[k] = list(p.values)
    if len(moves) < 2:
        return node, node
    second = moves[1][1]
    nxt = Node(move=(BLACK if second == "B" else WHITE, values.move(props[second], size, repairs)))
    repairs.add("B and W", "a node holds both B and W", "split it in two nodes, in the order written",
                props[second].where)
    return node, node.add_child(nxt)


def _setup(node: Node, props: list[RawProperty], size: int, repairs: Repairs) -> None:
    """AB/AW/AE in file order; a point named by two of them keeps the last (a warning)."""
    lists = {"AB": node.setup_black, "AW": node.setup_white, "AE": node.setup_empty}
    owner: dict[int, str] = {}
    for prop in props:
        _note_merged(prop, repairs, "points")
        for point, index in values.points(prop, size, repairs):
            before = owner.get(point)
            if before is not None and before != prop.ident:
                lists[before].remove(point)
                repairs.add("set twice", f"point {to_sgf(point, size)!r} is set twice in one node "
                                         f"({before} and {prop.ident})", f"kept {prop.ident}",
                            prop.value_where[index])
            if before != prop.ident:
                owner[point] = prop.ident
                lists[prop.ident].append(point)


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

