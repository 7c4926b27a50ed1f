"""Play a match between two GTP engines: ``python -m training.match``.

    python -m training.match --engine-a ours --engine-b gnugo:10 --games 20 --out runs/m1
    python -m training.match --engine-a pachi:1000 \\
        --engine-b "/usr/games/gnugo --mode gtp --level 10 --chinese-rules" --name-b gnugo-10

Engines are presets (``gnugo:L``, ``pachi:N``, ``ours[:ARGS]``, see
``training.engine_spec``) or raw command lines; strength (level, playouts, visits,
time) comes from each engine's own command line. A plays black in even-numbered games,
B in odd ones. Every game is refereed by ``training.gtp_game`` (our legality checks,
area scoring with the engines' dead stones, move cap, per-move timeout) and written to
the output folder as ``game-NNNN.sgf`` plus one line of ``games.jsonl``; after each game
``summary.json`` and ``summary.md`` are rewritten (wins, Wilson 95% interval, time per
move per engine, distinct games). Ctrl-C stops cleanly: finished games are kept, games
in play are dropped, engines are closed. Before the first game each engine is started
once and asked to set up a game (``boardsize``, ``clear_board``, ``komi``): an engine
that cannot (a missing program or model, a crash at start) stops the match with an
error naming it, and nothing is recorded. A missing engine is a broken harness, not a
lost game, so it is never scored as a forfeit; one that cannot start later in the match
stops it the same way (finished games are kept). Re-running into the same folder with
the same engines and opening setting plays only the games still missing (raise
``--games`` to extend a match).

Openings (``--opening N`` or ``LOW-HIGH``, default 2): engines that are deterministic
for a given position (ours at fixed visits, GNU Go) would replay the same two games
over and over. So before each pair of games (2k and 2k+1) a random opening is drawn:
a count from the range, then that many random legal moves off the first line that
capture nothing (``training.engine_games.random_opening``), seeded by ``--seed`` and
the pair. Both games of the pair start with it, colours swapped, so neither engine
gains from a lucky opening. Opening moves are played by neither engine: they are in
the SGF (and named in its game comment) and in the ``opening`` fields of
``games.jsonl`` and ``summary.json``, never in the time per move. ``--opening 0``
plays from the empty board. ``distinct_games`` in the summary counts the different
move sequences actually played.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import random
import re
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_sgf
from gobuddy.go.position import Position
from gobuddy.go.record import GameRecord
from gobuddy.go.sgf import dump_sgf
from training.engine_games import parse_opening, random_opening
from training.engine_spec import EngineSpec, Toolbox, parse_engine
from training.gtp_client import EngineFailure, GtpError
from training.gtp_game import GameResult, GameRules, play_game
from training.match_report import markdown, summarize

__all__ = ["MatchConfig", "MatchSetupError", "check_engines", "main", "move_sequence", "pair_opening",
           "parse_opening", "read_entries", "report", "run_match"]

DEFAULT_OPENING = (2, 2)
_SGF_MOVE = re.compile(r";\s*([BW])\[([a-z]{0,2})\]")


class MatchSetupError(RuntimeError):
    """An engine cannot start or set up a game, so the match cannot measure anything."""


@dataclass(frozen=True)
class MatchConfig:
    """Everything a match needs; built from the command line in ``main``."""

    engine_a: EngineSpec
    engine_b: EngineSpec
    out: Path
    games: int = 10
    rules: GameRules = GameRules()
    parallel: int = 1
    seed: int = 0
    engine_logs: bool = False
    progress: bool = True
    opening: tuple[int, int] = DEFAULT_OPENING  # random opening moves per pair: (low, high)

    def identity(self) -> dict[str, Any]:
        """What must match for a re-run to append to an existing match folder."""
        return {"engine_a": self.engine_a.name, "argv_a": list(self.engine_a.argv()),
                "engine_b": self.engine_b.name, "argv_b": list(self.engine_b.argv()),
                "size": self.rules.size, "komi": self.rules.komi, "superko": self.rules.superko,
                "opening": list(self.opening), "seed": self.seed}


def pair_opening(size: int, opening: tuple[int, int], seed: int, pair: int, superko: bool = True) -> list[str]:
    """The opening of games ``2 * pair`` and ``2 * pair + 1``: GTP moves alternating from
    black, a count drawn from ``opening``, random legal moves off the first line that
    capture nothing (drawn again until none does). The same for the same arguments."""
    low, high = opening
    if high == 0:
        return []
    rng = random.Random(f"match-opening/{seed}/{pair}")
    for _ in range(1000):
        moves = random_opening(size, rng.randint(low, high), rng, superko)
        board = Position(size, superko=superko)
        if not any(board.play(from_gtp(vertex, size)) for vertex in moves):
            return moves
    raise ValueError(f"no opening of {low}-{high} moves without a capture found on {size}x{size}")


def _sgf_text(game: GameResult, black: str, white: str, rules: GameRules) -> str:
    moves = [(BLACK if i % 2 == 0 else WHITE, from_gtp(v, rules.size)) for i, v in enumerate(game.moves)]
    record = GameRecord.from_moves(rules.size, rules.komi, moves, black=black, white=white,
                                   result=game.result, rules="chinese")
    notes = [f"ended by {game.reason}"] + game.notes
    if game.opening:
        notes.insert(0, f"moves 1-{game.opening} are a random opening played by neither engine: "
                        + " ".join(game.moves[:game.opening]))
    if game.dead:
        notes.append("dead: " + " ".join(game.dead))
    escaped = "\n".join(notes).replace("\\", "\\\\").replace("]", "\\]")
    record.info.extra["GC"] = [escaped]
    if game.ownership is not None and game.moves:
        # Territory marks (TB/TW) on the last node: the count, dead stones included.
        board = Position(rules.size)
        for vertex in game.moves:
            board.play(from_gtp(vertex, rules.size), check=False)
        last = record.main_line()[-1]
        for key, colour in (("TB", BLACK), ("TW", WHITE)):
            marks = [to_sgf(p, rules.size) for p, owner in enumerate(game.ownership)
                     if owner == colour and board.board[p] != colour]
            if marks:
                last.properties[key] = marks
    return dump_sgf(record)


def _opening(config: MatchConfig, index: int) -> list[str]:
    return pair_opening(config.rules.size, config.opening, config.seed, index // 2, config.rules.superko)


def check_engines(config: MatchConfig) -> None:
    """Start each engine once and set up an empty game on it; ``MatchSetupError`` naming
    the engine, what failed and the last line it wrote on stderr, when one cannot.
    Not checked: that the engine can play a move (a failure there is the engine's
    own, and loses its game)."""
    rules = config.rules
    for spec in (config.engine_a, config.engine_b):
        with tempfile.TemporaryDirectory(prefix="match-check-") as scratch:
            log = Path(scratch) / "stderr.log"
            failure: Exception | None = None
            client = None
            try:
                client = spec.start(seed=config.seed, stderr=log, timeout=rules.move_timeout)
                for command in (f"boardsize {rules.size}", "clear_board", f"komi {rules.komi:g}"):
                    client.command(command, timeout=rules.move_timeout)
            except (EngineFailure, GtpError) as exc:
                failure = exc
            finally:
                if client is not None:
                    client.close()  # before its stderr is read: all of it is written
            if failure is not None:
                said = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
                last = f"; its last words: {said[-1].strip()[:300]}" if said else ""
                raise MatchSetupError(f"engine {spec.name!r} cannot set up a {rules.size}x{rules.size} game "
                                      f"({' '.join(spec.argv())}): {failure}{last}") from failure


def _play_one(config: MatchConfig, index: int, stop: threading.Event) -> tuple[int, GameResult]:
    a_black = index % 2 == 0
    black, white = (config.engine_a, config.engine_b) if a_black else (config.engine_b, config.engine_a)
    logs = config.out / "logs" if config.engine_logs else None
    clients = []
    try:
        for colour, spec in (("black", black), ("white", white)):
            log = None if logs is None else logs / f"game-{index:04d}-{colour}-{spec.name}.log"
            try:
                clients.append(spec.start(seed=config.seed * 100_003 + index, stderr=log,
                                          timeout=config.rules.move_timeout))
            except EngineFailure as exc:  # the harness failed, not the engine's play: no result
                raise MatchSetupError(f"game {index}: {exc}") from exc
        return index, play_game(clients[0], clients[1], config.rules, opening=_opening(config, index), stop=stop)
    finally:
        for client in clients:
            client.close()


def _entry(config: MatchConfig, index: int, game: GameResult) -> dict[str, Any]:
    black, white = _names(config, index)
    winner = {"B": black, "W": white}.get(game.winner or "")
    return {"index": index, "black": black, "white": white, "winner": winner,
            "result": game.result, "reason": game.reason, "margin": game.margin,
            "moves": len(game.moves), "engine_scores": game.engine_scores, "dead": game.dead,
            "dead_source": game.dead_source, "notes": game.notes,
            "seconds": {black: game.move_seconds["B"], white: game.move_seconds["W"]},
            "opening": game.moves[:game.opening], "sgf": f"game-{index:04d}.sgf"}


def read_entries(folder: Path) -> list[dict[str, Any]]:
    """The per-game entries of ``folder/games.jsonl`` (none when it is missing)."""
    log = folder / "games.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []


def _load(config: MatchConfig) -> list[dict[str, Any]]:
    """Entries already in ``out`` (after checking it holds this same match)."""
    meta = config.out / "match.json"
    if meta.exists():
        found = json.loads(meta.read_text())
        if found != config.identity():
            raise SystemExit(f"{config.out} holds another match ({found}); use a new --out")
    return read_entries(config.out)


def move_sequence(sgf_text: str) -> tuple[tuple[str, str], ...]:
    """The moves of an SGF game as (colour, SGF point) pairs, in order."""
    return tuple(_SGF_MOVE.findall(sgf_text))


def _write_summary(config: MatchConfig, entries: list[dict[str, Any]],
                   sequences: dict[int, tuple[tuple[str, str], ...]]) -> dict[str, Any]:
    low, high = config.opening
    settings = {"games": config.games, "size": config.rules.size, "komi": config.rules.komi,
                "max_moves": config.rules.move_cap, "move_timeout_s": config.rules.move_timeout,
                "opening": str(low) if low == high else f"{low}-{high}",
                "argv_a": " ".join(config.engine_a.argv()), "argv_b": " ".join(config.engine_b.argv())}
    ordered = sorted(entries, key=lambda e: e["index"])
    summary = summarize(ordered, config.engine_a.name, config.engine_b.name, settings)
    pairs = sorted({e["index"] // 2 for e in ordered})
    summary["opening"] = {"moves": [low, high], "pairs": {str(k): _opening(config, 2 * k) for k in pairs}}
    summary["distinct_games"] = len({sequences[e["index"]] for e in ordered if e["index"] in sequences})
    (config.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (config.out / "summary.md").write_text(report(summary))
    return summary


def report(summary: dict[str, Any]) -> str:
    """``match_report.markdown`` plus the openings and distinct games of a match summary."""
    text = markdown(summary)
    opening = summary.get("opening")
    if opening is not None:
        low, high = opening["moves"]
        count = "no" if high == 0 else (str(low) if low == high else f"{low}-{high}")
        text += (f"\nOpenings: {count} random moves per pair of games (colours swapped), played by neither "
                 f"engine; {summary['distinct_games']} distinct games of {summary['games']}.\n")
    return text


def run_match(config: MatchConfig) -> dict[str, Any]:
    """Play the missing games of the match in ``config.out``; return the summary.

    Raises ``KeyboardInterrupt`` after a clean stop, and ``MatchSetupError`` when an
    engine cannot start (before the first game: nothing is written; later: finished
    games and the summary are on disk)."""
    if config.engine_a.name == config.engine_b.name:
        raise ValueError(f"both engines are named {config.engine_a.name!r}; give --name-a/--name-b")
    entries = _load(config)
    done = {e["index"] for e in entries}
    if any(i not in done for i in range(config.games)):
        check_engines(config)
    config.out.mkdir(parents=True, exist_ok=True)
    (config.out / "match.json").write_text(json.dumps(config.identity()) + "\n")
    sequences = {}
    for e in entries:
        sgf = config.out / e["sgf"]
        if sgf.exists():
            sequences[e["index"]] = move_sequence(sgf.read_text())
    todo = [i for i in range(config.games) if i not in done]
    stop = threading.Event()
    a, b = config.engine_a.name, config.engine_b.name
    bar = tqdm(total=config.games, initial=len(done & set(range(config.games))), unit="game",
               disable=not config.progress, desc=f"{a} vs {b}")

    def show() -> None:
        s = summarize(entries, a, b)
        bar.set_postfix_str(f"{a} {s['a_wins']}-{s['a_losses']} {b}"
                            + (f", {s['jigo']} jigo" if s["jigo"] else "")
                            + (f", {s['void']} void" if s["void"] else ""))

    show()
    pool = cf.ThreadPoolExecutor(max_workers=max(1, config.parallel))
    futures = [pool.submit(_play_one, config, i, stop) for i in todo]
    try:
        with open(config.out / "games.jsonl", "a") as log:
            for future in cf.as_completed(futures):
                index, game = future.result()
                if game.reason == "stopped":
                    continue
                sgf = _sgf_text(game, *_names(config, index), config.rules)
                (config.out / f"game-{index:04d}.sgf").write_text(sgf)
                sequences[index] = move_sequence(sgf)
                entry = _entry(config, index, game)
                log.write(json.dumps(entry) + "\n")
                log.flush()
                entries.append(entry)
                _write_summary(config, entries, sequences)
                bar.update(1)
                show()
    except (KeyboardInterrupt, MatchSetupError):
        stop.set()
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
        bar.close()
        _write_summary(config, entries, sequences)
        raise
    pool.shutdown(wait=True)
    bar.close()
    return _write_summary(config, entries, sequences)


def _names(config: MatchConfig, index: int) -> tuple[str, str]:
    a, b = config.engine_a.name, config.engine_b.name
    return (a, b) if index % 2 == 0 else (b, a)


def parse_args(argv: list[str] | None = None) -> MatchConfig:
    """The command line -> ``MatchConfig``."""
    p = argparse.ArgumentParser(prog="python -m training.match", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine-a", required=True, help="preset (gnugo:L, pachi:N, ours[:ARGS]) or command")
    p.add_argument("--engine-b", required=True, help="preset or command, as --engine-a")
    p.add_argument("--name-a", help="name of engine A in records and summary")
    p.add_argument("--name-b", help="name of engine B")
    p.add_argument("--out", required=True, type=Path, help="folder for SGFs, games.jsonl, summary")
    p.add_argument("--games", type=int, default=10, help="games in the match (default 10)")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.0)
    p.add_argument("--simple-ko", action="store_true", help="simple ko instead of positional superko")
    p.add_argument("--max-moves", type=int, help="score the game as it stands after this many moves "
                                                 "(default 3 x size^2)")
    p.add_argument("--move-timeout", type=float, default=60.0,
                   help="seconds an engine may take for one answer before it loses (default 60)")
    p.add_argument("--parallel", type=int, default=1, help="games played at once (default 1)")
    p.add_argument("--seed", type=int, default=0, help="base of the per-game seeds given to presets "
                                                       "and of the openings (default 0)")
    p.add_argument("--opening", default="2", help="random opening moves before each pair of games, N or "
                                                  "LOW-HIGH; 0 for none (default %(default)s)")
    p.add_argument("--engine-logs", action="store_true", help="keep each engine's stderr in OUT/logs/")
    p.add_argument("--pachi-dir", type=Path, default=Toolbox().pachi_dir)
    p.add_argument("--gnugo", default=Toolbox().gnugo, help="the GNU Go program (default %(default)s)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.games < 1 or args.parallel < 1:
        p.error("--games and --parallel must be at least 1")
    try:
        opening = parse_opening(args.opening)
    except ValueError as exc:
        p.error(str(exc))
    toolbox = Toolbox(gnugo=args.gnugo, pachi_dir=args.pachi_dir)
    try:
        a = parse_engine(args.engine_a, toolbox, name=args.name_a)
        b = parse_engine(args.engine_b, toolbox, name=args.name_b)
    except ValueError as exc:
        p.error(str(exc))
    if a.name == b.name and not (args.name_a or args.name_b):
        a = parse_engine(args.engine_a, toolbox, name=a.name + "-a")
        b = parse_engine(args.engine_b, toolbox, name=b.name + "-b")
    rules = GameRules(size=args.size, komi=args.komi, superko=not args.simple_ko,
                      max_moves=args.max_moves, move_timeout=args.move_timeout,
                      score_timeout=args.move_timeout)
    return MatchConfig(a, b, args.out, args.games, rules, args.parallel, args.seed,
                       args.engine_logs, not args.no_progress, opening)


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    try:
        summary = run_match(config)
    except KeyboardInterrupt:
        print(f"\nstopped; finished games kept in {config.out}", file=sys.stderr)
        return 130
    except MatchSetupError as exc:
        print(f"python -m training.match: error: {exc}", file=sys.stderr)
        return 2
    print(report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
