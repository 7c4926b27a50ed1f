"""DAgger batches for the raw policy: the positions the *raw* policy reaches, labelled by a search.

Self-play shows the policy the positions its searching player reaches; the raw-policy
bar plays the policy alone, whose own mistakes lead to positions self-play never
shows it. DAgger (Ross, Gordon and Bagnell, AISTATS 2011) closes that loop: the
policy being trained plays (here: one visit against GNU Go, from random openings),
and an expert labels every move of those games (here: the same network's int8 twin
searching, ``training.reanalyse --moves all``). One batch is:

1. ``play``: the raw policy's games, a ``training.match`` folder of SGFs;
2. ``import_games``: those SGFs as game shards (``training.sgf_import``);
3. ``relabel``: every move searched again (``training.reanalyse``), resumable;
4. positions: ``training.positions.build`` with policy-surprise weighting under the
   expert (the caller's step: it owns the weighting).

``link_mix`` then writes a training folder: a base mix (its shards linked as they
are) plus each batch's *training* shards linked ``copies`` times; the batches'
validation shards stay out, so the validation split is the base mix's.

The recipe that gave the line's best raw policy (models/MODEL_CARD.md, "w96d9-dagger1"
and "w96d9-dagger2b"): 400 games a batch, openings of 4 random moves, labels at 400
visits, the batches together about 8% of the positions. Not checked here: that the
expert is stronger than the player (a weaker one teaches its own mistakes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from training.game_shards import count_games, shard_paths
from training.gtp_game import GameRules

RAW_ARGS = "--visits 1 --threads 1"  # the raw policy: one network run a move, one thread


def play(model: Path, opponent: str, out: Path, games: int, rules: GameRules, *, seed: int,
         opening: tuple[int, int] = (4, 4), parallel: int = 1, progress: bool = True) -> dict:
    """Play (or finish) ``games`` games of ``model``'s raw policy against ``opponent``
    (a ``training.engine_spec`` preset) into the match folder ``out``; returns the
    match summary."""
    from training.engine_spec import parse_engine
    from training.match import MatchConfig, run_match

    ours = parse_engine(f"ours:--model {Path(model).resolve()} {RAW_ARGS}", name="raw-policy")
    return run_match(MatchConfig(ours, parse_engine(opponent), Path(out), games, rules, parallel=parallel,
                                 seed=seed, progress=progress, opening=opening))


def imported(games: Path, expected: int) -> bool:
    """``games`` holds ``expected`` imported games (no more: a second import would duplicate)."""
    return count_games(games) == expected


def import_games(match: Path, games: Path, size: int, prefix: str = "dagger", per_shard: int = 25) -> int:
    """Import the match folder's SGFs into ``games`` as shards, replacing a partial
    import; returns the games imported. Raises ``ValueError`` when a game is skipped
    (a batch with holes would silently teach less than it says)."""
    from training.sgf_import import import_folder

    if games.exists():
        shutil.rmtree(games)
    report = import_folder(match, games, prefix=prefix, per_shard=per_shard, size=size)
    if report.skipped:
        raise ValueError(f"{len(report.skipped)} games of {match} could not be imported, first: {report.skipped[0]}")
    return report.imported


def relabelled(games: Path, out: Path) -> bool:
    """Every game shard of ``games`` has its reanalysed shard in ``out``."""
    shards = shard_paths(games)
    return bool(shards) and all((out / p.name).exists() for p in shards)


def relabel(expert: Path, games: Path, out: Path, visits: int, workers: int = 1, progress: bool = True) -> None:
    """Search every move of ``games`` again with ``expert`` at ``visits`` (noise-free)
    into ``out``; a stopped run resumes with the shards not yet written."""
    from training.reanalyse import ReanalyseConfig, ReanalyseSettings, run

    run(ReanalyseConfig(Path(expert), Path(games), Path(out), ReanalyseSettings(visits=visits, moves="all"),
                        workers=workers, progress=progress))


def link_mix(base: Path, batches: list[Path], copies: int, out: Path) -> Path:
    """Write ``out``: links to every shard of ``base`` and to each batch's
    ``train-*.npz`` ``copies`` times (named ``train-dB-C-NNNNN.npz``); replaces ``out``.
    Raises ``ValueError`` for ``copies < 1`` or a batch without training shards."""
    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for shard in sorted(Path(base).glob("*.npz")):
        (out / shard.name).symlink_to(shard.resolve())
    for b, batch in enumerate(batches, 1):
        shards = sorted(Path(batch).glob("train-*.npz"))
        if not shards:
            raise ValueError(f"DAgger batch {batch} has no training shards")
        for shard in shards:
            number = shard.stem.split("-", 1)[1]
            for c in range(1, copies + 1):
                (out / f"train-d{b}-{c}-{number}.npz").symlink_to(shard.resolve())
    return out
