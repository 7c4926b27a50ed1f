"""Gating: a candidate model replaces the current one only after winning a match.

    python -m training.gating --candidate runs/r1/model.onnx --current models/gobuddy-9x9.onnx \\
        --games 40 --visits 200 --out runs/gating/r1 [--promote models/gobuddy-9x9.onnx]

Both models play through the real GTP front end (``python -m engine_worker.gtp
--model M --visits V``, started by ``training.match``) at the same visits, colours
alternating. The candidate passes with a win rate of at least ``--threshold`` (55%
by default; a jigo is half a win, void games are left out) over ``--games`` games.
The match is played in chunks of ``--step`` games and stops as soon as the verdict
cannot change (all remaining games lost still pass, or all won still fail), so a
clear result costs fewer games. ``OUT/gating.json`` holds the verdict; a re-run with
it present only reads it. The exit status is 0 when the candidate passes, 1 when
it fails, 2 when the match cannot be played (a missing model, bad counts) or an
accepted candidate cannot be shipped. ``--promote`` ships it as ``training.shipping``
does: the ONNX file, its torch weights (``.pt`` beside the candidate, required) and its
int8 twin, or nothing when no twin agrees with it.

The match folder is tied to the two model files by their SHA-256: a re-run with
different files under the same names is refused instead of mixing their games.

Our search is deterministic at fixed visits, so each pair of games starts from a random
opening of ``--opening`` moves (default 2), colours swapped (``training.match``);
``distinct_games`` in the verdict counts the different move sequences played.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from training.engine_spec import Toolbox, parse_engine
from training.gtp_game import GameRules
from training.levels_fit import elo_difference
from training.make_model import file_digest
from training.match import (DEFAULT_OPENING, MatchConfig, MatchSetupError, move_sequence, parse_opening,
                            run_match)
from training.quantize import QuantizeError
from training.shipping import ship

__all__ = ["GateConfig", "GateResult", "decide", "gate", "main"]

@dataclass(frozen=True)
class GateConfig:
    """A gating match; built from the command line in ``main``. ``engine_args`` are
    extra ``engine_worker.gtp`` arguments given to both engines."""

    candidate: Path
    current: Path
    out: Path
    games: int = 40
    visits: int = 200
    threshold: float = 0.55
    step: int = 4
    rules: GameRules = GameRules()
    parallel: int = 1
    seed: int = 0
    engine_args: str = ""
    toolbox: Toolbox = Toolbox()
    progress: bool = True
    opening: tuple[int, int] = DEFAULT_OPENING  # random opening moves per pair of games


@dataclass(frozen=True)
class GateResult:
    """The verdict. ``win_rate`` counts a jigo as half a win; ``wilson95`` is its
    interval; ``games`` were played of the ``planned``."""

    accepted: bool
    wins: int
    losses: int
    jigo: int
    void: int
    games: int
    planned: int
    win_rate: float | None
    wilson95: tuple[float, float]
    threshold: float
    distinct_games: int
    candidate: str
    current: str

    def line(self) -> str:
        rate = "-" if self.win_rate is None else f"{self.win_rate:.1%}"
        verdict = "ACCEPTED" if self.accepted else "rejected"
        return (f"candidate {verdict}: {self.wins}-{self.losses}" + (f"-{self.jigo}" if self.jigo else "")
                + f" ({rate}, Wilson 95% {self.wilson95[0]:.1%}-{self.wilson95[1]:.1%}, need {self.threshold:.0%};"
                + f" {self.elo()}) after {self.games}/{self.planned} games, {self.distinct_games} distinct")

    def elo(self) -> str:
        """The result as the candidate's Elo difference, with the Wilson bounds read the
        same way; an end of the interval at 0% or 100% reads as -inf or +inf."""
        def read(score: float | None) -> str:
            if score is None:
                return "-"
            return f"{elo_difference(score):+.0f}" if 0.0 < score < 1.0 else ("+inf" if score >= 1.0 else "-inf")

        return f"Elo {read(self.win_rate)} ({read(self.wilson95[0])} to {read(self.wilson95[1])})"


def decide(score: float, decided: int, remaining: int, threshold: float) -> bool | None:
    """True/False once the verdict is settled whatever the ``remaining`` games bring,
    else ``None``. ``score`` = wins + jigo / 2 over ``decided`` (non-void) games; a
    remaining game that turns out void only moves the rate away from the bound."""
    total = decided + remaining
    need = threshold * total - 1e-9  # 22 of 40 is 55%, whatever 0.55 * 40 rounds to
    if total == 0:
        return False
    if score >= need:
        return True
    if score + remaining < need:
        return False
    return None


def distinct_games(out: Path) -> int:
    """How many different move sequences the SGF files of a match folder hold."""
    return len({move_sequence(path.read_text()) for path in out.glob("game-*.sgf")})


def _check_models(config: GateConfig) -> None:
    hashes = {"candidate": file_digest(config.candidate), "current": file_digest(config.current)}
    path = config.out / "models.json"
    if path.exists():
        found = json.loads(path.read_text())
        if found != hashes:
            raise SystemExit(f"{config.out} holds a gating match of other model files ({found}); use a new --out")
    config.out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(hashes, indent=1) + "\n")


def gate(config: GateConfig) -> GateResult:
    """Play (or finish) the gating match in ``config.out`` and return the verdict.

    Raises ``FileNotFoundError`` for a missing model, ``ValueError`` for bad counts."""
    for path in (config.candidate, config.current):
        if not Path(path).is_file():
            raise FileNotFoundError(f"model {path} does not exist")
    if config.games < 1 or config.step < 1 or not 0 < config.threshold <= 1:
        raise ValueError("games and step must be at least 1, threshold in (0, 1]")
    _check_models(config)
    verdict_path = config.out / "gating.json"
    if verdict_path.exists():
        data = json.loads(verdict_path.read_text())
        data["wilson95"] = tuple(data["wilson95"])
        return GateResult(**data)

    def spec(path: Path, name: str) -> Any:
        args = f"--model {shlex.quote(str(Path(path).resolve()))} --visits {config.visits} {config.engine_args}"
        return parse_engine(f"ours:{args}", config.toolbox, name=name)

    candidate, current = spec(config.candidate, "candidate"), spec(config.current, "current")
    target = 0
    while True:
        target = min(config.games, target + max(config.step, config.parallel))
        summary = run_match(MatchConfig(candidate, current, config.out, target, config.rules, config.parallel,
                                        config.seed, progress=config.progress, opening=config.opening))
        score = summary["a_wins"] + 0.5 * summary["jigo"]
        decided = summary["a_wins"] + summary["a_losses"] + summary["jigo"]
        verdict = decide(score, decided, config.games - summary["games"], config.threshold)
        if verdict is not None:
            break
    result = GateResult(
        accepted=verdict, wins=summary["a_wins"], losses=summary["a_losses"], jigo=summary["jigo"],
        void=summary["void"], games=summary["games"], planned=config.games, win_rate=summary["a_win_rate"],
        wilson95=tuple(summary["a_win_rate_wilson95"]), threshold=config.threshold,
        distinct_games=distinct_games(config.out), candidate=str(config.candidate), current=str(config.current))
    verdict_path.write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result


def parse_args(argv: list[str] | None = None) -> tuple[GateConfig, Path | None]:
    """The command line -> ``GateConfig`` and the ``--promote`` destination."""
    p = argparse.ArgumentParser(prog="python -m training.gating", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--candidate", type=Path, required=True, help="the new model (ONNX)")
    p.add_argument("--current", type=Path, required=True, help="the model it must beat (ONNX)")
    p.add_argument("--out", type=Path, help="match folder (default runs/gating/CANDIDATE-vs-CURRENT)")
    p.add_argument("--games", type=int, default=40, help="games in the match (default 40)")
    p.add_argument("--visits", type=int, default=200, help="search visits per move, both engines (default 200)")
    p.add_argument("--threshold", type=float, default=0.55, help="win rate needed (default 0.55)")
    p.add_argument("--step", type=int, default=4, help="games between early-stop checks (default 4)")
    p.add_argument("--parallel", type=int, default=1, help="games played at once (default 1)")
    p.add_argument("--max-moves", type=int, help="move cap (default 3 x size^2)")
    p.add_argument("--move-timeout", type=float, default=60.0)
    p.add_argument("--komi", type=float, default=7.0)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opening", default="2", help="random opening moves before each pair of games, N or "
                                                  "LOW-HIGH; 0 for none (default %(default)s)")
    p.add_argument("--engine-args", default="", help="extra engine_worker.gtp arguments for both engines")
    p.add_argument("--promote", type=Path, help="ship the candidate here when it passes (with its .pt and "
                                                "its int8 twin)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    out = args.out or Path("runs/gating") / f"{args.candidate.stem}-vs-{args.current.stem}"
    try:
        opening = parse_opening(args.opening)
    except ValueError as exc:
        p.error(str(exc))
    rules = GameRules(size=args.size, komi=args.komi, max_moves=args.max_moves, move_timeout=args.move_timeout,
                      score_timeout=args.move_timeout)
    config = GateConfig(args.candidate, args.current, out, args.games, args.visits, args.threshold, args.step,
                        rules, args.parallel, args.seed, args.engine_args, progress=not args.no_progress,
                        opening=opening)
    if args.promote is not None and not args.candidate.with_suffix(".pt").is_file():
        p.error(f"--promote: no torch weights {args.candidate.with_suffix('.pt')} beside the candidate")
    return config, args.promote


def main(argv: list[str] | None = None) -> int:
    config, promote = parse_args(argv)
    try:
        result = gate(config)
    except (FileNotFoundError, ValueError, MatchSetupError) as exc:
        print(f"gating: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nstopped; games so far kept in {config.out}", file=sys.stderr)
        return 130
    print(result.line())
    if result.accepted and promote is not None:
        promote.parent.mkdir(parents=True, exist_ok=True)
        try:
            ship(config.candidate, promote)
        except QuantizeError as exc:
            print(f"gating: accepted but not shipped, {promote} is unchanged: {exc}", file=sys.stderr)
            return 2
        print(f"promoted {config.candidate} -> {promote} (with its weights and int8 twin)")
    return 0 if result.accepted else 1


if __name__ == "__main__":
    sys.exit(main())
