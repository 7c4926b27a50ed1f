"""Engine presets and raw command lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.engine_spec import Toolbox, parse_engine

TOOLS = Toolbox(gnugo="/usr/games/gnugo", pachi_dir=Path("/opt/pachi"), python="/py", repo=Path("/repo"))


@pytest.mark.parametrize("text, seed, name, argv, cwd", [
    ("gnugo:10", None, "gnugo-10",
     "/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko", None),
    ("gnugo:1", 7, "gnugo-1",
     "/usr/games/gnugo --mode gtp --level 1 --chinese-rules --positional-superko --seed 7", None),
    ("pachi:2000", 5, "pachi-2000",
     "/opt/pachi/pachi -d 0 -r chinese -s 5 -t =2000 threads=1,pondering=0", "/opt/pachi"),
    ("ours", 3, "ours", "/py -m engine_worker.gtp --seed 3", "/repo"),
    ("ours:--visits 200", None, "ours-visits-200", "/py -m engine_worker.gtp --visits 200", "/repo"),
    ("gnugo --mode gtp --level 3", 9, "gnugo", "gnugo --mode gtp --level 3", None),
    ("'/my engine/run' -x", None, "run", "/my engine/run -x", None),
])
def test_presets_and_raw_commands(text, seed, name, argv, cwd):
    spec = parse_engine(text, TOOLS)
    assert spec.name == name
    assert spec.argv(seed) == (argv.split() if "my engine" not in argv else ["/my engine/run", "-x"])
    assert spec.cwd == (Path(cwd) if cwd else None)


def test_no_resignation():
    assert parse_engine("gnugo:5", TOOLS, resign=False).argv()[-1] == "--never-resign"
    assert parse_engine("pachi:1000", TOOLS, resign=False).argv()[-1] == "threads=1,pondering=0,resign_threshold=0"


@pytest.mark.parametrize("text, message", [
    ("gnugo:11", "levels run from 0 to 10"),
    ("gnugo:x", "needs a whole number"),
    ("pachi:100", "at least 500 playouts"),
    ("  ", "empty"),
])
def test_bad_engines(text, message):
    with pytest.raises(ValueError, match=message):
        parse_engine(text, TOOLS)
