"""Turn a folder of SGF files into game shards: ``python -m training.sgf_import FOLDER``.

    python -m training.sgf_import ~/sgf/9x9 --out data/games --prefix sgf --size 9

Every ``*.sgf`` under FOLDER (recursively, in name order) is read with
``gobuddy.go.sgf.read_sgf``, which repairs what real-world files get wrong (text
around the game, repeated properties, odd values): each repair is printed with its
file, line and column, as ``repaired FILE: ...``; every game of a collection becomes one ``GameSample``
(``training.game_shards``) from its main line, replayed with our rules (positional
superko). The result comes from ``RE``: ``B+3.5`` gives the winner and the margin
(the record's own count, whatever its rules), ``W+R``/``B+T``/``W+F`` the winner only,
``0``/``Draw``/``Jigo`` a jigo.

Ownership: when the last node marks territory (``TB``/``TW``), stones standing in the
other side's territory are taken as dead and the final position is counted by area
(``ownership_source`` ``sgf-territory``); otherwise a game decided by counting is
counted as it stands, every stone alive (Tromp-Taylor, ``area``). When that count
gives the game to the other side (dead stones left on the board that nothing marks),
the ownership is dropped, with a note. Games that ended by resignation, time or
forfeit get no ownership (their final position is unfinished).

Skipped, each with its file and reason printed (never silently): files that do not
parse, games that do not replay (illegal moves), games with setup or handicap stones,
moves that do not alternate from black, games with no result or a void one, and other
board sizes when ``--size`` is given. The exit status is 1 when nothing was imported.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gobuddy.go.coords import BLACK, WHITE, CoordinateError, from_sgf, to_gtp
from gobuddy.go.position import IllegalMove, Position
from gobuddy.go.record import GameRecord
from gobuddy.go.scoring import area_score, ownership
from gobuddy.go.sgf import read_sgf
from training.game_shards import GameSample, ShardAppender, shard_paths

__all__ = ["ImportReport", "import_folder", "sample_from_record"]


class Skip(ValueError):
    """A game (or file) that cannot become a sample; the message says why."""


@dataclass
class ImportReport:
    """``imported`` games, ``skipped`` (where, why) pairs, ``repaired`` (file, what was
    repaired to read it) pairs, ``shards`` written."""

    imported: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    repaired: list[tuple[str, str]] = field(default_factory=list)
    shards: list[Path] = field(default_factory=list)


def _result(text: str | None) -> tuple[str | None, float | None, str]:
    """RE text -> (winner, black's margin or None, reason); ``Skip`` if unusable."""
    if text is None or not text.strip():
        raise Skip("no result (RE)")
    value = text.strip()
    upper = value.upper()
    if upper in ("0", "DRAW", "JIGO", "B+0", "W+0"):
        return None, 0.0, "score"
    if len(upper) >= 2 and upper[0] in "BW" and upper[1] == "+":
        winner, rest = upper[0], upper[2:]
        sign = 1 if winner == "B" else -1
        words = {"R": "resign", "RESIGN": "resign", "T": "timeout", "TIME": "timeout",
                 "F": "forfeit", "FORFEIT": "forfeit"}
        if rest in words:
            return winner, None, words[rest]
        if rest == "":
            return winner, None, "score"
        try:
            return winner, sign * float(rest), "score"
        except ValueError:
            pass
    raise Skip(f"result {value!r} names no winner (void or unknown)")


def _points(values: list[str], size: int) -> set[int]:
    """Raw SGF point-list values (``aa``, ``aa:cc`` rectangles) -> flat points."""
    points: set[int] = set()
    for raw in values:
        corners = raw.split(":") if ":" in raw else [raw, raw]
        try:
            (r1, c1), (r2, c2) = (divmod(from_sgf(c.strip(), size), size) for c in corners)
        except (CoordinateError, ValueError):
            raise Skip(f"bad territory point {raw!r}") from None
        for r in range(min(r1, r2), max(r1, r2) + 1):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                points.add(r * size + c)
    return points


def sample_from_record(record: GameRecord, source: str) -> GameSample:
    """One record's main line -> ``GameSample``; raises ``Skip`` naming the problem."""
    info = record.info
    size = info.size
    if info.handicap or any(node.has_setup() for node in record.main_line()):
        raise Skip("setup or handicap stones (shards hold games from the empty board)")
    moves = record.moves()
    for i, (colour, _) in enumerate(moves):
        if colour != (BLACK if i % 2 == 0 else WHITE):
            raise Skip(f"move {i + 1} is not {'black' if i % 2 == 0 else 'white'}'s (moves must alternate)")
    winner, margin, reason = _result(info.result)
    try:
        pos: Position = record.position_at(superko=True)
    except IllegalMove as exc:
        raise Skip(f"does not replay: {exc}") from None
    notes: list[str] = []
    owner = None
    source_of_owner = None
    dead: set[int] = set()
    if reason == "score":
        last = record.main_line()[-1]
        marks = {key: _points(last.properties.get(key, []), size) for key in ("TB", "TW")}
        if marks["TB"] or marks["TW"]:
            dead = {p for p in marks["TB"] if pos.board[p] == WHITE} | {p for p in marks["TW"] if pos.board[p] == BLACK}
            source_of_owner = "sgf-territory"
        else:
            source_of_owner = "area"
        owner = [int(v) for v in ownership(pos, dead)]
        ours = area_score(pos, info.komi, dead).margin
        if margin is not None and ours != margin:
            notes.append(f"our area count of the final position is {ours:+g} for black, the record says "
                         f"{info.result}")
        if (ours > 0) != (winner == "B") or (ours < 0) != (winner == "W"):
            owner, source_of_owner = None, None  # dead stones we cannot see: the count is wrong
            notes.append("ownership dropped: counted as it stands, the other side (or nobody) wins")
    return GameSample(size=size, komi=info.komi, moves=[to_gtp(p, size) for _, p in moves],
                      result=info.result.strip() if info.result else "", winner=winner, margin=margin,
                      ownership=owner, reason=reason, source=source, black=info.black,
                      white=info.white, opening=0, dead=sorted(to_gtp(p, size) for p in dead),
                      ownership_source=source_of_owner, notes=notes)


def import_folder(folder: str | Path, out: str | Path, prefix: str = "sgf", per_shard: int = 1000,
                  size: int | None = None, append: bool = False) -> ImportReport:
    """Import every SGF under ``folder`` into shards ``out/PREFIX-NNNNNN.jsonl.gz``.

    Refuses (``FileExistsError``) when ``PREFIX`` shards exist in ``out`` unless
    ``append`` (importing a folder twice would duplicate its games)."""
    folder, out = Path(folder), Path(out)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder")
    if shard_paths(out, prefix) and not append:
        raise FileExistsError(f"{out} already holds {prefix}-* shards; pass append to add more")
    report = ImportReport()
    shards = ShardAppender(out, prefix, per_shard)
    for path in sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".sgf" and p.is_file()):
        name = path.relative_to(folder).as_posix()
        try:
            read = read_sgf(path.read_bytes())
        except (ValueError, OSError) as exc:
            report.skipped.append((name, f"does not parse: {exc}"))
            continue
        records = read.records
        report.repaired += [(name, str(w)) for w in read.warnings]
        if not records:
            report.skipped.append((name, "holds no game"))
        for k, record in enumerate(records):
            where = name if len(records) == 1 else f"{name}#{k + 1}"
            if size is not None and record.info.size != size:
                report.skipped.append((where, f"board size {record.info.size}, not {size}"))
                continue
            try:
                shards.add(sample_from_record(record, f"sgf:{where}"))
            except Skip as exc:
                report.skipped.append((where, str(exc)))
                continue
            report.imported += 1
    shards.flush()
    report.shards = shards.written
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.sgf_import", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", type=Path, help="folder searched recursively for *.sgf")
    p.add_argument("--out", type=Path, default=Path("data/games"), help="shard folder (default data/games)")
    p.add_argument("--prefix", default="sgf", help="shard file prefix (default sgf)")
    p.add_argument("--per-shard", type=int, default=1000, help="games per shard (default 1000)")
    p.add_argument("--size", type=int, help="import only this board size (default: every size)")
    p.add_argument("--append", action="store_true", help="add shards when PREFIX shards exist already")
    args = p.parse_args(argv)
    try:
        report = import_folder(args.folder, args.out, args.prefix, args.per_shard, args.size, args.append)
    except (FileExistsError, NotADirectoryError) as exc:
        p.error(str(exc))
    for where, what in report.repaired:
        print(f"repaired {where}: {what}", file=sys.stderr)
    for where, why in report.skipped:
        print(f"skipped {where}: {why}", file=sys.stderr)
    print(f"imported {report.imported} games into {len(report.shards)} shard(s) in {args.out}; "
          f"skipped {len(report.skipped)}")
    return 0 if report.imported else 1


if __name__ == "__main__":
    sys.exit(main())
