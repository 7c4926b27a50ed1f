"""Training games from real engines: ``python -m training.engine_games``.

    python -m training.engine_games --out data/games --games 20000 \\
        --mix gnugo:5-10*2,pachi:1000-3000 --workers 1

Each game draws two players from the ``--mix`` pool (independently, by weight; the
first drawn plays black) with a strength drawn uniformly from the player's range: GNU
Go levels, or Pachi playouts a move (rounded to 100). With the pool
``gnugo:5-10,pachi:1000-3000`` a quarter of the games are GNU Go against itself, a
quarter Pachi against itself, half the two against each other; ``*W`` weights a player.
The first ``--opening`` moves (a count drawn from the range) are random legal moves off
the first line, played for both sides, so that the games differ; the rest is the
engines' own play. When a side resigns, a ``--finisher`` engine (GNU Go level 10 by
default, never resigning, capturing dead stones before it passes) takes over that side
and plays on, so every game is counted out and has a final ownership (a Monte Carlo
engine forbidden to resign plays nonsense once it is lost). When the players pass
while the board is still unsettled (more than 4 neutral points, or their scores differ
from ours), the finisher plays both sides on until it passes twice
(``training.gtp_game.settle``). ``substitute_from`` in the shard marks where the
finisher took over. With ``--finisher none`` a resignation ends the game (kept without
margin and ownership) and unsettled ends stay as the players left them.

Games are refereed by ``training.gtp_game`` (our legality checks and area scoring, dead
stones from the engines' ``final_status_list dead``) and appended to ``OUT`` as
``PREFIX-NNNNNN.jsonl.gz`` shards of ``--per-shard`` games (``training.game_shards``),
each written atomically. Only counted games are kept: a game lost by time, forfeit or
void is reported on stderr and replaced. Ctrl-C or SIGTERM writes the finished games as
a last (smaller) shard; re-running counts the games on disk and plays the rest of
``--games``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import random
import re
import signal
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from tqdm import tqdm

from gobuddy.go.coords import from_flat, to_gtp
from gobuddy.go.position import Position
from training.engine_spec import EngineSpec, Toolbox, parse_engine
from training.game_shards import GameSample, ShardAppender, count_games
from training.gtp_client import EngineFailure, GtpClient
from training.gtp_game import GameRules, play_game, settle

__all__ = ["GamesConfig", "Player", "generate", "parse_mix", "parse_opening", "random_opening"]

MAX_DROPPED_IN_A_ROW = 10  # then something is broken (an engine that cannot start)
_MIX_RE = re.compile(r"^(gnugo|pachi):(\d+)(?:-(\d+))?(?:\*(\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class Player:
    """An entry of the mix: ``kind`` (``gnugo``/``pachi``), strengths ``low..high``
    (levels or playouts), and its ``weight`` in the draw."""

    kind: str
    low: int
    high: int
    weight: float = 1.0

    def draw(self, rng: random.Random) -> int:
        value = rng.randint(self.low, self.high)
        if self.kind == "pachi" and self.high - self.low >= 100:
            value = max(self.low, min(self.high, round(value, -2)))
        return value


def parse_mix(text: str) -> list[Player]:
    """``gnugo:5-10*2,pachi:1000-3000`` -> players; ``ValueError`` names a bad item."""
    players = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        match = _MIX_RE.match(item)
        if not match:
            raise ValueError(f"mix item {item!r} is not KIND:LOW[-HIGH][*WEIGHT] with KIND gnugo or pachi")
        kind, low, high, weight = match[1], int(match[2]), int(match[3] or match[2]), float(match[4] or 1)
        if high < low or weight <= 0:
            raise ValueError(f"mix item {item!r}: need LOW <= HIGH and a positive weight")
        for value in (low, high):
            parse_engine(f"{kind}:{value}")  # ValueError for a level or playouts out of range
        players.append(Player(kind, low, high, weight))
    if not players:
        raise ValueError("the mix is empty")
    return players


def random_opening(size: int, count: int, rng: random.Random, superko: bool = True) -> list[str]:
    """Up to ``count`` random legal moves off the first line (anywhere on boards too
    small to have an inside), alternating from black, never filling the mover's own
    eye-like point. Not avoided: self-atari and captures (rare in a few moves)."""
    pos = Position(size, superko=superko)
    moves = []
    inner = [p for p in range(size * size)
             if all(0 < v < size - 1 for v in from_flat(p, size))] or list(range(size * size))
    for _ in range(count):
        choices = [p for p in inner if pos.is_legal(p) and not pos.is_eye_like(p, pos.to_play)]
        if not choices:
            break
        point = rng.choice(choices)
        pos.play(point)
        moves.append(to_gtp(point, size))
    return moves


def parse_opening(text: str) -> tuple[int, int]:
    """``"2"`` -> ``(2, 2)``, ``"2-4"`` -> ``(2, 4)``; ``ValueError`` naming the text
    unless ``0 <= LOW <= HIGH``."""
    low, _, high = text.strip().partition("-")
    try:
        pair = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"opening {text!r} is not N or LOW-HIGH") from None
    if not 0 <= pair[0] <= pair[1]:
        raise ValueError(f"opening {text!r}: need 0 <= LOW <= HIGH")
    return pair


@dataclass(frozen=True)
class GamesConfig:
    """Everything ``generate`` needs; built from the command line in ``main``."""

    out: Path
    games: int
    mix: tuple[Player, ...]
    rules: GameRules = GameRules()
    opening: tuple[int, int] = (2, 6)
    workers: int = 1
    per_shard: int = 50
    prefix: str = "engine"
    seed: int = 0
    toolbox: Toolbox = Toolbox()
    finisher: EngineSpec | None = None
    progress: bool = True


def play_one(config: GamesConfig, seed: int, stop: threading.Event) -> GameSample | str:
    """Play the game ``seed`` describes: a ``GameSample``, or why none came (a string)."""
    rng = random.Random(seed)
    specs = [parse_engine(f"{player.kind}:{player.draw(rng)}", config.toolbox)
             for player in rng.choices(config.mix, [p.weight for p in config.mix], k=2)]
    opening = random_opening(config.rules.size, rng.randint(*config.opening), rng, config.rules.superko)
    finisher_seed = rng.getrandbits(31)
    clients: list[GtpClient] = []

    def finisher() -> GtpClient | None:
        if config.finisher is None:
            return None
        try:
            clients.append(config.finisher.start(seed=finisher_seed, timeout=config.rules.move_timeout))
        except EngineFailure:
            return None
        return clients[-1]

    try:
        for spec in specs:
            clients.append(spec.start(seed=rng.getrandbits(31), timeout=config.rules.move_timeout))
        game = play_game(clients[0], clients[1], config.rules, opening=opening, stop=stop,
                         takeover=lambda colour: finisher())
        if game.unsettled() and not stop.is_set() and (cleaner := finisher()) is not None:
            game = settle(game, cleaner, config.rules, stop)
    except EngineFailure as exc:
        return f"engine failed to start: {exc}"
    finally:
        for client in clients:
            client.close()
    names = f"{specs[0].name} (B) vs {specs[1].name} (W)"
    if game.reason == "stopped":
        return "stopped"
    if game.reason not in ("score", "move_cap", "resign"):
        return f"{names}: {game.result} by {game.reason}: {'; '.join(game.notes)}"
    return GameSample(size=config.rules.size, komi=config.rules.komi, moves=game.moves,
                      result=game.result, winner=game.winner, margin=game.margin,
                      ownership=game.ownership, reason=game.reason, source="engine",
                      black=specs[0].name, white=specs[1].name, opening=game.opening, seed=seed,
                      substitute_from=game.substitute_from, dead=game.dead,
                      ownership_source=game.dead_source, notes=game.notes)


def generate(config: GamesConfig) -> int:
    """Play until ``config.out`` holds ``config.games`` games; return how many this run
    added. ``KeyboardInterrupt`` stops cleanly (finished games are written first);
    ``RuntimeError`` after ``MAX_DROPPED_IN_A_ROW`` games in a row were dropped."""
    config.out.mkdir(parents=True, exist_ok=True)
    on_disk = count_games(config.out, config.prefix)
    wanted = max(0, config.games - on_disk)
    stop = threading.Event()
    shards = ShardAppender(config.out, config.prefix, config.per_shard)
    added = failed = in_a_row = 0
    seeds = random.Random(f"{config.seed}/{on_disk}")
    bar = tqdm(total=config.games, initial=min(on_disk, config.games), unit="game",
               disable=not config.progress, desc=f"{config.out}", smoothing=0.05)

    pool = cf.ThreadPoolExecutor(max_workers=config.workers)
    running: set[cf.Future] = set()
    try:
        while added < wanted:
            while len(running) < config.workers and added + len(running) < wanted:
                running.add(pool.submit(play_one, config, seeds.getrandbits(63), stop))
            finished, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                outcome = future.result()
                if isinstance(outcome, str):
                    failed += 1
                    in_a_row += 1
                    bar.write(f"game dropped: {outcome}", file=sys.stderr)
                    if in_a_row >= MAX_DROPPED_IN_A_ROW:
                        raise RuntimeError(f"{in_a_row} games in a row were dropped; the last: {outcome}")
                    continue
                in_a_row = 0
                if added >= wanted:
                    continue
                shards.add(outcome)
                added += 1
                bar.update(1)
                bar.set_postfix(dropped=failed, refresh=False)
    except BaseException:  # Ctrl-C, SIGTERM, or too many failures: keep what is done
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        shards.flush()
        bar.close()
    return added


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.engine_games", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("data/games"), help="shard folder (default data/games)")
    p.add_argument("--games", type=int, required=True, help="total games wanted in OUT (with PREFIX)")
    p.add_argument("--mix", default="gnugo:5-10,pachi:1000-5000",
                   help="player pool, KIND:LOW-HIGH[*WEIGHT],... (default %(default)s)")
    p.add_argument("--opening", default="2-6", help="random opening moves, N or LOW-HIGH (default 2-6)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="games at once (default: cores)")
    p.add_argument("--per-shard", type=int, default=50, help="games per shard (default 50)")
    p.add_argument("--prefix", default="engine", help="shard file prefix (default engine)")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.0)
    p.add_argument("--max-moves", type=int, help="score the game as it stands after this many moves")
    p.add_argument("--move-timeout", type=float, default=60.0)
    p.add_argument("--finisher", default="gnugo:10",
                   help="engine that plays on for a side that resigns, or 'none' (default %(default)s)")
    p.add_argument("--seed", type=int, help="seed of the run (default: random)")
    p.add_argument("--pachi-dir", type=Path, default=Toolbox().pachi_dir)
    p.add_argument("--gnugo", default=Toolbox().gnugo)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    toolbox = Toolbox(gnugo=args.gnugo, pachi_dir=args.pachi_dir)
    try:
        mix = tuple(parse_mix(args.mix))
        opening = parse_opening(args.opening)
        finisher = None if args.finisher == "none" else parse_engine(args.finisher, toolbox, resign=False)
        if finisher is not None and finisher.kind == "gnugo":  # remove dead stones before passing
            finisher = replace(finisher, extra=finisher.extra + ("--capture-all-dead",))
    except ValueError as exc:
        p.error(str(exc))
    if args.workers < 1 or args.per_shard < 1:
        p.error("--workers and --per-shard must be at least 1")
    if any(pl.kind == "pachi" for pl in mix) and not (args.pachi_dir / "pachi").exists():
        p.error(f"no Pachi at {args.pachi_dir / 'pachi'}: run training/build_pachi.sh first")
    config = GamesConfig(
        out=args.out, games=args.games, mix=mix,
        rules=GameRules(size=args.size, komi=args.komi, max_moves=args.max_moves,
                        move_timeout=args.move_timeout, score_timeout=args.move_timeout),
        opening=opening, workers=args.workers, per_shard=args.per_shard, prefix=args.prefix,
        seed=args.seed if args.seed is not None else random.SystemRandom().getrandbits(32),
        toolbox=toolbox, finisher=finisher, progress=not args.no_progress)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill PID stops as Ctrl-C does
    try:
        added = generate(config)
    except KeyboardInterrupt:
        print(f"\nstopped; {count_games(config.out, config.prefix)} games in {config.out}", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"giving up: {exc}", file=sys.stderr)
        return 1
    print(f"added {added} games; {count_games(config.out, config.prefix)} in {config.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
