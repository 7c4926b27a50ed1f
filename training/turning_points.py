"""Where a player's lost games turned: ``python -m training.turning_points``.

    python -m training.turning_points --games runs/strength/MATCH --player NAME
        [--model M] [--visits 400] [--below 0.25] [--all] [--out DIR]

A judge (``--model``, by default the shipped twin of the games' board size) searches
every position of a game where ``--player`` was to move (``--visits`` a position, no
early stop, no noise, seeded: the same figures every run) and gives the player's win
rate there. For each game the player lost (every game it played, with ``--all``):

- ``turn``: the first of its moves where its win rate was below ``--below``, or none;
- ``drop``: the largest fall of its win rate from one of its moves to its next, named
  by the move it played in between (the move that lost the most; the opponent's reply
  in between is counted with it);
- ``start``: its win rate at its first move (a game lost from an even start was lost in
  play; moves of a random opening are searched as any other).

The games are the SGF files of a folder (``training.match`` writes one a game;
``PB``/``PW`` name the players, ``RE`` the result: ``0`` is a jigo, ``Void`` counts for
nobody). It prints a table a game and a summary, and writes ``turning_points.json``
and ``turning_points.png`` (where the lost games turned, a histogram) to ``--out``
(default: the games' folder).

Not checked: that the judge is stronger than the player (a judge no stronger only
reports its own view), and that the files are one match's (each is read alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from gobuddy.go.coords import BLACK, WHITE, to_gtp

DEFAULT_VISITS = 400
DEFAULT_BELOW = 0.25


@dataclass(frozen=True)
class Rate:
    """The player's win rate before its move ``number`` (1-based, the game's count) and
    the move it then played (GTP vertex)."""

    number: int
    win_rate: float
    played: str


@dataclass(frozen=True)
class Turn:
    """Where one game turned (see the module docstring); ``None`` where there is none."""

    game: str
    colour: str  # "B" or "W": the player's
    result: str
    moves: int
    start: float | None
    turn: int | None
    drop: float | None
    drop_move: int | None
    drop_played: str | None


def turn_of(game: str, colour: str, result: str, moves: int, rates: Sequence[Rate], below: float) -> Turn:
    """The turning points of one game from its win rates, in move order."""
    turn = next((r.number for r in rates if r.win_rate < below), None)
    drops = [(a.win_rate - b.win_rate, a) for a, b in zip(rates, rates[1:])]
    size, at = max(drops, key=lambda d: d[0]) if drops else (None, None)
    return Turn(game, colour, result, moves, rates[0].win_rate if rates else None, turn, size,
                at.number if at else None, at.played if at else None)


def player_colour(black: str, white: str, player: str) -> str | None:
    """``"B"`` or ``"W"``: the colour ``player`` had in a game, or ``None`` if neither."""
    return "B" if black == player else "W" if white == player else None


def lost(result: str | None, colour: str) -> bool:
    """Whether an SGF ``RE`` says that ``colour`` lost (a jigo, a void or no result: no)."""
    text = (result or "").strip().upper()
    return text[:2] in ("B+", "W+") and text[0] != colour


def win_rates(record: Any, colour: str, judge: Any, visits: int) -> list[Rate]:
    """The player's win rate before each of its moves in ``record`` (``judge``: a search)."""
    from gobuddy.ai.player import game_position
    from gobuddy.go.game import Game

    moves = Game.from_record(record)[0].moves
    game, _ = Game.from_record(record, until=1)  # the setup, before move 1; replayed move by move
    me = BLACK if colour == "B" else WHITE
    rates = []
    for k, (mover, point) in enumerate(moves):
        if mover == me:
            pos, history = game_position(game)
            judge.set_position(pos, history)
            judge.run(visits=visits, early_stop=False)
            rates.append(Rate(k + 1, (judge.root.q + 1) / 2, to_gtp(point, game.size)))
        game.play(point, mover)
    return rates


def analyse(folder: Path, player: str, model: Path | None = None, visits: int = DEFAULT_VISITS,
            below: float = DEFAULT_BELOW, every: bool = False, progress: bool = True) -> list[Turn]:
    """The turning points of ``player``'s lost games (every game with ``every``) in the
    SGF files of ``folder``, in file order; ``ValueError`` when no file names the player
    or the model does not play the games' size."""
    from gobuddy.ai.mcts import SearchConfig
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator
    from gobuddy.ai.search_engines import make_search
    from gobuddy.go.sgf import read_sgf

    games = []
    for path in sorted(folder.glob("*.sgf")):
        record = read_sgf(path.read_text(encoding="utf-8")).records[0]
        colour = player_colour(record.info.black, record.info.white, player)
        if colour is not None:
            games.append((path.name, record, colour))
    if not games:
        raise ValueError(f"no game in {folder} names {player!r} as PB or PW")
    judges: dict[tuple[int, float], Any] = {}
    turns = []
    chosen = [(name, record, colour) for name, record, colour in games if every or lost(record.info.result, colour)]
    for i, (name, record, colour) in enumerate(chosen, start=1):
        size, komi = record.info.size, record.info.komi
        if (size, komi) not in judges:
            path = model or Path("models") / f"gobuddy-{size}x{size}.int8.onnx"
            evaluator = OnnxEvaluator(path, intra_threads=1)
            if size not in evaluator.board_sizes:
                raise ValueError(f"{path} plays {evaluator.board_sizes}, not the games' {size}x{size}")
            judges[(size, komi)] = make_search(evaluator, SearchConfig(komi=komi, seed=1))[0]
        rates = win_rates(record, colour, judges[(size, komi)], visits)
        moves = len(record.main_line()) - 1  # the root holds the setup, every other node a move
        turns.append(turn_of(name, colour, record.info.result or "", moves, rates, below))
        if progress:
            print(f"[turning_points] {i}/{len(chosen)} {name}", flush=True)
    return turns


def _cell(value: float | int | str | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def report(turns: Sequence[Turn], below: float) -> str:
    """A Markdown table a game, then the summary."""
    lines = ["| game | colour | result | moves | win rate at its first move | "
             f"first move below {below:.0%} | largest drop | at its move |",
             "|---|---|---|---|---|---|---|---|"]
    for t in turns:
        at = f"{t.drop_move} ({t.drop_played})" if t.drop_move is not None else "-"
        lines.append(f"| {t.game} | {t.colour} | {t.result} | {t.moves} | {_cell(t.start)} | {_cell(t.turn)} | "
                     f"{_cell(t.drop)} | {at} |")
    lines.append("")
    lines.append(summary(turns, below))
    return "\n".join(lines)


def summary(turns: Sequence[Turn], below: float) -> str:
    """One paragraph: how many games turned, where (median and range), and the drops."""
    if not turns:
        return "No games to analyse."
    turned = sorted(t.turn for t in turns if t.turn is not None)
    drops = [t.drop for t in turns if t.drop is not None]
    text = f"{len(turns)} games; {len(turned)} fell below {below:.0%}"
    if turned:
        text += f", at a median of move {statistics.median(turned):g} (moves {turned[0]}-{turned[-1]})"
    if drops:
        text += f"; largest drop a game {statistics.mean(drops):.2f} on average ({min(drops):.2f}-{max(drops):.2f})"
    return text + "."


def plot(turns: Sequence[Turn], below: float, path: Path) -> None:
    """A histogram of the turning moves beside the games' lengths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    turned = [t.turn for t in turns if t.turn is not None]
    longest = max([t.moves for t in turns] + [1])
    bins = range(0, longest + 6, 5)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.hist([t.moves for t in turns], bins=bins, color="#cccccc", label="game length")
    ax.hist(turned, bins=bins, color="#c0392b", alpha=0.85, label=f"first move below {below:.0%}")
    ax.set_xlabel("move number")
    ax.set_ylabel("games")
    ax.set_title(f"Where {len(turns)} games turned")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.turning_points", description=__doc__.split("\n")[0])
    p.add_argument("--games", type=Path, required=True, help="a folder of SGF files (a training.match folder)")
    p.add_argument("--player", required=True, help="the player's name, as PB or PW give it")
    p.add_argument("--model", type=Path, default=None,
                   help="the judge's ONNX model (default: the shipped twin of the games' size)")
    p.add_argument("--visits", type=int, default=DEFAULT_VISITS, help=f"visits a position (default {DEFAULT_VISITS})")
    p.add_argument("--below", type=float, default=DEFAULT_BELOW,
                   help=f"the win rate a game has turned at (default {DEFAULT_BELOW})")
    p.add_argument("--all", action="store_true", dest="every", help="every game the player played, not only its losses")
    p.add_argument("--out", type=Path, default=None, help="where the JSON and the plot go (default: --games)")
    p.add_argument("--no-progress", action="store_true", help="no line a game while it works")
    args = p.parse_args(argv)
    if not args.games.is_dir():
        p.error(f"--games {args.games}: not a folder")
    if args.visits < 1:
        p.error(f"--visits must be at least 1, got {args.visits}")
    if not 0 < args.below < 1:
        p.error(f"--below must be between 0 and 1, got {args.below}")
    if args.model is not None and not args.model.is_file():
        p.error(f"--model {args.model}: no such file")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        turns = analyse(args.games, args.player, args.model, args.visits, args.below, args.every,
                        progress=not args.no_progress)
    except ValueError as exc:
        print(f"python -m training.turning_points: error: {exc}")
        return 2
    out = args.out or args.games
    out.mkdir(parents=True, exist_ok=True)
    (out / "turning_points.json").write_text(json.dumps(
        {"player": args.player, "visits": args.visits, "below": args.below, "all": args.every,
         "model": str(args.model) if args.model else "shipped", "games": [asdict(t) for t in turns]}, indent=1))
    plot(turns, args.below, out / "turning_points.png")
    print(report(turns, args.below))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
