"""The board firmware, built with avr-gcc and run on simavr through firmware/sim.

Every test opens the simulated board's serial port (which resets the board, like a real
Mega's auto-reset), talks firmware/PROTOCOL.md to it, and drives its sensors, buttons and
LEDs through ``SimBoard``. The simulation runs in real time, so timings asserted here
(frame rate, debounce, blink) are the firmware's own, measured in simulated time from the
millisecond stamps the firmware puts on its lines.
"""

from __future__ import annotations

import binascii
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "firmware" / "sim"))
import simboard  # noqa: E402
from simboard import SimBoard, mv_for_raw, raw_for_mv, vertex_index  # noqa: E402

MISSING = simboard.tools_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"AVR toolchain/simavr not installed: {MISSING}")

ASYNC_KINDS = {"FRAME", "BUTTON", "CALDATA"}
MUX_BOUNDARIES = [0, 15, 16, 31, 32, 47, 48, 63, 64, 79, 80]


# ---- a minimal host side of PROTOCOL.md ----------------------------------------------


@dataclass
class Line:
    raw: bytes
    body: str
    crc_ok: bool
    wall: float
    fields: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.fields[0] if self.fields else ""

    @property
    def values(self) -> list[int]:
        """Readings of a FRAME or CALDATA line (81 x 3 hex digits)."""
        data = self.fields[3] if self.kind == "FRAME" else self.fields[2]
        assert len(data) == 243, f"{self.kind} data is {len(data)} chars"
        return [int(data[i : i + 3], 16) for i in range(0, 243, 3)]


def crc16(body: str) -> str:
    """CRC-16/CCITT-FALSE as PROTOCOL.md specifies, 4 uppercase hex digits."""
    return f"{binascii.crc_hqx(body.encode('ascii'), 0xFFFF):04X}"


def parse(raw: bytes, wall: float) -> Line:
    text = raw.decode("ascii", "replace")
    body, star, crc = text.rpartition("*")
    if not star:
        return Line(raw, text, False, wall, text.split(" "))
    return Line(raw, body, crc == crc16(body), wall, body.split(" "))


class Link:
    """The serial port of the simulated board, read line by line in a thread."""

    def __init__(self, board: SimBoard) -> None:
        self.port = board.open_serial(timeout=0.05)
        self.lines: list[Line] = []
        self.cond = threading.Condition()
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        while not self._stop:
            try:
                chunk = self.port.read(self.port.in_waiting or 1)
            except Exception:  # port closed under us
                return
            if not chunk:
                continue
            buf += chunk
            now = time.monotonic()
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                with self.cond:
                    self.lines.append(parse(raw, now))
                    self.cond.notify_all()

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        self.port.close()

    def mark(self) -> int:
        with self.cond:
            return len(self.lines)

    def since(self, mark: int) -> list[Line]:
        with self.cond:
            return list(self.lines[mark:])

    def wait(self, pred: Callable[[Line], bool], since: int, timeout: float = 3.0) -> Line:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[since:]:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    kinds = [line.body[:40] for line in self.lines[since:] if line.kind != "FRAME"]
                    raise AssertionError(f"no matching line within {timeout} s; non-frame lines: {kinds}")
                self.cond.wait(left)

    def send(self, data: bytes | str) -> None:
        self.port.write(data.encode("ascii") if isinstance(data, str) else data)

    def command(self, text: bytes | str, timeout: float = 2.0) -> Line:
        """Send one line; return its reply (the first line that is not an event)."""
        mark = self.mark()
        self.send((text if isinstance(text, bytes) else text.encode("ascii")) + b"\n")
        reply = self.wait(lambda line: line.kind not in ASYNC_KINDS, mark, timeout)
        assert reply.crc_ok, reply.raw
        return reply

    def frames(self, count: int, since: int | None = None, timeout: float = 3.0) -> list[Line]:
        """The first ``count`` FRAME lines after ``since`` (default: from now)."""
        start = self.mark() if since is None else since
        self.wait(lambda _: sum(1 for l in self.since(start) if l.kind == "FRAME") >= count, start, timeout)
        return [line for line in self.since(start) if line.kind == "FRAME"][:count]

    def frame_matching(self, expected: list[int], timeout: float = 2.0) -> Line:
        """The first frame from now whose readings equal ``expected``."""
        return self.wait(lambda l: l.kind == "FRAME" and l.values == expected, self.mark(), timeout)


# ---- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board():
    with SimBoard() as b:
        yield b
        assert b.stats()["crashes"] == 0, f"the MCU stopped (watchdog or crash); log {b.log_path}"


@pytest.fixture
def link(board):
    """A freshly booted board: opening the port resets it; its HELLO is line 0."""
    link = Link(board)
    link.wait(lambda l: l.kind == "HELLO", 0, timeout=5)
    yield link
    link.close()
    deadline = time.monotonic() + 2
    while board.stats()["open"] and time.monotonic() < deadline:  # let the harness see the close
        time.sleep(0.005)


def sim_sleep(board: SimBoard, seconds: float) -> None:
    """Wait until the simulation has advanced ``seconds`` (robust on a slow machine)."""
    end = board.sim_time_us() + seconds * 1e6
    while board.sim_time_us() < end:
        time.sleep(0.01)


def press_ms(board: SimBoard, t_us: int) -> float:
    """Firmware millis() at simulated time t_us (millis() starts at the last reset)."""
    return (t_us - board.stats()["reset_us"]) / 1000.0


# ---- build ------------------------------------------------------------------------------


def test_build_fits_the_mega(board):
    elf = ROOT / "firmware" / "build" / "gobuddy_board.elf"
    hexfile = ROOT / "firmware" / "build" / "gobuddy_board.hex"
    assert elf.is_file() and hexfile.is_file()
    sizes = subprocess.run(["avr-size", "-A", str(elf)], capture_output=True, text=True, check=True).stdout
    section = {p[0]: int(p[1]) for p in (l.split() for l in sizes.splitlines()) if len(p) >= 2 and p[1].isdigit()}
    assert section[".text"] + section.get(".data", 0) < 64 * 1024
    ram = section.get(".data", 0) + section.get(".bss", 0)
    assert ram < 4096, f"static RAM {ram} B leaves too little of the 8 KiB for the stack"


def test_vertex_index_matches_the_project_convention():
    from gobuddy.go.coords import from_gtp

    for col in "ABCDEFGHJ":
        for row in range(1, 10):
            assert vertex_index(f"{col}{row}") == from_gtp(f"{col}{row}", 9)
    assert [vertex_index(v) for v in ("A9", "J9", "A1", "J1")] == [0, 8, 72, 80]
    assert all(raw_for_mv(mv_for_raw(raw)) == raw for raw in range(1024))


# ---- boot, HELLO, PING ---------------------------------------------------------------------


def test_boot_sends_hello_first(link):
    first = link.since(0)[0]
    assert first.crc_ok, first.raw
    assert first.fields[:2] == ["HELLO", "GOBUDDY"]
    info = dict(f.split("=", 1) for f in first.fields[2:])
    assert info["proto"] == "1"
    assert info["size"] == "9" and info["sensors"] == "81" and info["adcmax"] == "1023"
    assert info["rate"] == "25"
    assert info["buttons"].split(",") == ["START", "END", "DONE", "ADVICE", "PASS", "UNDO"]
    assert link.command("HELLO").body == first.body  # on request: the same line


def test_ping_pong(link):
    assert link.command("PING").body == "PONG"
    assert link.command("PING abc-17").body == "PONG abc-17"
    assert link.command("ping").body == "PONG"  # command words are case-insensitive
    body = "PING 42"
    assert link.command(f"{body}*{crc16(body)}").body == "PONG 42"  # optional host checksum


# ---- frames ------------------------------------------------------------------------------


def test_frames_stream_at_25_per_second_with_valid_checksums(board, link):
    t0_sim, t0_wall = board.sim_time_us(), time.monotonic()
    frames = link.frames(31, timeout=4)
    sim_s, wall_s = (board.sim_time_us() - t0_sim) / 1e6, time.monotonic() - t0_wall

    assert all(f.crc_ok for f in frames)
    seqs = [int(f.fields[1]) for f in frames]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "sequence numbers must be consecutive"
    stamps = [int(f.fields[2]) for f in frames]
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    rate = (len(frames) - 1) / ((stamps[-1] - stamps[0]) / 1000)
    assert rate >= 20, f"{rate:.1f} frames per simulated second"
    assert max(gaps) <= 45, f"frame gaps {gaps}"
    if sim_s / wall_s > 0.9:  # the simulator kept real time: the host saw the same rate
        wall_rate = (len(frames) - 1) / (frames[-1].wall - frames[0].wall)
        assert wall_rate >= 20, f"{wall_rate:.1f} frames per wall second"

    status = dict(f.split("=", 1) for f in link.command("STATUS").fields[1:])
    assert int(status["scan_us"]) < 50_000, "a full 81-sensor scan must take < 50 ms"
    assert int(status["scans"]) > 0 and status["skipped"] == "0" and status["rate"] == "25"


def test_every_sensor_lands_at_its_protocol_index(board, link):
    expected = [7 + 12 * i for i in range(81)]  # all distinct
    board.set_sensors_raw(expected)
    frame = link.frame_matching(expected)
    assert frame.values[vertex_index("A9")] == expected[0]
    assert frame.values[vertex_index("J1")] == expected[80]


@pytest.mark.parametrize("index", MUX_BOUNDARIES)
def test_one_sensor_changes_only_its_own_reading(board, link, index):
    base = [100] * 81
    board.set_sensors_raw(base)
    link.frame_matching(base)
    board.set_sensor_raw(index, 900)
    want = base.copy()
    want[index] = 900
    link.frame_matching(want)


def test_frames_follow_the_rate_command(board, link):
    assert link.command("RATE 10").body == "OK RATE 10"
    stamps = [int(f.fields[2]) for f in link.frames(6)[1:]]
    assert all(95 <= b - a <= 105 for a, b in zip(stamps, stamps[1:])), stamps

    assert link.command("RATE 0").body == "OK RATE 0"
    mark = link.mark()
    sim_sleep(board, 0.3)
    assert not [l for l in link.since(mark) if l.kind == "FRAME"]

    assert link.command("RATE 30").body == "OK RATE 30"
    stamps = [int(f.fields[2]) for f in link.frames(8)[1:]]
    assert all(32 <= b - a <= 35 for a, b in zip(stamps, stamps[1:])), stamps


def test_calibration_averages_scans(board, link):
    expected = [1023 - 11 * i for i in range(81)]
    board.set_sensors_raw(expected)
    link.frame_matching(expected)
    mark = link.mark()
    assert link.command("CAL 8").body == "OK CAL 8"
    cal = link.wait(lambda l: l.kind == "CALDATA", mark)
    assert cal.crc_ok and cal.fields[1] == "8"
    assert cal.values == expected

    mark = link.mark()
    assert link.command("CAL 32").body == "OK CAL 32"
    assert link.command("CAL 1").fields[:2] == ["ERR", "BUSY"]
    assert link.wait(lambda l: l.kind == "CALDATA", mark).fields[1] == "32"


# ---- buttons -------------------------------------------------------------------------------


def buttons_since(link: Link, mark: int) -> list[list[str]]:
    return [l.fields for l in link.since(mark) if l.kind == "BUTTON"]


def test_bouncy_press_gives_one_event_each_way_after_debounce(board, link):
    mark = link.mark()
    # contact bounce on press and on release; stable pressed from 8 ms to 88 ms,
    # released for good from 91 ms
    t_us = board.button_sequence(
        "START", [(1, 2), (0, 1), (1, 3), (0, 2), (1, 80), (0, 1), (1, 2), (0, 0)]
    )
    up = link.wait(lambda l: l.kind == "BUTTON" and l.fields[3] == "UP", mark)
    assert up.crc_ok
    events = buttons_since(link, mark)
    assert [e[2:4] for e in events] == [["START", "DOWN"], ["START", "UP"]]
    assert int(events[1][1]) == int(events[0][1]) + 1  # event sequence numbers
    t0 = press_ms(board, t_us)
    down_delay, up_delay = int(events[0][4]) - t0, int(events[1][4]) - t0
    print(f"debounce: DOWN {down_delay:.1f} ms, UP {up_delay:.1f} ms after the first contact")
    # millis() starts ~1-2 ms after the reset (C runtime) and steps by 1 ms, so the
    # absolute delays carry a small offset; their difference does not
    assert 8 + 25 - 5 <= down_delay <= 8 + 25 + 4, down_delay
    assert 91 + 25 - 5 <= up_delay <= 91 + 25 + 4, up_delay
    assert abs((up_delay - down_delay) - (91 - 8)) <= 1.5


def test_glitches_shorter_than_debounce_give_no_event(board, link):
    mark = link.mark()
    board.button_sequence("PASS", [(1, 10), (0, 0)])
    board.button_sequence("UNDO", [(1, 20), (0, 2), (1, 20), (0, 2), (1, 20), (0, 0)])
    sim_sleep(board, 0.25)
    assert buttons_since(link, mark) == []
    assert link.command("PING").body == "PONG"


def test_each_button_reports_its_own_name(board, link):
    mark = link.mark()
    for k, name in enumerate(simboard.BUTTONS):
        board.button_sequence(name, [(0, 60 * k), (1, 40), (0, 0)])
    link.wait(lambda l: l.kind == "BUTTON" and l.fields[2:4] == ["UNDO", "UP"], mark)
    events = buttons_since(link, mark)
    assert [e[2:4] for e in events] == [[n, s] for n in simboard.BUTTONS for s in ("DOWN", "UP")]
    seqs = [int(e[1]) for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + 12))


# ---- LEDs ----------------------------------------------------------------------------------


def sample_leds(board: SimBoard, seconds: float, every: float = 0.02) -> list[simboard.LedState]:
    """LED states every ``every`` wall seconds for ``seconds`` of simulated time."""
    states = [board.leds()]
    while states[-1].t_us - states[0].t_us < seconds * 1e6:
        time.sleep(every)
        states.append(board.leds())
    return states


@pytest.mark.parametrize(
    "vertex,row,col", [("D4", 5, 3), ("A9", 0, 0), ("J9", 0, 8), ("A1", 8, 0), ("J1", 8, 8), ("E5", 4, 4)]
)
def test_led_point_lights_its_row_and_column(board, link, vertex, row, col):
    assert link.command(f"LED POINT {vertex}").body == "OK LED POINT"
    time.sleep(0.01)
    leds = board.leds()
    assert leds.lit_rows == [row] and leds.lit_cols == [col]


def test_led_point_is_steady_and_off_turns_it_off(board, link):
    link.command("LED POINT C7")
    time.sleep(0.01)
    assert {s.point for s in sample_leds(board, 0.5, 0.05)} == {vertex_index("C7")}
    assert link.command("LED OFF").body == "OK LED OFF"
    time.sleep(0.01)
    assert board.leds().dark


def test_led_blink_cycles_through_the_points(board, link):
    assert link.command("LED BLINK C3 G7").body == "OK LED BLINK"
    states = sample_leds(board, 1.5)
    shown = [s.point if not s.dark else None for s in states]
    assert all(s.dark or s.point is not None for s in states), "one point at a time"
    assert set(shown) == {None, vertex_index("C3"), vertex_index("G7")}
    # each point is lit ~400 ms, then dark ~200 ms: measure the lit runs
    runs, start = [], None
    for s, point in zip(states, shown):
        if point is not None and start is None:
            start = s
        elif point is None and start is not None:
            runs.append((s.t_us - start.t_us) / 1000)
            start = None
    assert runs and all(300 <= r <= 480 for r in runs[1:] or runs), runs


def test_led_problem_blinks_everything(board, link):
    assert link.command("LED PROBLEM").body == "OK LED PROBLEM"
    states = sample_leds(board, 0.8)
    assert all(s.all_lit or s.dark for s in states)
    assert any(s.all_lit for s in states) and any(s.dark for s in states)
    link.command("LED OFF")


# ---- malformed input -------------------------------------------------------------------------

BAD = [
    ("FOO", "UNKNOWN"),
    ("X" * 100, "TOO_LONG"),
    ("RATE 99", "BAD_ARG"),
    ("RATE", "BAD_ARG"),
    ("RATE x", "BAD_ARG"),
    ("RATE -1", "BAD_ARG"),
    ("LED", "BAD_ARG"),
    ("LED SPARKLE", "BAD_ARG"),
    ("LED POINT", "BAD_ARG"),
    ("LED POINT I5", "BAD_ARG"),
    ("LED POINT Z9", "BAD_ARG"),
    ("LED POINT D0", "BAD_ARG"),
    ("LED POINT D10", "BAD_ARG"),
    ("LED POINT D4 E5", "BAD_ARG"),
    ("LED OFF NOW", "BAD_ARG"),
    ("LED BLINK", "BAD_ARG"),
    ("LED BLINK " + " ".join(["A1"] * 17), "BAD_ARG"),
    ("CAL 0", "BAD_ARG"),
    ("CAL 65", "BAD_ARG"),
    ("PING " + "x" * 17, "BAD_ARG"),
    ("PING a b", "BAD_ARG"),
    ("HELLO there", "BAD_ARG"),
    ("PING*0000", "BAD_CRC"),
    ("PING*12", "BAD_CRC"),
    ("PING*XYZW", "BAD_CRC"),
    ("*FFFF", "UNKNOWN"),  # a valid checksum of nothing
    (b"PI\x01NG", "BAD_CHAR"),
    (b"PING\xff", "BAD_CHAR"),
]


def test_malformed_lines_get_one_err_each_and_change_nothing(board, link):
    link.command("LED POINT D4")
    for text, code in BAD:
        reply = link.command(text)
        assert reply.fields[:2] == ["ERR", code], (text, reply.body)
        assert len(reply.fields) >= 3, "ERR carries a reason"
    time.sleep(0.01)
    assert board.leds().point == vertex_index("D4"), "bad LED commands must not change the LEDs"
    status = dict(f.split("=", 1) for f in link.command("STATUS").fields[1:])
    assert status["rate"] == "25"
    assert int(status["rxerr"]) == sum(c in ("TOO_LONG", "BAD_CRC", "BAD_CHAR") for _, c in BAD)
    assert int(status["cmderr"]) == sum(c in ("UNKNOWN", "BAD_ARG", "BUSY") for _, c in BAD)
    assert link.command("PING").body == "PONG"
    link.command("LED OFF")


def test_flood_without_newline_is_one_err_and_the_link_survives(link):
    mark = link.mark()
    link.send(b"A" * 3000 + b"\n")
    reply = link.wait(lambda l: l.kind not in ASYNC_KINDS, mark, timeout=3)
    assert reply.fields[:2] == ["ERR", "TOO_LONG"]
    assert link.command("PING after").body == "PONG after"
    assert [l for l in link.since(mark) if l.kind == "ERR"] == [reply]
    link.send(b"\n\r\n   \n")  # blank lines: no reply at all
    assert link.command("PING").body == "PONG"
    frames = link.frames(3)
    seqs = [int(f.fields[1]) for f in frames]
    assert seqs == list(range(seqs[0], seqs[0] + 3)) and all(f.crc_ok for f in frames)


def test_reopening_the_port_reboots_the_board(board, link):
    link.command("LED POINT A1")
    link.frames(2)
    link.close()
    deadline = time.monotonic() + 2
    while board.stats()["open"] and time.monotonic() < deadline:
        time.sleep(0.005)
    again = Link(board)
    try:
        hello = again.wait(lambda l: l.kind in ("HELLO", "FRAME"), 0)
        assert hello.kind == "HELLO"
        assert int(again.frames(1, since=0)[0].fields[1]) == 0
        assert board.leds().dark
    finally:
        again.close()
