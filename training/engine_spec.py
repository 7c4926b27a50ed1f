"""Engine command lines: presets for the engines we measure against, or raw commands.

| text                    | engine                                                       |
|-------------------------|--------------------------------------------------------------|
| ``gnugo:10``            | GNU Go at level 10, Chinese rules, positional superko        |
| ``pachi:1000``          | Pachi with 1,000 playouts a move (500 at least), one thread, no pondering |
| ``ours``                | our GTP front end, ``python -m engine_worker.gtp``           |
| ``ours:--visits 200``   | the same with extra arguments after the colon                |
| anything else           | a raw command line, split like a shell (``shlex``), run as is |

Presets know how to take a seed (GNU Go ``--seed``, Pachi ``-s``, ours ``--seed``),
so data generation can make every game different and every game reproducible; a raw
command is run exactly as written. Pachi runs from its own folder (it loads its
pattern files from there). Komi, board size and rules reach engines over GTP, except
the ruleset flags written here.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from training.gtp_client import GtpClient

__all__ = ["PACHI_MIN_PLAYOUTS", "EngineSpec", "Toolbox", "parse_engine"]

PACHI_MIN_PLAYOUTS = 500


@dataclass(frozen=True)
class Toolbox:
    """Where the preset engines live. ``gnugo``: the GNU Go program; ``pachi_dir``: the
    folder holding the built ``pachi`` (``training/build_pachi.sh``); ``python``: the
    interpreter that runs ``engine_worker.gtp``; ``repo``: its working folder."""

    gnugo: str = "/usr/games/gnugo"
    pachi_dir: Path = Path(__file__).resolve().parent / "pachi"
    python: str = sys.executable
    repo: Path = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: ``kind`` is ``gnugo``, ``pachi``, ``ours`` or ``raw``;
    ``strength`` the GNU Go level or Pachi playouts (``None`` otherwise)."""

    name: str
    kind: str
    base_argv: tuple[str, ...]
    cwd: Path | None = None
    strength: int | None = None
    resign: bool = True
    extra: tuple[str, ...] = field(default=())

    def argv(self, seed: int | None = None) -> list[str]:
        """The command line; ``seed`` is passed to presets and ignored for raw ones."""
        args = list(self.base_argv)
        if self.kind == "pachi":
            # Pachi's engine options are one comma-separated argument, placed last.
            options = "threads=1,pondering=0" + ("" if self.resign else ",resign_threshold=0")
            seed_args = [] if seed is None else ["-s", str(seed % 2**31)]
            return args + seed_args + ["-t", f"={self.strength}", options]
        if seed is not None and self.kind in ("gnugo", "ours"):
            args += ["--seed", str(seed % 2**31)]
        return args + list(self.extra)

    def start(self, seed: int | None = None, stderr: str | Path | None = None,
              timeout: float | None = 60.0) -> GtpClient:
        """Start the engine (in ``cwd``) as a ``GtpClient``; ``EngineFailure`` if it cannot."""
        return GtpClient(self.argv(seed), cwd=self.cwd, stderr=stderr, name=self.name, timeout=timeout)


def parse_engine(text: str, toolbox: Toolbox = Toolbox(), *, resign: bool = True,
                 name: str | None = None) -> EngineSpec:
    """Parse a preset (``gnugo:L``, ``pachi:N``, ``ours[:ARGS]``) or a raw command.

    ``resign=False`` asks GNU Go (``--never-resign``) and Pachi (``resign_threshold=0``)
    never to resign; ours and raw commands are left alone. Raises ``ValueError``
    naming the text when a preset's number is bad or the command is empty. Not
    checked: that the program exists (starting it will say)."""
    text = text.strip()
    head, _, tail = text.partition(":")
    head = head.lower()
    if head in ("gnugo", "pachi") and tail and " " not in text:
        try:
            value = int(tail)
        except ValueError:
            raise ValueError(f"engine {text!r}: {head} needs a whole number after the colon") from None
        if head == "gnugo":
            if not 0 <= value <= 10:
                raise ValueError(f"engine {text!r}: GNU Go levels run from 0 to 10")
            argv = (toolbox.gnugo, "--mode", "gtp", "--level", str(value), "--chinese-rules",
                    "--positional-superko") + (() if resign else ("--never-resign",))
            return EngineSpec(name or f"gnugo-{value}", "gnugo", argv, None, value, resign)
        if value < PACHI_MIN_PLAYOUTS:
            raise ValueError(f"engine {text!r}: Pachi needs at least {PACHI_MIN_PLAYOUTS} playouts "
                             "a move (fewer abort it: GJ_MINGAMES in uct/internal.h)")
        argv = (str(Path(toolbox.pachi_dir) / "pachi"), "-d", "0", "-r", "chinese")
        return EngineSpec(name or f"pachi-{value}", "pachi", argv, Path(toolbox.pachi_dir), value, resign)
    if head == "ours" and (not tail or text.startswith("ours:")):
        argv = (toolbox.python, "-m", "engine_worker.gtp")
        extra = tuple(shlex.split(tail))
        label = "ours" + ("-" + "-".join(a.lstrip("-") for a in extra) if extra else "")
        return EngineSpec(name or label, "ours", argv, Path(toolbox.repo), None, resign, extra)
    argv = tuple(shlex.split(text))
    if not argv:
        raise ValueError("engine command is empty")
    return EngineSpec(name or Path(argv[0]).name, "raw", argv, None, None, resign)
