"""Calibrate the opponent levels: ``python -m training.levels``.

    nice python -m training.levels                  # play what is missing, write models/LEVELS.md
    python -m training.levels --report-only         # refit and rewrite from the games on disk
    nice python -m training.levels --size 13        # the same on 13x13: models/LEVELS-13x13.md

Every level of ``gobuddy.ai.levels`` plays through the real GTP front end
(``python -m engine_worker.gtp --level NAME --threads 1``) in matches refereed by
``training.match`` (colours alternating, 2 random opening moves per pair of games,
both engines' ``final_score`` and dead stones for the count, a per-move timeout and
the move cap of ``training.gtp_game``):

- **adjacent levels**, ``--games`` games (``--full-games`` for the pair with ``full``,
  whose moves take about a second), and levels two apart, half as many (not ``full``):
  the ladder's spine, informative wherever GNU Go is far too strong or too weak;
- **GNU Go 3.8** at levels ``--gnugo`` (default 0, 5, 10; ``gnugo --mode gtp --level L
  --chinese-rules --positional-superko``, komi 7 over GTP): a probe of ``--probe``
  games, continued only when the probe is not a shutout (a level that
  loses or wins every game against GNU Go says little more in ten games); ``--gnugo-games``
  (default 10) in all.

Games are saved as they finish under ``--out`` (default ``data/levels/``, one folder
per pairing, ``training.match``'s format): a rerun plays only what is missing.
Progress: one bar over the matches, one per match.

**The model is pinned.** A calibration takes hours and may span sessions in which the
shipped model changes. When ``--out`` holds no game yet, the shipped int8 twin of the
size is copied to ``--out/model.int8.onnx`` and every level plays that copy
(``--model``), to the last game; the report names it by checksum. Writing the report
installs the pin as ``--level-model`` (default ``models/levels/gobuddy-NxN.int8.onnx``,
committed): the file every level but ``full`` plays in the product
(``engine_worker.shipped.level_models``), so the report's ranks stay true when a
stronger model is promoted. A folder with games and no pin (played before pinning)
plays on with the shipped model, installs nothing, and the report says the model is
not recorded.

Then ``training.levels_fit`` fits a Bradley-Terry (Elo) ladder to every decided game,
anchored at GNU Go level 10 = 0 Elo, with bootstrap 95% intervals, checks that the
levels are strictly ordered (one virtual draw on each step between adjacent levels
keeps shutouts finite), converts Elo to ranks on the EGF scale with GNU Go
level 10 as 8 kyu, and writes ``--report`` (default ``models/LEVELS.md``) and a plot
beside it (``LEVELS.png``). Exit status 1 when the levels are not strictly ordered.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from engine_worker.shipped import LEVELS_DIR, REPO_MODELS
from gobuddy.ai.levels import LEVELS
from training.engine_spec import EngineSpec, Toolbox, parse_engine
from training.gtp_game import GameRules
from training.make_model import file_digest
from training.levels_fit import Game, Ladder, bootstrap, rank_of
from training.match import MatchConfig, MatchSetupError, read_entries, run_match

__all__ = ["Pairing", "collect_games", "install_pin", "level_engine", "main", "model_line", "pin_model", "pinned_model",
           "schedule"]

REPO = Path(__file__).resolve().parent.parent
ANCHOR = "gnugo-10"
ANCHOR_GOR = 1300.0  # GNU Go 3.8 level 10 taken as 8 kyu (EGF GoR 1300); see models/LEVELS.md


@dataclass(frozen=True)
class Pairing:
    """One match of the calibration: ``games`` in all, or only ``probe`` games when
    those end in a shutout (``probe`` 0: always ``games``)."""

    a: str
    b: str
    games: int
    probe: int = 0

    @property
    def folder(self) -> str:
        return f"{self.a}__{self.b}"


def level_id(name: str) -> str:
    """The engine name of a level in records: ``"25 kyu"`` -> ``"L-25-kyu"``."""
    return "L-" + name.replace(" ", "-")


def level_engine(name: str, toolbox: Toolbox = Toolbox(), model: Path | None = None) -> EngineSpec:
    """Our GTP front end at level ``name``, one onnxruntime thread; with ``model``, that
    model file (else the shipped ones)."""
    pinned = f" --model {shlex.quote(str(model.resolve()))}" if model is not None else ""
    return parse_engine(f"ours:--level {name.replace(' ', '-')} --threads 1{pinned}", toolbox, name=level_id(name))


PIN_NAME = "model.int8.onnx"


def pinned_model(out: Path) -> Path | None:
    """The model the calibration in ``out`` plays, when one is pinned there."""
    path = out / PIN_NAME
    return path if path.is_file() else None


def pin_model(out: Path, shipped: Path) -> Path | None:
    """Pin ``shipped`` for the calibration in ``out`` (see the module doc): the pin when
    there is one or the folder holds no game yet (then ``shipped`` is copied), else None.
    Raises ``FileNotFoundError`` naming ``shipped`` when it must be copied and is missing."""
    pin = pinned_model(out)
    if pin is not None:
        return pin
    if out.exists() and any(read_entries(folder) for folder in out.iterdir() if folder.is_dir()):
        return None
    if not shipped.is_file():
        raise FileNotFoundError(f"the shipped model {shipped} is missing: nothing to pin for the calibration")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shipped, out / (PIN_NAME + ".part"))
    (out / (PIN_NAME + ".part")).replace(out / PIN_NAME)
    return out / PIN_NAME


def install_pin(pin: Path, installed: Path) -> bool:
    """Copy the calibration's pinned model to ``installed`` (``models/levels/...``: what
    the levels play in the product), atomically; False when it is already that file."""
    if installed.is_file() and file_digest(installed) == file_digest(pin):
        return False
    installed.parent.mkdir(parents=True, exist_ok=True)
    part = installed.with_name(installed.name + ".part")
    shutil.copyfile(pin, part)
    part.replace(installed)
    return True


def model_line(pin: Path | None, shipped: Path, installed: Path | None = None) -> str:
    """The report's sentence on the model the levels played, the file they play in the
    product (``installed``) and how the full player's model today compares."""
    if pin is None:
        return ("Model: not recorded (these games were played before the calibration pinned its model; "
                "the levels played the models shipped on the days they were played).")
    played, now = file_digest(pin), (file_digest(shipped) if shipped.is_file() else None)
    line = (f"Model: the levels played `{shipped.name}` as pinned in `{pin.parent.name}/{pin.name}` "
            f"(SHA-256 {played[:12]})")
    if installed is not None and installed.is_file() and file_digest(installed) == played:
        line += (f". Every level but full plays that same file in the product (`models/{installed.parent.name}/"
                 f"{installed.name}`), so these ranks hold when a stronger model is promoted; full plays the "
                 "shipped model, ")
        return line + ("the same file today." if played == now else
                       f"a newer one today (SHA-256 {(now or '?')[:12]}): at least as strong as its row says.")
    same = ("the same file as the shipped model today" if played == now else
            "**not** the shipped model today: the ranks below are those of the pinned model, rerun the "
            "calibration into a new folder for the shipped one")
    return f"{line}, {same}."


def schedule(games: int = 20, full_games: int = 12, probe: int = 6, gnugo: tuple[int, ...] = (0, 5, 10),
             gnugo_games: int = 10) -> list[Pairing]:
    """The matches, most informative first: adjacent levels, GNU Go, levels two apart."""
    ids = [level_id(level.name) for level in LEVELS]
    full = level_id(LEVELS[-1].name)
    plan = [Pairing(a, b, full_games if full in (a, b) else games) for a, b in zip(ids, ids[1:])]
    plan += [Pairing(a, f"gnugo-{g}", gnugo_games, probe) for a in ids for g in gnugo]
    plan += [Pairing(a, b, max(2, games // 2)) for a, b in zip(ids, ids[2:]) if full not in (a, b)]
    return plan


def _shutout(entries: list[dict]) -> bool:
    winners = {e["winner"] for e in entries}
    return len(entries) > 0 and len(winners) == 1 and None not in winners


def _engine(name: str, toolbox: Toolbox, model: Path | None) -> EngineSpec:
    if name.startswith("gnugo-"):
        return parse_engine(f"gnugo:{name.split('-', 1)[1]}", toolbox)
    return level_engine(name[2:].replace("-", " "), toolbox, model)


def play(plan: list[Pairing], out: Path, rules: GameRules, parallel: int, seed: int, toolbox: Toolbox,
         progress: bool = True, model: Path | None = None) -> None:
    """Play what is missing of every pairing (resumable; see the module doc), the levels
    with ``model`` (None: the shipped models)."""
    bar = tqdm(plan, unit="match", desc="calibration", disable=not progress)
    for pairing in bar:
        folder = out / pairing.folder
        stages = [pairing.games] if not pairing.probe else [pairing.probe, pairing.games]
        for stage, total in enumerate(stages):
            if stage == 1 and _shutout(read_entries(folder)):
                break
            if len(read_entries(folder)) >= total:
                continue
            config = MatchConfig(_engine(pairing.a, toolbox, model), _engine(pairing.b, toolbox, model), folder, games=total,
                                 rules=rules, parallel=parallel, seed=seed, progress=progress)
            run_match(config)
    bar.close()


def collect_games(out: Path) -> tuple[list[Game], dict[tuple[str, str], list[float]]]:
    """Every decided game under ``out`` (void ones left out) and, per ordered pair of
    players, the scores of the first against the second."""
    games: list[Game] = []
    scores: dict[tuple[str, str], list[float]] = {}
    for folder in sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []:
        for e in read_entries(folder):
            if e["reason"] in ("void", "stopped"):
                continue
            black, white = e["black"], e["white"]
            score = 0.5 if e["winner"] is None else (1.0 if e["winner"] == black else 0.0)
            games.append(Game(black, white, score))
            scores.setdefault((black, white), []).append(score)
            scores.setdefault((white, black), []).append(1.0 - score)
    return games, scores


def ladder(games: list[Game], samples: int, seed: int) -> tuple[Ladder, str]:
    """The fitted ladder and its anchor (0 Elo): GNU Go level 10, or while it has played
    no game yet the weakest level; the levels are expected in order."""
    order = tuple(level_id(level.name) for level in LEVELS)
    present = tuple(p for p in order if any(p in (g.a, g.b) for g in games))
    anchor = ANCHOR if any(ANCHOR in (g.a, g.b) for g in games) else present[0]
    steps = list(zip(present, present[1:]))
    return bootstrap(games, anchor, 0.0, samples=samples, seed=seed, order=present, prior_pairs=steps), anchor


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.levels", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=9,
                   help="board size of the games (default 9; another size N gets its own games folder and "
                        "report: data/levels-NxN/, models/LEVELS-NxN.md)")
    p.add_argument("--out", type=Path, default=None, help="games folder (default data/levels)")
    p.add_argument("--report", type=Path, default=None, help="the table written (default models/LEVELS.md)")
    p.add_argument("--level-model", type=Path, default=None,
                   help="where the pinned model is installed with the report, for the levels to play in the "
                        "product (default models/levels/gobuddy-NxN.int8.onnx)")
    p.add_argument("--games", type=int, default=20, help="games of an adjacent pair (default 20)")
    p.add_argument("--full-games", type=int, default=12, help="games of the pair with 'full' (default 12)")
    p.add_argument("--gnugo-games", type=int, default=10, help="games against a GNU Go level (default 10)")
    p.add_argument("--probe", type=int, default=6, help="GNU Go games before a shutout stops a match (default 6)")
    p.add_argument("--gnugo", default="0,5,10", help="GNU Go levels played (default 0,5,10)")
    p.add_argument("--parallel", type=int, default=2, help="games at once (default 2)")
    p.add_argument("--move-timeout", type=float, default=30.0, help="seconds per answer (default 30)")
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--samples", type=int, default=300, help="bootstrap refits (default 300)")
    p.add_argument("--report-only", action="store_true", help="play nothing; refit and rewrite the report")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    suffix = "" if args.size == 9 else f"-{args.size}x{args.size}"
    args.out = args.out or REPO / "data" / f"levels{suffix}"
    args.report = args.report or REPO / "models" / f"LEVELS{suffix}.md"
    args.level_model = args.level_model or REPO_MODELS / LEVELS_DIR / f"gobuddy-{args.size}x{args.size}.int8.onnx"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    gnugo = tuple(int(x) for x in args.gnugo.split(",") if x.strip())
    plan = schedule(args.games, args.full_games, args.probe, gnugo, args.gnugo_games)
    rules = GameRules(size=args.size, komi=7.0, move_timeout=args.move_timeout, score_timeout=args.move_timeout)
    shipped = REPO_MODELS / f"gobuddy-{args.size}x{args.size}.int8.onnx"
    if not args.report_only:
        try:
            pin = pin_model(args.out, shipped)
        except FileNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 1
        try:
            play(plan, args.out, rules, args.parallel, args.seed, Toolbox(), progress=not args.no_progress, model=pin)
        except KeyboardInterrupt:
            print(f"\nstopped; finished games kept in {args.out}", file=sys.stderr)
            return 130
        except MatchSetupError as exc:
            print(f"python -m training.levels: error: {exc}", file=sys.stderr)
            return 2
    games, scores = collect_games(args.out)
    if not games:
        print(f"no games in {args.out}", file=sys.stderr)
        return 1
    from training.levels_report import write_report

    fitted, anchor = ladder(games, args.samples, args.seed)
    ordered = all(fitted.elo[x] < fitted.elo[y] for x, y in zip(fitted.order, fitted.order[1:]))
    pin = pinned_model(args.out)
    if pin is not None and install_pin(pin, args.level_model):  # the report and what the levels play agree
        print(f"installed {pin} as {args.level_model}: the levels play it from now on", file=sys.stderr)
    write_report(args.report, fitted, scores, [level.name for level in LEVELS], level_id, anchor, ANCHOR_GOR,
                 rank_of, settings=vars(args) | {"gnugo": list(gnugo)}, ordered=ordered,
                 model=model_line(pin, shipped, args.level_model))
    print(args.report.read_text())
    if not ordered:
        print("the levels are NOT strictly ordered: retune gobuddy/ai/levels.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
