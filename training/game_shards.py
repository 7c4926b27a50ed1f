"""Game shards: the on-disk format of finished games for training.

A shard is a gzip-compressed JSON Lines file (``PREFIX-000123.jsonl.gz``); each line is
one ``GameSample`` as a JSON object with these keys:

| key          | type               | meaning                                                          |
|--------------|--------------------|------------------------------------------------------------------|
| ``v``        | int                | format version (``FORMAT_VERSION``)                               |
| ``size``     | int                | board size                                                        |
| ``komi``     | float              | komi given to white                                               |
| ``moves``    | list of str        | GTP vertices (``"D4"``, ``"pass"``), alternating, black first     |
| ``result``   | str                | ``B+3``, ``W+0.5``, ``0`` (jigo), ``B+R``, ``W+T``, ``B+F``        |
| ``winner``   | ``"B"``/``"W"``/null | null for jigo (and unknown)                                     |
| ``margin``   | float/null         | black minus white by area, komi included; null if not scored     |
| ``ownership``| list of int/null   | ``size*size`` values, row-major from the top left (row 0 = GTP row ``size``): +1 black's, -1 white's, 0 neutral, after dead stones are lifted; null if not scored |
| ``reason``   | str                | how it ended: ``score``, ``move_cap``, ``resign``, ``timeout``, ``forfeit`` |
| ``source``   | str                | where it came from (``engine``, ``sgf:path/name.sgf``, ``sgf:file.sgf#2`` for the 2nd game of a collection) |
| ``black``, ``white`` | str        | player names (``gnugo-7``, ``pachi-2000``, SGF ``PB``/``PW``)     |
| ``opening``  | int                | how many leading moves were randomised (not chosen by a player)  |
| ``seed``     | int/null           | the seed that made the game (opening and engine seeds), if any    |
| ``substitute_from`` | int/null        | moves played when a side resigned and a substitute engine played on for it (see ``training.gtp_game``); the moves after it are the substitute's |
| ``dead``     | list of str        | GTP vertices of the stones lifted as dead before counting         |
| ``ownership_source`` | str/null   | whose dead stones made ``ownership``: ``agreed`` (both engines), ``B-engine``/``W-engine`` (one engine's list), ``intersection`` (stones both called dead), ``none`` (no engine listed any), ``sgf-territory`` (the record's TB/TW marks), ``area`` (counted as it stands, every stone alive) |
| ``notes``    | list of str        | disagreements and problems met while refereeing                   |
| ``visits``   | list/null          | self-play only: per move, the search's root visits ``{vertex: count}`` (the policy target), or null for a move without one (a fast search); null for other games |
| ``root_values`` | list/null       | self-play only (since 2026-11-27): per move, the search's root value for the side to move, in [-1, 1], after that move's search (fast or full); null for other games and older self-play |

Every game starts on an empty board (no handicap or setup stones). Shards are written
whole to a temporary file in the same folder and renamed, so a reader never sees half
a shard and a crash leaves no broken one (only a ``.tmp`` file, ignored by readers).

Not checked on read beyond shape (sizes, lengths, value ranges): that the moves are
legal, or that the result matches the ownership (``replay`` checks legality).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gobuddy.go.coords import check_size, from_gtp
from gobuddy.go.position import Position

__all__ = ["FORMAT_VERSION", "GameSample", "ShardAppender", "count_games", "iter_samples", "next_shard_path",
           "ownership_grid", "read_shard", "replay", "shard_paths", "write_shard"]

FORMAT_VERSION = 1
_SHARD_RE = re.compile(r"^(?P<prefix>.+)-(?P<index>\d{6,})\.jsonl\.gz$")


@dataclass
class GameSample:
    """One finished game; see the module table for every field."""

    size: int
    komi: float
    moves: list[str]
    result: str
    winner: str | None
    margin: float | None = None
    ownership: list[int] | None = None
    reason: str = "score"
    source: str = "engine"
    black: str = ""
    white: str = ""
    opening: int = 0
    seed: int | None = None
    substitute_from: int | None = None
    dead: list[str] = field(default_factory=list)
    ownership_source: str | None = None
    notes: list[str] = field(default_factory=list)
    visits: list[dict[str, int] | None] | None = None
    root_values: list[float] | None = None

    def __post_init__(self) -> None:
        check_size(self.size)
        if self.winner not in (None, "B", "W"):
            raise ValueError(f"winner must be 'B', 'W' or None, got {self.winner!r}")
        n = self.size * self.size
        if self.ownership is not None:
            if len(self.ownership) != n:
                raise ValueError(f"ownership has {len(self.ownership)} points, expected {n}")
            if any(v not in (-1, 0, 1) for v in self.ownership):
                raise ValueError("ownership values must be -1, 0 or +1")
        for vertex in self.moves:
            from_gtp(vertex, self.size)  # raises CoordinateError naming a bad vertex
        if not 0 <= self.opening <= len(self.moves):
            raise ValueError(f"opening {self.opening} is not within the {len(self.moves)} moves")
        if self.substitute_from is not None and not 0 <= self.substitute_from <= len(self.moves):
            raise ValueError(f"substitute_from {self.substitute_from} is not within the {len(self.moves)} moves")
        if self.visits is not None and len(self.visits) != len(self.moves):
            raise ValueError(f"visits has {len(self.visits)} entries for {len(self.moves)} moves")
        if self.root_values is not None:
            if len(self.root_values) != len(self.moves):
                raise ValueError(f"root_values has {len(self.root_values)} entries for {len(self.moves)} moves")
            if any(not -1.0 <= v <= 1.0 for v in self.root_values):
                raise ValueError("root_values must be in [-1, 1]")

    def digest(self) -> bytes:
        """SHA-1 of the move sequence: a game's stable identity for seeded choices (its
        validation split, its surprise draws); the same moves give the same digest."""
        return hashlib.sha1(" ".join(self.moves).encode()).digest()

    def to_json(self) -> str:
        """One JSON line (no newline)."""
        return json.dumps({"v": FORMAT_VERSION, **asdict(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str | bytes) -> "GameSample":
        """Parse one line; raises ``ValueError`` for another format version or bad fields."""
        data = json.loads(line)
        version = data.pop("v", None)
        if version != FORMAT_VERSION:
            raise ValueError(f"game sample format {version!r}, expected {FORMAT_VERSION}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(f"bad game sample: {exc}") from None


def replay(sample: GameSample, superko: bool = True) -> Position:
    """The final position of ``sample``; raises ``IllegalMove`` on an illegal move."""
    pos = Position(sample.size, superko=superko)
    for vertex in sample.moves:
        pos.play(from_gtp(vertex, sample.size))
    return pos


def write_shard(path: str | Path, samples: Iterable[GameSample]) -> int:
    """Write ``samples`` to ``path`` atomically (temp file + rename); returns the count.

    Refuses to overwrite an existing shard (``FileExistsError``)."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"shard {path} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    count = 0
    try:
        with gzip.open(tmp, "wt", encoding="utf-8") as out:
            for sample in samples:
                out.write(sample.to_json() + "\n")
                count += 1
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return count


def read_shard(path: str | Path) -> list[GameSample]:
    """All games of one shard; ``ValueError`` names the file and line of a bad record."""
    samples = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    samples.append(GameSample.from_json(line))
                except ValueError as exc:
                    raise ValueError(f"{path}, line {number}: {exc}") from None
    return samples


def shard_paths(folder: str | Path, prefix: str | None = None) -> list[Path]:
    """The shards in ``folder`` (optionally only ``PREFIX-*``), in index order."""
    found = []
    for path in Path(folder).glob("*.jsonl.gz"):
        match = _SHARD_RE.match(path.name)
        if match and (prefix is None or match["prefix"] == prefix):
            found.append((match["prefix"], int(match["index"]), path))
    return [path for _, _, path in sorted(found)]


def next_shard_path(folder: str | Path, prefix: str) -> Path:
    """``folder/PREFIX-NNNNNN.jsonl.gz`` with the index after the highest present."""
    indices = [int(_SHARD_RE.match(p.name)["index"]) for p in shard_paths(folder, prefix)]
    return Path(folder) / f"{prefix}-{max(indices, default=-1) + 1:06d}.jsonl.gz"


@dataclass
class ShardAppender:
    """Games queued for ``folder``, written as the next ``PREFIX-NNNNNN.jsonl.gz`` shard
    every ``per_shard`` games and on ``flush``; ``written`` lists the shards made."""

    folder: Path
    prefix: str
    per_shard: int
    queued: list[GameSample] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)

    def add(self, sample: GameSample) -> None:
        self.queued.append(sample)
        if len(self.queued) >= self.per_shard:
            self.flush()

    def flush(self) -> None:
        if self.queued:
            self.written.append(next_shard_path(self.folder, self.prefix))
            write_shard(self.written[-1], self.queued)
            self.queued = []


def count_games(folder: str | Path, prefix: str | None = None) -> int:
    """How many games the shards in ``folder`` hold (reads them all)."""
    total = 0
    for path in shard_paths(folder, prefix):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            total += sum(1 for line in lines if line.strip())
    return total


def iter_samples(paths: str | Path | Iterable[str | Path]) -> Iterator[GameSample]:
    """Every game in a folder of shards (all prefixes) or in the given shard files."""
    if isinstance(paths, (str, Path)) and Path(paths).is_dir():
        paths = shard_paths(paths)
    elif isinstance(paths, (str, Path)):
        paths = [paths]
    for path in paths:
        yield from read_shard(path)


def ownership_grid(sample: GameSample) -> list[str]:
    """The ownership as ASCII rows (``X`` black, ``O`` white, ``.`` neutral), top first."""
    if sample.ownership is None:
        return []
    chars = {1: "X", -1: "O", 0: "."}
    n = sample.size
    return ["".join(chars[v] for v in sample.ownership[r * n:(r + 1) * n]) for r in range(n)]

