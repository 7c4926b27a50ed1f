"""Real-world SGF files: every file of the corpus loads as the GTP engine's ``loadsgf``
loads it, with the warnings listed here (or is refused with the message listed), and
every file GNU Go loads gives the same final position in ours.

The corpus, its sources and licences: ``fixtures/sgf_corpus/README.md``. GNU Go reads
only AB, AW, PL, B and W (``engine/interface.c`` of GNU Go 3.8): it ignores AE, so the
position comparison gives both programs the file with its AE properties removed; what
AE does in ours is checked by the GTP path above and by ``test_sgf.py``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine_worker.gtp_engine import GtpEngine
from gobuddy.go.game import Game
from gobuddy.go.sgf import read_sgf

CORPUS = Path(__file__).parent / "fixtures" / "sgf_corpus"
GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)

# file -> the warnings of loading its first game (read_sgf(...).first() + Game.load), or "refused: <message>"
EXPECTED: dict[str, list[str] | str] = {
    'gnugo/DAGN1.sgf': [],
    'gnugo/FSGCBot-dr.sgf': [],
    'gnugo/_semeai_C0_001.sgf': [
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/_semeai_C9_018.sgf': [
        'setup after move 61: the position there is the start, the 61 move(s) before it are not kept',
    ],
    'gnugo/ab1_fuseki.sgf': [
        'setup after the root, before the first move: folded into the start',
        'setup after move 218: the position there is the start, the 218 move(s) before it are not kept',
    ],
    'gnugo/ajago-gnu.sgf': [],
    'gnugo/buzco1.sgf': [
        "line 2, column 1: FF[3] property names such as 'VieW' (2 times): read by their capital letters (VieW as VW)",
        'line 8, column 3: RE[Black resigns. W 133.5 B 81.0] is not an FF[4] result: read as RE[W+R]',
        'line 42, column 48: a node holds both B and W: split it in two nodes, in the order written',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/caren2.sgf': [
        'line 8, column 1: C written 2 times in one node: joined them, a blank line between',
    ],
    'gnugo/constructed3.sgf': [
        'line 7, column 25: PL[1] (an old numeric colour): read as PL[B]',
        'line 7, column 31: PL[2] (an old numeric colour): read as PL[W]',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/constructed5.sgf': [
        'line 7, column 26: PL[2] (an old numeric colour): read as PL[W]',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/ego2.sgf': [
        "line 1, column 1: text before the first game tree ('On April 4, 2002, GNU Go played with ...'): skipped",
        "line 6, column 1: FF[3] property names such as 'CoPyright': read by their capital letters (CoPyright as CP)",
        'line 12, column 1: PB written 2 times in one node: kept the first, PB[FSF (GNU Go 3.1.30)]',
        'line 12, column 24: BR written 2 times in one node: kept the first, BR[17k ]',
    ],
    'gnugo/ego3.sgf': [
        'line 1, column 1: text before the first game tree ("W is a program of Bruce Wilcox\'s call..."): skipped',
        "line 7, column 1: FF[3] property names such as 'CoPyright': read by their capital letters (CoPyright as CP)",
    ],
    'gnugo/filllib10.sgf': [
        'move 237 repeats an earlier position (positional superko): played all the same',
    ],
    'gnugo/game01.sgf': [
        'setup after move 68: the position there is the start, the 68 move(s) before it are not kept',
    ],
    'gnugo/gnu-mango.sgf': [
        'line 3, column 3: RE[B+time] is not an FF[4] result: read as RE[B+T]',
    ],
    'gnugo/gnugo-3.1.18-Rufus-200201051408.sgf': [
        'line 1, column 3: FF written 2 times in one node: kept one (all equal)',
        'line 1, column 8: GM written 2 times in one node: kept one (all equal)',
    ],
    'gnugo/juka1.sgf': [
        "line 2, column 1: FF[3] property names such as 'VieW': read by their capital letters (VieW as VW)",
        'line 8, column 3: RE[has adjourned.] is not an FF[4] result: kept as written',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/ld17.sgf': [
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/lordofpi.sgf': [
        "line 3, column 1: FF[3] property names such as 'CoPyright': read by their capital letters (CoPyright as CP)",
    ],
    'gnugo/mango-gnu.sgf': [
        'line 3, column 3: RE[W+time] is not an FF[4] result: read as RE[W+T]',
    ],
    'gnugo/nightmare.sgf': "refused: line 1, column 1: empty collection: expected '(' to start a game tree",
    'gnugo/owl19.sgf': [
        'line 2, column 123: AB written 2 times in one node: merged the points',
        'line 2, column 177: AW written 2 times in one node: merged the points',
    ],
    'gnugo/owl42.sgf': [
        'line 24, column 1: the file ends inside the game tree opened at line 1, column 1: closed it',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/rbm-bobk-200303111815.sgf': [
        "line 4, column 1: FF[3] property names such as 'CoPyright': read by their capital letters (CoPyright as CP)",
        "line 59, column 1: text after the last game tree ('---'): skipped",
    ],
    'gnugo/reading10.sgf': [
        'line 11, column 2: the file holds 2 games: took the first, left the others',
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/sansan.sgf': [
        "line 1, column 1: text before the first game tree ('This is GNU Go, a Go program. Contact...'): skipped",
    ],
    'gnugo/strategy16.sgf': [
        'line 3, column 7: AB written 3 times in one node: merged the points',
    ],
    'gnugo/trevor_31.sgf': [
        'line 10, column 1: PW has 2 values: kept one (all equal)',
    ],
    'gnugo/twoko_dead.sgf': [
        'setup after the root, before the first move: folded into the start',
    ],
    'gnugo/verybad.sgf': [
        'moves 122, 126, 130, 134, 138 and 22 more repeat an earlier position (positional superko): played all the same',
    ],
    'pysgf/LS_vs_AG_-_G4_-_English.sgf': [],
    'pysgf/fox_sgf_error.sgf': [
        'line 1, column 157: AP written 2 times in one node: merged the values',
    ],
    'pysgf/fox_sgf_works.sgf': [
        'line 1, column 151: AP written 2 times in one node: merged the values',
    ],
    'pysgf/kgs.sgf': [],
    'pysgf/ogs.sgf': [],
    'pysgf/panda1.sgf': [
        "line 4, column 1: FF[3] property names such as 'CoPyright': read by their capital letters (CoPyright as CP)",
    ],
    'pysgf/xmgt97.sgf': [
        "line 3, column 1: FF[3] property names such as 'FileFormat' (68 times): read by their capital letters (FileFormat as FF)",
    ],
    'sabaki/chinese.sgf': [],
    'sabaki/complex.sgf': [],
    'sabaki/japanese.sgf': [],
    'sabaki/japanese_bad.sgf': [
        'line 1, column 1: CA[MS_KANJI] does not decode the file: read it as utf-8',
    ],
    'sabaki/korean.sgf': [],
    'sabaki/no-ca.sgf': [],
    'sabaki/utf16le.sgf': [],
    'sabaki/utf8bom.sgf': [],
}


def corpus_files() -> list[str]:
    return sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.sgf"))


def load(data: bytes) -> list[str]:
    """Load as ``loadsgf`` does (the engine's own ko rule): the warnings and repair notes."""
    record, warnings = read_sgf(data).first()
    return [str(w) for w in warnings] + GtpEngine(player=None, game=Game()).load(record)  # type: ignore[arg-type]


def test_every_corpus_file_is_listed_and_the_corpus_is_small():
    assert corpus_files() == sorted(EXPECTED)
    assert sum(p.stat().st_size for p in CORPUS.rglob("*.sgf")) < 400_000
    readme = (CORPUS / "README.md").read_text()
    for name in corpus_files():
        assert f"`{name}`" in readme, f"{name} has no source in README.md"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file_loads_with_the_expected_warnings_or_a_clear_refusal(name):
    data = (CORPUS / name).read_bytes()
    expected = EXPECTED[name]
    if isinstance(expected, str):
        with pytest.raises(ValueError) as error:
            load(data)
        assert f"refused: {error.value}" == expected
    else:
        assert load(data) == expected


def test_every_repair_is_exercised_by_some_corpus_file():
    found = "\n".join(w for v in EXPECTED.values() if isinstance(v, list) for w in v)
    for repair in ["text before the first game tree", "text after the last game tree", "C written 2 times",
                   "kept one (all equal)", "PL[1] (an old numeric colour)", "FF[3] property names",
                   "merged the points", "the file ends inside the game tree", "the file holds 2 games",
                   "setup after the root, before the first move", "setup after move",
                   "repeats an earlier position", "is not an FF[4] result: read as",
                   "is not an FF[4] result: kept as written", "does not decode the file"]:
        assert repair in found, repair


def test_gtp_loadsgf_names_the_repairs_on_standard_error(capsys):
    engine = GtpEngine(player=None, game=Game())  # type: ignore[arg-type]
    assert engine.shell.execute(f"loadsgf {CORPUS / 'gnugo' / 'ego2.sgf'}").startswith("=")
    err = capsys.readouterr().err
    assert "repaired: line 1, column 1: text before the first game tree" in err
    assert engine.shell.execute(f"loadsgf {CORPUS / 'gnugo' / 'nightmare.sgf'}").startswith("? cannot load file")
    assert "empty collection" in capsys.readouterr().err


class GnuGo:
    """GNU Go in GTP mode, one process for many files."""

    def __init__(self, path: str) -> None:
        self.proc = subprocess.Popen([path, "--mode", "gtp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

    def send(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise EOFError(f"GNU Go closed its output after {command!r}")
            if line == "\n" and lines:
                return "\n".join(lines)
            if line != "\n":
                lines.append(line.rstrip("\n"))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def stones(engine: GtpEngine | GnuGo, color: str) -> list[str]:
    answer = engine.shell.execute(f"list_stones {color}") if isinstance(engine, GtpEngine) else engine.send(
        f"list_stones {color}")
    return sorted(answer.removeprefix("=").split())


def without_ae(data: bytes) -> bytes:
    return re.sub(rb"AE(\s*\[[^\]]*\])+", b"", data)


@pytest.mark.skipif(GNUGO is None, reason="GNU Go (Debian package gnugo) is not installed")
def test_every_file_gnu_go_loads_loads_in_ours_with_the_same_final_position(tmp_path):
    gnugo = GnuGo(GNUGO)  # type: ignore[arg-type]
    ours = GtpEngine(player=None, game=Game())  # type: ignore[arg-type]
    compared = []
    try:
        for k, name in enumerate(corpus_files()):
            if name in ("sabaki/utf16le.sgf", "gnugo/nightmare.sgf"):  # GNU Go 3.8 crashes on these
                continue
            path = tmp_path / f"f{k}.sgf"  # GTP arguments cannot hold spaces
            path.write_bytes(without_ae((CORPUS / name).read_bytes()))
            if not gnugo.send(f"loadsgf {path}").startswith("="):
                continue
            assert ours.shell.execute(f"loadsgf {path}").startswith("="), name
            assert (stones(ours, "black"), stones(ours, "white")) == (stones(gnugo, "black"), stones(gnugo, "white")), name
            compared.append(name)
    finally:
        gnugo.close()
    assert len(compared) >= 40
