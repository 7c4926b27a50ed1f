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
move per engine). Ctrl-C stops cleanly: finished games are kept, games in play are
dropped, engines are closed. Re-running into the same folder with the same engines
plays only the games still missing (raise ``--games`` to extend a match).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_sgf
from gobuddy.go.position import Position
from gobuddy.go.record import GameRecord
from gobuddy.go.sgf import dump_sgf
from training.engine_spec import EngineSpec, Toolbox, parse_engine
from training.gtp_client import EngineFailure
from training.gtp_game import GameResult, GameRules, play_game
from training.match_report import markdown, summarize

__all__ = ["MatchConfig", "run_match", "main"]


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

    def identity(self) -> dict[str, Any]:
        """What must match for a re-run to append to an existing match folder."""
        return {"engine_a": self.engine_a.name, "argv_a": list(self.engine_a.argv()),
                "engine_b": self.engine_b.name, "argv_b": list(self.engine_b.argv()),
                "size": self.rules.size, "komi": self.rules.komi, "superko": self.rules.superko}


def _sgf_text(game: GameResult, black: str, white: str, rules: GameRules) -> str:
    moves = [(BLACK if i % 2 == 0 else WHITE, from_gtp(v, rules.size)) for i, v in enumerate(game.moves)]
    record = GameRecord.from_moves(rules.size, rules.komi, moves, black=black, white=white,
                                   result=game.result, rules="chinese")
    notes = [f"ended by {game.reason}"] + game.notes
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
            except EngineFailure as exc:  # an engine that cannot start forfeits
                side = "B" if colour == "black" else "W"
                winner = "W" if side == "B" else "B"
                return index, GameResult(moves=[], result=f"{winner}+F", reason="forfeit",
                                         winner=winner, notes=[str(exc)])
        return index, play_game(clients[0], clients[1], config.rules, stop=stop)
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
            "sgf": f"game-{index:04d}.sgf"}


def _load(config: MatchConfig) -> list[dict[str, Any]]:
    """Entries already in ``out`` (after checking it holds this same match)."""
    meta, log = config.out / "match.json", config.out / "games.jsonl"
    if meta.exists():
        found = json.loads(meta.read_text())
        if found != config.identity():
            raise SystemExit(f"{config.out} holds another match ({found}); use a new --out")
    entries = []
    if log.exists():
        for line in log.read_text().splitlines():
            if line.strip():
                entries.append(json.loads(line))
    return entries


def _write_summary(config: MatchConfig, entries: list[dict[str, Any]]) -> dict[str, Any]:
    settings = {"games": config.games, "size": config.rules.size, "komi": config.rules.komi,
                "max_moves": config.rules.move_cap, "move_timeout_s": config.rules.move_timeout,
                "argv_a": " ".join(config.engine_a.argv()), "argv_b": " ".join(config.engine_b.argv())}
    ordered = sorted(entries, key=lambda e: e["index"])
    summary = summarize(ordered, config.engine_a.name, config.engine_b.name, settings)
    (config.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (config.out / "summary.md").write_text(markdown(summary))
    return summary


def run_match(config: MatchConfig) -> dict[str, Any]:
    """Play the missing games of the match in ``config.out``; return the summary.

    Raises ``KeyboardInterrupt`` after a clean stop (finished games and the summary
    are on disk)."""
    if config.engine_a.name == config.engine_b.name:
        raise ValueError(f"both engines are named {config.engine_a.name!r}; give --name-a/--name-b")
    config.out.mkdir(parents=True, exist_ok=True)
    entries = _load(config)
    (config.out / "match.json").write_text(json.dumps(config.identity()) + "\n")
    done = {e["index"] for e in entries}
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
                (config.out / f"game-{index:04d}.sgf").write_text(
                    _sgf_text(game, *_names(config, index), config.rules))
                entry = _entry(config, index, game)
                log.write(json.dumps(entry) + "\n")
                log.flush()
                entries.append(entry)
                _write_summary(config, entries)
                bar.update(1)
                show()
    except KeyboardInterrupt:
        stop.set()
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
        bar.close()
        _write_summary(config, entries)
        raise
    pool.shutdown(wait=True)
    bar.close()
    return _write_summary(config, entries)


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
    p.add_argument("--seed", type=int, default=0, help="base of the per-game seeds given to presets")
    p.add_argument("--engine-logs", action="store_true", help="keep each engine's stderr in OUT/logs/")
    p.add_argument("--pachi-dir", type=Path, default=Toolbox().pachi_dir)
    p.add_argument("--gnugo", default=Toolbox().gnugo, help="the GNU Go program (default %(default)s)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.games < 1 or args.parallel < 1:
        p.error("--games and --parallel must be at least 1")
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
                       args.engine_logs, not args.no_progress)


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    try:
        summary = run_match(config)
    except KeyboardInterrupt:
        print(f"\nstopped; finished games kept in {config.out}", file=sys.stderr)
        return 130
    print(markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
