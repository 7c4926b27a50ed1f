"""The game record: a tree of nodes with moves and setup, plus the game's information.

The record is the truth; a ``Position`` is derived from it by replay (``position_at``).
Points are flat indices and colours ``BLACK``/``WHITE`` (see ``gobuddy.go.coords``);
pass is ``size * size``. This module is a data structure and a replay, no I/O: SGF
lives in ``gobuddy.go.sgf``.

What is NOT checked when building a record: legality of moves (a record may hold any
moves, as SGF files may), alternation of colours, and that setup leaves every chain a
liberty. ``position_at`` checks all of these while replaying and names the move.
Handicap stones are ordinary ``setup_black`` stones of the root; ``GameInfo.handicap``
only records the number (and makes white the first to play when it is 2 or more).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

from gobuddy.go.coords import BLACK, WHITE, check_size, color_to_str, to_gtp
from gobuddy.go.position import IllegalMove, Position

Move = tuple[int, int]  # (colour, flat point or pass)


class GameError(IllegalMove):
    """A game that cannot be played as recorded: ``move_number`` names the move (1-based,
    passes counted; 0 for the setup before move 1) and ``setup_index`` the setup stone at
    fault, when one is. The one error of ``gobuddy.go.game`` and of record replay."""

    def __init__(self, message: str, move_number: int, setup_index: int | None = None) -> None:
        super().__init__(message)
        self.move_number = move_number
        self.setup_index = setup_index


@dataclass
class LinearLine:
    """A line of the tree as one start position and the moves played from it, for the
    readers that keep a game so (the GTP engine, the dashboard's store).

    ``setup_black``/``setup_white``: the stones of the start; ``to_play``: the side to
    move there; ``moves``: the moves after it, in order; ``dropped``: how many moves
    of the line come before the start (not 0 only when setup follows a move);
    ``notes``: what was folded into the start, one line each, for warnings."""

    setup_black: list[int]
    setup_white: list[int]
    to_play: int
    moves: list[Move]
    dropped: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class GameInfo:
    """What is known about the game as a whole (the SGF root and game-info properties).

    ``result`` is the SGF RE text (``"B+3.5"``, ``"W+R"``, ``"0"``, ``"Void"``) or
    ``None`` when unknown. Text fields are single-line (SGF SimpleText). ``extra`` holds
    the root/game-info properties not interpreted here, as raw SGF values (escapes in
    place), in file order. Not checked: that names, dates or results are well formed."""

    size: int
    komi: float = 7.0
    rules: str = "chinese"
    handicap: int = 0
    black: str = ""
    white: str = ""
    black_rank: str = ""
    white_rank: str = ""
    result: str | None = None
    date: str = ""
    place: str = ""
    event: str = ""
    game_name: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)


@dataclass(eq=False)
class Node:
    """One node of the tree.

    ``move`` is ``(colour, point)`` or ``None``; ``setup_black``/``setup_white``/
    ``setup_empty`` are flat points set as stones or emptied before the move (SGF
    AB/AW/AE); ``to_play`` is the side to move set by SGF PL (``None`` if not given);
    ``comment`` the SGF C text (``None`` if absent); ``properties`` every other SGF
    property as raw values (escapes in place) in file order. ``children[0]`` continues
    the main line; ``parent`` is ``None`` at the root. Nodes compare by identity; use
    ``same_tree`` to compare contents."""

    move: Move | None = None
    setup_black: list[int] = field(default_factory=list)
    setup_white: list[int] = field(default_factory=list)
    setup_empty: list[int] = field(default_factory=list)
    to_play: int | None = None
    comment: str | None = None
    properties: dict[str, list[str]] = field(default_factory=dict)
    children: list["Node"] = field(default_factory=list, repr=False)
    parent: "Node | None" = field(default=None, repr=False)

    def add_child(self, child: "Node") -> "Node":
        """Append ``child`` (a detached node) as the last variation; return it."""
        if child.parent is not None:
            raise ValueError("the node already has a parent")
        child.parent = self
        self.children.append(child)
        return child

    def has_setup(self) -> bool:
        """True if the node sets stones or the side to move."""
        return bool(self.setup_black or self.setup_white or self.setup_empty) or self.to_play is not None

    def path(self) -> list["Node"]:
        """The nodes from the root down to this one, both included."""
        nodes = []
        node: Node | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def move_number(self) -> int:
        """How many moves (passes included) lie on the path from the root to here."""
        return sum(1 for n in self.path() if n.move is not None)

    def same_content(self, other: "Node") -> bool:
        """True if both nodes hold the same move, setup, PL, comment and properties
        (children and parents are not compared)."""
        return (self.move == other.move and self.setup_black == other.setup_black
                and self.setup_white == other.setup_white and self.setup_empty == other.setup_empty
                and self.to_play == other.to_play and self.comment == other.comment
                and list(self.properties.items()) == list(other.properties.items()))

    def same_tree(self, other: "Node") -> bool:
        """True if the subtrees under both nodes are equal node for node, in order
        (property order included). Iterative: deep trees are fine."""
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if not a.same_content(b) or len(a.children) != len(b.children):
                return False
            stack.extend(zip(a.children, b.children))
        return True

    def walk(self) -> Iterator["Node"]:
        """This node and all below it, depth first, main line before variations."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@dataclass(eq=False)
class GameRecord:
    """A game: its ``info`` and the tree of nodes under ``root``.

    Two records are equal when their info and trees are equal (``same_tree``)."""

    info: GameInfo
    root: Node = field(default_factory=Node)

    def __post_init__(self) -> None:
        check_size(self.info.size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        return self.info == other.info and self.root.same_tree(other.root)

    __hash__ = None  # mutable

    @classmethod
    def from_moves(cls, size: int, komi: float, moves: Iterable[Move],
                   setup_black: Iterable[int] = (), setup_white: Iterable[int] = (),
                   **info: object) -> "GameRecord":
        """A record with one line of ``moves`` after a root holding the setup stones
        (handicap stones go in ``setup_black``). ``info`` are further ``GameInfo``
        fields. Moves are not checked for legality (``position_at`` does that)."""
        record = cls(GameInfo(size=size, komi=float(komi), **info),  # type: ignore[arg-type]
                     Node(setup_black=list(setup_black), setup_white=list(setup_white)))
        record._check_points(record.root.setup_black + record.root.setup_white, allow_pass=False)
        node = record.root
        for color, point in moves:
            node = record.add_move(node, color, point)
        return record

    # ------------------------------------------------------------------ reading
    def main_line(self) -> list[Node]:
        """The root and the first child of each node after it."""
        nodes = [self.root]
        while nodes[-1].children:
            nodes.append(nodes[-1].children[0])
        return nodes

    def moves(self) -> list[Move]:
        """The (colour, point) moves of the main line, passes included."""
        return [n.move for n in self.main_line() if n.move is not None]

    def nodes(self) -> Iterator[Node]:
        """Every node of the tree, depth first, main line before variations."""
        return self.root.walk()

    # ------------------------------------------------------------------ writing
    def add_move(self, node: Node, color: int, point: int) -> Node:
        """The child of ``node`` playing ``(color, point)``: an existing child with that
        move and no setup is reused, else a new last variation is added.

        Checked: ``node`` belongs to this record, the colour, the point is on the board
        or pass. Not checked: legality (use ``position_at(node).illegal_reason``)."""
        if color not in (BLACK, WHITE):
            raise ValueError(f"{color!r} is not a colour (BLACK=1 or WHITE=-1)")
        self._check_points([point], allow_pass=True)
        self.path_to(node)
        for child in node.children:
            if child.move == (color, point) and not child.has_setup():
                return child
        return node.add_child(Node(move=(color, point)))

    def _check_points(self, points: Iterable[int], allow_pass: bool) -> None:
        n = self.info.size * self.info.size
        for p in points:
            if not isinstance(p, int) or not 0 <= p < n + allow_pass:
                raise ValueError(f"{p!r} is not a point of a {self.info.size}x{self.info.size} board")

    # ------------------------------------------------------------------ replay
    def position_at(self, node: Node | None = None, superko: bool = True) -> Position:
        """The position after ``node`` (default: the end of the main line), replayed
        from the root with full legality (positional superko unless ``superko=False``).

        Per node: AE points are emptied, AB/AW stones placed (replacing what was there),
        PL sets the side to move, then the move is played. Before any of that the side
        to move is black, or white when ``info.handicap >= 2``. Raises ``GameError``
        naming the move number and vertex for an illegal move, a point off the board, or
        setup that leaves a chain without liberties."""
        path = self.path_to(node)
        size = self.info.size
        pos = Position(size, superko=superko, to_play=WHITE if self.info.handicap >= 2 else BLACK)
        number = 0
        for n in path:
            if n.setup_black or n.setup_white or n.setup_empty:
                self._apply_setup(pos, n, number)
            if n.to_play is not None:
                if n.to_play not in (BLACK, WHITE):
                    raise GameError(f"PL before move {number + 1} is {n.to_play!r}, not a colour", number)
                pos.set_to_play(n.to_play)
            if n.move is not None:
                number += 1
                color, point = n.move
                if color not in (BLACK, WHITE) or not 0 <= point <= size * size:
                    raise GameError(f"move {number} ({n.move!r}) is not a colour and a point "
                                      f"of a {size}x{size} board", number)
                why = pos.illegal_reason(point, color)
                if why is not None:
                    raise GameError(f"move {number} ({color_to_str(color)} {to_gtp(point, size)}) "
                                      f"is illegal: {why}", number)
                pos.play(point, color, check=False)
        return pos

    def linear_line(self, node: Node | None = None) -> LinearLine:
        """The line from the root to ``node`` (default: the end of the main line) as a
        start position and moves (``LinearLine``).

        Setup (AB/AW/AE, or PL in a node without a move) before the first move is
        folded into the start (problem files put it after the root). Setup after a move
        makes the position there the start: the moves before it are dropped (counted in
        ``dropped``; prisoners and the ko history of those moves are lost). PL in a node
        with a move, after the first move, is ignored: the move names its colour.
        Moves are replayed with simple ko only (positional superko is the reader's
        rule); raises ``GameError`` as ``position_at`` for an illegal move or setup."""
        path = self.path_to(node)
        size = self.info.size
        pos = Position(size, superko=False, to_play=WHITE if self.info.handicap >= 2 else BLACK)
        moves: list[Move] = []
        line = LinearLine([], [], pos.to_play, moves)
        number = 0
        for k, n in enumerate(path):
            stones = bool(n.setup_black or n.setup_white or n.setup_empty)
            if stones or (n.to_play is not None and (n.move is None or not number)):
                if stones:
                    self._apply_setup(pos, n, number)
                if n.to_play is not None:
                    pos.set_to_play(n.to_play)
                if k and number > line.dropped:
                    line.notes.append(f"setup after move {number}: the position there is the start, "
                                      f"the {number - line.dropped} move(s) before it are not kept")
                elif k and stones and not number:
                    line.notes.append("setup after the root, before the first move: folded into the start")
                line.dropped = number
                moves.clear()
                line.setup_black = _stones(pos, BLACK, line.setup_black + n.setup_black)
                line.setup_white = _stones(pos, WHITE, line.setup_white + n.setup_white)
                line.to_play = pos.to_play
            if n.move is not None:
                number += 1
                color, point = n.move
                why = pos.illegal_reason(point, color) if 0 <= point <= size * size else "off the board"
                if why is not None:
                    raise GameError(f"move {number} ({color_to_str(color)} "
                                      f"{to_gtp(point, size) if why != 'off the board' else point}) "
                                      f"is illegal: {why}", number)
                pos.play(point, color, check=False)
                moves.append(n.move)
        return line

    def path_to(self, node: Node | None = None) -> list[Node]:
        """The nodes from the root to ``node`` (default: the end of the main line);
        ``ValueError`` if ``node`` is not in this record."""
        if node is None:
            return self.main_line()
        path = node.path()
        if path[0] is not self.root:
            raise ValueError("the node is not part of this record")
        return path

    @staticmethod
    def _apply_setup(pos: Position, node: Node, number: int) -> None:
        """Clear every point the node names, then place its stones; refuse a result in
        which a chain has no liberties (``Position.place`` would take such an opponent
        chain off the board, which SGF setup never does)."""
        size = pos.size
        where = f"setup after move {number}" if number else "setup before the first move"
        named = node.setup_empty + node.setup_black + node.setup_white
        if len(set(named)) != len(named):
            twice = next(p for p in named if named.count(p) > 1)
            raise GameError(f"{where}: point {twice!r} is named twice", number)
        expected = pos.board[:]
        for points, color in ((node.setup_empty, 0), (node.setup_black, BLACK), (node.setup_white, WHITE)):
            for p in points:
                if not isinstance(p, int) or not 0 <= p < size * size:
                    raise GameError(f"{where}: {p!r} is not a point of a {size}x{size} board", number)
                expected[p] = color
                pos.remove(p)
        for points, color in ((node.setup_black, BLACK), (node.setup_white, WHITE)):
            for p in points:
                pos.place(p, color)
        lost = [p for p in range(size * size) if pos.board[p] != expected[p]]
        if lost:
            raise GameError(f"{where}: the chain at {to_gtp(lost[0], size)} has no liberties", number)
        try:
            pos.check_no_dead_chains()
        except ValueError as exc:
            raise GameError(f"{where}: {exc}", number) from None


def _stones(pos: Position, color: int, first: list[int]) -> list[int]:
    """The points of ``color`` on the board: those of ``first`` in its order, then the rest."""
    seen = {p for p in first if pos.board[p] == color}
    ordered = list(dict.fromkeys(p for p in first if p in seen))
    return ordered + [p for p in range(pos.size * pos.size) if pos.board[p] == color and p not in seen]
