"""The SGF grammar: text to a tree of raw nodes, and value escaping. Knows nothing of Go.

FF[4] grammar, as read here::

    Collection = GameTree { GameTree }          (whitespace allowed between all tokens)
    GameTree   = "(" Sequence { GameTree } ")"
    Sequence   = Node { Node }
    Node       = ";" { Property }
    Property   = Ident Value { Value }          Ident: letters, see below
    Value      = "[" raw text, where "\\" escapes the next character "]"

A game tree becomes a chain of ``RawNode``: each node's ``children`` is the next node
of its sequence, or, at the end of a sequence, the first nodes of its variations.

What is done here: identifiers drop their lowercase letters (FF[3] files write
``AddBlack[aa]`` for ``AB``; FF[4] allows readers to do this) and one that has no
capital is an error; a property repeated in one node is merged into one (values
appended, first position kept, where each repeat was written in ``repeats``: the
caller decides per property what a repeat means). Values stay raw (escapes in place);
``unescape_text`` and ``split_compose`` read them for a caller who knows a property's
type. What is NOT done here: property types, value checks, charsets (the caller
decodes bytes first), anything about Go.

Lenient reading: given a ``Repairs``, these are repaired and reported as warnings
(``SgfWarning``, located like errors): text before the first game tree, between game
trees and after the last (mail headers, notes, a stray ``)``) is skipped; a file that
ends inside a game tree has its open trees closed; FF[3] identifiers are read as
above. A strict ``Repairs`` (or none) turns each of them into an ``SgfError``.
Everything else that is malformed raises one ``SgfError`` naming the line and column
(both from 1; columns count characters) and what was expected there.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field


class SgfError(ValueError):
    """Malformed SGF. ``line`` and ``column`` (from 1) say where; the message what."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.reason = message


@dataclass(frozen=True)
class SgfWarning:
    """A repair made while reading: where (line and column from 1), the problem found,
    and what was done about it. ``count`` > 1: that many of the same kind, the first here."""

    line: int
    column: int
    problem: str
    repair: str
    count: int = 1

    @property
    def message(self) -> str:
        times = f" ({self.count} times)" if self.count > 1 else ""
        return f"{self.problem}{times}: {self.repair}"

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


class Repairs:
    """The repairs of one reading. ``strict``: each repair is refused instead, as an
    ``SgfError`` naming the problem. Repeats of one ``kind`` are counted, not listed."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self._seen: dict[str, list] = {}

    def add(self, kind: str, problem: str, repair: str, where: tuple[int, int]) -> None:
        """Record one repair at ``where`` (line, column); raise ``SgfError`` if strict."""
        if self.strict:
            raise SgfError(problem, *where)
        if kind in self._seen:
            self._seen[kind][4] += 1
        else:
            self._seen[kind] = [where[0], where[1], problem, repair, 1]

    def warnings(self) -> list[SgfWarning]:
        """One warning per kind of repair, in file order of each kind's first place."""
        return sorted((SgfWarning(*fields) for fields in self._seen.values()), key=lambda w: (w.line, w.column))


@dataclass(eq=False)
class RawProperty:
    """One property of a node: its identifier, raw values, and where each began.

    ``where`` is the (line, column) of the identifier; ``value_where`` the (line,
    column) of each value's ``[``; ``repeats`` where the identifier was written again
    in the same node (its values appended to ``values``)."""

    ident: str
    values: list[str]
    where: tuple[int, int]
    value_where: list[tuple[int, int]]
    repeats: list[tuple[int, int]] = field(default_factory=list)

    def error(self, message: str, index: int | None = None) -> SgfError:
        """An ``SgfError`` located at this property (or at its value ``index``)."""
        line, column = self.where if index is None else self.value_where[index]
        return SgfError(message, line, column)


@dataclass(eq=False)
class RawNode:
    """A node: properties by identifier (file order) and child nodes (first = main)."""

    properties: dict[str, RawProperty]
    where: tuple[int, int]
    children: list["RawNode"] = field(default_factory=list)


_TOKEN = re.compile(r"\s*(?:(?P<open>\()|(?P<close>\))|(?P<semi>;)|(?P<ident>[A-Za-z]+)"
                    r"|(?P<bracket>\[)|(?P<end>\Z)|(?P<other>.))", re.S)
_OPEN_VALUE = re.compile(r"\s*\[")
_VALUE_REST = re.compile(r"[^\\\]]*(?:\\.[^\\\]]*)*\]", re.S)  # unrolled: linear, no backtracking blow-up
_RAW_VALUE = re.compile(r"[^\\\]]*(?:\\.[^\\\]]*)*", re.S)
_TREE_START = re.compile(r"\(\s*;")
_TOKEN_NAMES = {"open": "'('", "close": "')'", "semi": "';'", "bracket": "'['", "end": "end of input"}


class _Source:
    """Text plus a line index, to turn offsets into (line, column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def error(self, offset: int, message: str) -> SgfError:
        return SgfError(message, *self.where(offset))

    def found(self, match: re.Match) -> str:
        kind = match.lastgroup
        if kind in _TOKEN_NAMES:
            return _TOKEN_NAMES[kind]
        return repr(match.group(kind)[:20])


@dataclass(eq=False)
class _Frame:
    opened_at: int
    parent: RawNode | None
    last: RawNode | None = None
    in_variations: bool = False


def parse_collection(text: str, repairs: Repairs | None = None) -> list[RawNode]:
    """Parse an SGF collection into the root ``RawNode`` of each game tree.

    Raises ``SgfError`` for: an empty collection, a missing ``;``, an unclosed ``[``, a
    property without a value, an identifier without a capital letter, a ``)`` or other
    text where a node's properties go, a node after a variation; and, unless
    ``repairs`` is given and not strict, for text outside the game trees, a file that
    ends inside a tree and an FF[3] identifier (see the module docstring)."""
    repairs = repairs or Repairs(strict=True)
    src = _Source(text)
    trees: list[RawNode] = []
    stack: list[_Frame] = []
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        kind = m.lastgroup
        at = m.start(kind)
        pos = m.end()
        if not stack:
            if kind == "end" and trees:
                return trees
            starts_tree = kind == "open" and _TREE_START.match(text, at) is not None
            if not starts_tree and not repairs.strict:
                skip_to = _skip_outside(src, at, trees, repairs)
                if skip_to != at:
                    pos = skip_to
                    continue
            if kind == "open":
                stack.append(_Frame(at, None))
            elif kind == "end":
                raise src.error(at, "empty collection: expected '(' to start a game tree")
            elif kind == "close":
                raise src.error(at, "unbalanced ')': no game tree is open here")
            else:
                raise src.error(at, f"expected '(' to start a game tree, found {src.found(m)} outside any tree")
            continue
        frame = stack[-1]
        if kind == "semi":
            if frame.in_variations:
                raise src.error(at, "expected '(' or ')' after a variation, found ';'")
            node, pos = _parse_node(src, at, pos, repairs)
            if frame.last is not None:
                frame.last.children.append(node)
            elif frame.parent is not None:
                frame.parent.children.append(node)
            else:
                trees.append(node)
            frame.last = node
        elif kind == "end" and trees and not repairs.strict:
            line, column = src.where(frame.opened_at)
            repairs.add("unclosed tree", f"the file ends inside the game tree opened at line {line}, "
                                         f"column {column}", "closed it", src.where(at))
            return trees
        elif frame.last is None:
            raise src.error(at, f"expected ';' to start a node, found {src.found(m)}")
        elif kind == "open":
            frame.in_variations = True
            stack.append(_Frame(at, frame.last))
        elif kind == "close":
            stack.pop()
        elif kind == "end":
            line, column = src.where(frame.opened_at)
            raise src.error(at, f"unexpected end of input: expected ')' to close the game tree "
                                f"opened at line {line}, column {column}")
        else:
            raise src.error(at, f"expected a property, ';', '(' or ')', found {src.found(m)}")


def _skip_outside(src: _Source, at: int, trees: list[RawNode], repairs: Repairs) -> int:
    """Skip text outside the game trees from ``at`` up to the next ``(;`` (or the end,
    once a tree was read) and report it; return where to go on (``at``: nothing to
    skip, the caller reports the strict error: no tree is left to find)."""
    nxt = _TREE_START.search(src.text, at)
    if nxt is None and not trees:
        return at
    end = nxt.start() if nxt is not None else len(src.text)
    words = " ".join(src.text[at:end].split())
    snippet = words if len(words) <= 40 else words[:37] + "..."
    where = "before the first game tree" if not trees else (
        "between game trees" if nxt is not None else "after the last game tree")
    repairs.add(f"outside {where}", f"text {where} ({snippet!r})", "skipped", src.where(at))
    return end


def _parse_node(src: _Source, at: int, pos: int, repairs: Repairs) -> tuple[RawNode, int]:
    """Read the properties after the ``;`` at ``at``; return the node and where it ends."""
    text = src.text
    props: dict[str, RawProperty] = {}
    while True:
        m = _TOKEN.match(text, pos)
        if m.lastgroup != "ident":
            return RawNode(props, src.where(at)), pos
        written = m.group("ident")
        ident_at = m.start("ident")
        ident = "".join(ch for ch in written if ch.isupper())
        if not ident:
            raise src.error(ident_at, f"property identifier {written!r} has no capital letter")
        if written != ident:
            repairs.add("FF[3] names", f"FF[3] property names such as {written!r}",
                        f"read by their capital letters ({written} as {ident})", src.where(ident_at))
        pos = m.end()
        values: list[str] = []
        value_where: list[tuple[int, int]] = []
        while (b := _OPEN_VALUE.match(text, pos)) is not None:
            open_at = b.end() - 1
            v = _VALUE_REST.match(text, b.end())
            if v is None:
                raise src.error(open_at, f"unclosed value of {written}: expected ']' to close this '['")
            values.append(text[b.end():v.end() - 1])
            value_where.append(src.where(open_at))
            pos = v.end()
        if not values:
            nxt = _TOKEN.match(text, pos)
            raise src.error(nxt.start(nxt.lastgroup),
                            f"expected '[' after property {written}, found {src.found(nxt)}")
        if ident in props:
            props[ident].values.extend(values)
            props[ident].value_where.extend(value_where)
            props[ident].repeats.append(src.where(ident_at))
        else:
            props[ident] = RawProperty(ident, values, src.where(ident_at), value_where)


def scan_first_node(text: str) -> dict[str, list[str]] | None:
    """The raw properties of the first node, read leniently (for sniffing ``CA``).

    Returns ``None`` where the text holds no ``(;``; never raises."""
    m = _TREE_START.search(text)
    if m is None:
        return None
    try:
        node, _ = _parse_node(_Source(text), m.end() - 1, m.end(), Repairs())
    except SgfError:
        return None
    return {k: p.values for k, p in node.properties.items()}


_TEXT_PIECES = re.compile(r"\\(\r\n|\r|\n)|\\(.)|(\r\n|\r|\n)|([\t\v\f])", re.S)


def unescape_text(raw: str, simple: bool = False) -> str:
    """Read a raw Text value (``simple=True``: SimpleText) per FF[4].

    ``\\`` + line break (a soft line break) is removed; ``\\`` + any other character
    gives that character; line breaks become ``\\n`` (a space in SimpleText); tabs and
    other whitespace but line breaks become a space."""

    def piece(m: re.Match) -> str:
        if m.group(1) is not None:
            return ""
        if m.group(2) is not None:
            return " " if m.group(2) in "\t\v\f" else m.group(2)
        if m.group(3) is not None:
            return " " if simple else "\n"
        return " "

    return _TEXT_PIECES.sub(piece, raw)


def escape_text(text: str) -> str:
    """Text -> raw value: ``\\`` and ``]`` escaped. ``:`` is left alone (safe outside
    compose values; ``split_compose`` splits at the first unescaped one)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def split_compose(raw: str) -> tuple[str, str] | None:
    """Split a raw compose value ``a:b`` at its first unescaped ``:``; ``None`` if none.

    Both halves stay raw (``\\:`` inside them is still escaped)."""
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            i += 2
            continue
        if ch == ":":
            return raw[:i], raw[i + 1:]
        i += 1
    return None


def is_raw_value(raw: str) -> bool:
    """True if ``raw`` can stand between ``[`` and ``]`` as it is (escapes balanced)."""
    return _RAW_VALUE.fullmatch(raw) is not None
