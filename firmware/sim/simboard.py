"""A simulated Go Learning Buddy board: the real firmware on simavr, driven from Python.

``SimBoard`` builds the firmware and the simavr harness (``make -C firmware``), starts
``firmware/build/simharness`` and gives you:

* ``pty_path``: the board's serial port, a pseudo-terminal that speaks
  ``firmware/PROTOCOL.md`` at (simulated) 115200 baud. Open it like ``/dev/ttyACM0``.
  As on a real Mega, opening the port resets the board (auto-reset on DTR), so the first
  line a new host reads is a fresh ``HELLO``; pass ``reset_on_open=False`` to keep it
  running instead.
* sensor voltages (``set_sensors_mv``, ``set_sensors_raw``), in protocol order: index
  ``row * 9 + col``, row 0 the top row (GTP row 9), col 0 column A; the same flat index
  as ``gobuddy.go.coords``;
* buttons (``press``, ``release``, ``tap``, ``button_sequence``) by protocol name;
* the row/column LEDs as the pins drive them (``leds()``).

The simulation runs in real time by default (``speed=1.0``), so baud rate, debounce and
blink timing behave as on the board. Standard library and pyserial only; imports nothing
else of the project, so the edge agent's tests can use it as they are.

Example::

    with SimBoard() as board:
        board.set_sensors_mv([2500] * 81)
        with board.open_serial() as port:
            print(port.readline())           # b'HELLO GOBUDDY proto=1 ...*CCCC\\n'
        board.tap("ADVICE")

Not thread-safe for concurrent ``start``/``stop``; the control methods may be called from
any thread (one command at a time, serialised by a lock).
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

FIRMWARE_DIR = Path(__file__).resolve().parents[1]
ARDUINO_CORE = Path("/usr/share/arduino/hardware/arduino/avr/cores/arduino")
SIMAVR_HEADER = Path("/usr/include/simavr/sim_avr.h")

SIZE = 9
SENSORS = SIZE * SIZE
BUTTONS = ("START", "END", "DONE", "ADVICE", "PASS", "UNDO")
VREF_MV = 5000
ADC_MAX = 1023
LIGHT_RAW = 650  # a typical uncovered sensor in room light (see PINMAP.md)
COVERED_RAW = 80  # a typical sensor under a stone
GTP_COLUMNS = "ABCDEFGHJ"  # 9x9: no I


class SimBoardError(RuntimeError):
    """The harness could not be built or started, died, or refused a command."""


def tools_missing() -> str | None:
    """Why the simulated board cannot be built here, or ``None`` if it can.

    Checks for avr-gcc, the Arduino AVR core, libsimavr's headers, make and a C compiler
    (Debian: gcc-avr avr-libc arduino-core-avr simavr libsimavr-dev libelf-dev make gcc)."""
    for tool in ("avr-gcc", "avr-g++", "make", "cc"):
        if shutil.which(tool) is None:
            return f"{tool} not found (apt: gcc-avr avr-libc make gcc)"
    if not ARDUINO_CORE.is_dir():
        return f"Arduino AVR core not found at {ARDUINO_CORE} (apt: arduino-core-avr)"
    if not SIMAVR_HEADER.is_file():
        return f"simavr headers not found at {SIMAVR_HEADER} (apt: simavr libsimavr-dev libelf-dev)"
    return None


def build(firmware_dir: Path = FIRMWARE_DIR) -> tuple[Path, Path]:
    """Run ``make -C firmware_dir`` (incremental) and return (firmware ELF, harness binary).

    Raises ``SimBoardError`` with make's output if the build fails."""
    result = subprocess.run(
        ["make", "-C", str(firmware_dir), "all"], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SimBoardError(f"firmware build failed:\n{result.stdout}\n{result.stderr}")
    return firmware_dir / "build" / "gobuddy_board.elf", firmware_dir / "build" / "simharness"


def mv_for_raw(raw: int) -> int:
    """Millivolts that make the firmware read exactly ``raw`` (0..1023).

    The simulated ADC computes ``raw = mV * 1023 // 5000``; this is the smallest such mV."""
    if not 0 <= raw <= ADC_MAX:
        raise ValueError(f"raw reading must be 0..{ADC_MAX}, got {raw}")
    return -(-raw * VREF_MV // ADC_MAX)


def raw_for_mv(mv: int) -> int:
    """The reading (0..1023) the firmware gets for ``mv`` millivolts."""
    return min(ADC_MAX, mv * ADC_MAX // VREF_MV)


def vertex_index(vertex: str) -> int:
    """GTP vertex on the 9x9 board (``"A9"`` top left, ``"J1"`` bottom right) -> sensor index.

    The same mapping as ``gobuddy.go.coords.from_gtp(vertex, 9)``, repeated here so this
    module stays free of project imports. Raises ``ValueError`` for anything else."""
    text = vertex.strip().upper()
    if len(text) != 2 or text[0] not in GTP_COLUMNS or text[1] not in "123456789":
        raise ValueError(f"{vertex!r} is not a 9x9 GTP vertex")
    return (SIZE - int(text[1])) * SIZE + GTP_COLUMNS.index(text[0])


@dataclass(frozen=True)
class LedState:
    """The LED pins at one instant of simulated time.

    ``rows[r]`` is the LED of row r (0 = top row, GTP row 9); ``cols[c]`` of column c
    (0 = column A)."""

    rows: tuple[bool, ...]
    cols: tuple[bool, ...]
    heartbeat: bool
    t_us: int

    @property
    def lit_rows(self) -> list[int]:
        return [r for r, on in enumerate(self.rows) if on]

    @property
    def lit_cols(self) -> list[int]:
        return [c for c, on in enumerate(self.cols) if on]

    @property
    def dark(self) -> bool:
        """No row or column LED lit (the heartbeat does not count)."""
        return not any(self.rows) and not any(self.cols)

    @property
    def all_lit(self) -> bool:
        return all(self.rows) and all(self.cols)

    @property
    def point(self) -> int | None:
        """Sensor index pointed at when exactly one row and one column are lit, else None."""
        rows, cols = self.lit_rows, self.lit_cols
        if len(rows) == 1 and len(cols) == 1:
            return rows[0] * SIZE + cols[0]
        return None


class SimBoard:
    """One simulated board (one harness process). Use as a context manager or start/stop.

    Args:
        firmware_dir: the ``firmware/`` folder (default: the one this file lives in).
        build_first: run ``make`` before starting (incremental, about a second when
            up to date).
        speed: simulated seconds per wall-clock second; 1.0 is real time, 0 runs as fast
            as the machine allows (timing tests then measure simulated time).
        reset_on_open: reset the MCU whenever a host opens the serial pty.
        link: optional path made a symlink to the pty (stable name for configs).
        log_path: where the harness's stderr goes (default: a temporary file, removed by
            a clean ``stop`` and kept, at ``log_path``, when the harness failed).
        start_timeout: seconds to wait for the harness to come up.
    """

    def __init__(
        self,
        firmware_dir: Path | str = FIRMWARE_DIR,
        *,
        build_first: bool = True,
        speed: float = 1.0,
        reset_on_open: bool = True,
        link: Path | str | None = None,
        log_path: Path | str | None = None,
        start_timeout: float = 10.0,
    ) -> None:
        self.firmware_dir = Path(firmware_dir)
        self.build_first = build_first
        self.speed = speed
        self.reset_on_open = reset_on_open
        self.link = Path(link) if link else None
        self.log_path = Path(log_path) if log_path else None
        self.start_timeout = start_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._pty: str | None = None
        self._lock = threading.Lock()
        self._buf = b""
        self._own_log = False

    # ---- lifecycle -------------------------------------------------------------

    def start(self) -> "SimBoard":
        """Build if asked, launch the harness and wait until its pty exists. Returns self."""
        if self._proc is not None:
            raise SimBoardError("board already started")
        if self.build_first:
            elf, harness = build(self.firmware_dir)
        else:
            elf = self.firmware_dir / "build" / "gobuddy_board.elf"
            harness = self.firmware_dir / "build" / "simharness"
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="gobuddy-simboard-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
            self._own_log = True
        args = [str(harness), "--speed", repr(float(self.speed))]
        if not self.reset_on_open:
            args.append("--no-reset-on-open")
        if self.link:
            args += ["--link", str(self.link)]
        args.append(str(elf))
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0
            )
        line = self._readline(self.start_timeout)
        if not line.startswith("PTY "):
            self.stop()
            raise SimBoardError(f"harness did not start: {line!r} (log: {self.log_path})")
        self._pty = line[4:]
        return self

    def stop(self) -> None:
        """Stop the harness (idempotent). The pty disappears."""
        proc, self._proc = self._proc, None
        self._pty = None
        if proc is None:
            return
        clean = False
        try:
            if proc.poll() is None and proc.stdin:
                proc.stdin.write(b"QUIT\n")
                proc.stdin.flush()
            clean = proc.wait(timeout=3) == 0
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            for stream in (proc.stdin, proc.stdout):
                if stream:
                    stream.close()
        if clean and self._own_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None
            self._own_log = False

    def __enter__(self) -> "SimBoard":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pty_path(self) -> str:
        """Path of the board's serial port (e.g. ``/dev/pts/7``)."""
        if self._pty is None:
            raise SimBoardError("board not started")
        return self._pty

    def open_serial(self, timeout: float = 1.0):  # -> serial.Serial
        """Open the board's serial port with pyserial (115200 8N1). Resets the board
        unless ``reset_on_open=False``. The caller closes it."""
        import serial  # pyserial; imported here so the rest works without it

        return serial.Serial(self.pty_path, 115200, timeout=timeout)

    # ---- sensors ---------------------------------------------------------------

    def set_sensor_mv(self, index: int, mv: int) -> None:
        """Voltage (0..5000 mV) at one sensor, by protocol index 0..80."""
        self._command(f"SET {int(index)} {int(mv)}")

    def set_sensors_mv(self, values: Sequence[int]) -> None:
        """Voltages (0..5000 mV) of all 81 sensors, in protocol order."""
        values = [int(v) for v in values]
        if len(values) != SENSORS:
            raise ValueError(f"need {SENSORS} values, got {len(values)}")
        self._command("SETALL " + " ".join(map(str, values)))

    def set_sensor_raw(self, index: int, raw: int) -> None:
        """Make the firmware read exactly ``raw`` (0..1023) at one sensor."""
        self.set_sensor_mv(index, mv_for_raw(raw))

    def set_sensors_raw(self, values: Sequence[int]) -> None:
        """Make the firmware read exactly these 81 raw values (protocol order)."""
        self.set_sensors_mv([mv_for_raw(int(v)) for v in values])

    def set_covered(
        self, covered: Iterable[int], *, light_raw: int = LIGHT_RAW, covered_raw: int = COVERED_RAW
    ) -> None:
        """Board with stones on the ``covered`` sensor indices (shaded) and every other
        intersection in the light. Stones of either colour shade their sensor; which
        colour is there is the host's inference, not the board's."""
        shaded = set(covered)
        if not shaded <= set(range(SENSORS)):
            raise ValueError(f"sensor indices are 0..{SENSORS - 1}")
        self.set_sensors_raw([covered_raw if i in shaded else light_raw for i in range(SENSORS)])

    def set_spare_mv(self, mv: int) -> None:
        """Voltage read on unused multiplexer channels (never part of a frame)."""
        self._command(f"SPARE {int(mv)}")

    # ---- buttons ---------------------------------------------------------------

    def press(self, name: str) -> int:
        """Press and hold a button (START, END, DONE, ADVICE, PASS, UNDO).
        Returns the simulated time (us) of the press."""
        return self._t_us(self._command(f"BTN {self._button(name)} 1"))

    def release(self, name: str) -> int:
        """Release a button; returns the simulated time (us) of the release."""
        return self._t_us(self._command(f"BTN {self._button(name)} 0"))

    def tap(self, name: str, hold_ms: float = 100.0) -> int:
        """Press for ``hold_ms`` of simulated time, then release. Returns at once, with
        the simulated time (us) of the press."""
        return self.button_sequence(name, [(1, hold_ms), (0, 0)])

    def button_sequence(self, name: str, steps: Iterable[tuple[int | bool, float]]) -> int:
        """Drive a button through ``(pressed, hold_ms)`` steps in simulated time, starting
        now, exactly timed (for bounce tests). The last level stays. Returns at once, with
        the simulated time (us) at which the first step was applied."""
        parts = []
        for pressed, hold_ms in steps:
            if hold_ms < 0:
                raise ValueError("hold_ms must be >= 0")
            parts.append(f"{1 if pressed else 0}:{float(hold_ms):.3f}")
        if not parts:
            raise ValueError("need at least one step")
        return self._t_us(self._command(f"BTNSEQ {self._button(name)} " + " ".join(parts)))

    # ---- LEDs, time, MCU ---------------------------------------------------------

    def leds(self) -> LedState:
        """The row/column LED pins (and heartbeat) right now."""
        fields = dict(item.split("=", 1) for item in self._command("LEDS?").split())
        return LedState(
            rows=tuple(ch == "1" for ch in fields["rows"]),
            cols=tuple(ch == "1" for ch in fields["cols"]),
            heartbeat=fields["hb"] == "1",
            t_us=int(fields["t_us"]),
        )

    def sim_time_us(self) -> int:
        """Simulated microseconds since the harness started (monotonic across resets)."""
        return int(self._command("TIME?"))

    def stats(self) -> dict[str, int]:
        """Harness counters: t_us (now), reset_us (simulated time of the last MCU reset;
        the firmware's millis() counts from there), tx/rx bytes on the serial link, dropped
        bytes, resets, crashes (simavr stops, e.g. a watchdog timeout), open (a host has the
        pty)."""
        return {k: int(v) for k, v in (item.split("=", 1) for item in self._command("STATS?").split())}

    def reset(self) -> None:
        """Reset the MCU (like the reset button); the firmware boots and sends HELLO."""
        self._command("RESET")

    # ---- control channel -----------------------------------------------------------

    @staticmethod
    def _t_us(reply: str) -> int:
        return int(reply.split("=", 1)[1])

    @staticmethod
    def _button(name: str) -> str:
        upper = name.upper()
        if upper not in BUTTONS:
            raise ValueError(f"unknown button {name!r}; buttons are {', '.join(BUTTONS)}")
        return upper

    def _readline(self, timeout: float) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SimBoardError(f"harness did not answer within {timeout} s (log: {self.log_path})")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    raise SimBoardError(f"harness exited (log: {self.log_path})")
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("ascii", "replace").strip()

    def _command(self, text: str, timeout: float = 5.0) -> str:
        """Send one control line; return the text after ``OK`` or raise ``SimBoardError``."""
        with self._lock:
            if not self.running:
                raise SimBoardError("board not running")
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(text.encode("ascii") + b"\n")
                self._proc.stdin.flush()
            except OSError as exc:
                raise SimBoardError(f"harness gone: {exc}") from exc
            line = self._readline(timeout)
        if line == "OK":
            return ""
        if line.startswith("OK "):
            return line[3:]
        raise SimBoardError(f"{text.split()[0]}: {line}")
