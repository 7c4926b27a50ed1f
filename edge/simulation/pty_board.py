"""A simulated board that speaks the firmware's serial protocol over a pseudo-terminal.

``PtyBoard`` stands in for the Arduino: a host opens ``path`` as it would open
``/dev/ttyACM0`` and sees ``firmware/PROTOCOL.md`` v1 (HELLO, FRAME, BUTTON, CALDATA,
replies to every command, ERR codes, CRC-16 on every line). What the sensors read comes
from an ``edge.simulation.simulator.BoardSimulator`` (light model, hand shadows, noise, a lost
frame now and then, visible as a FRAME sequence gap), rendered in real time (or
``speed`` times faster) by one thread.

Driving it: ``place``, ``lay``, ``lift``, ``play``, ``hover``, ``idle``, ``setup`` and ``press``
queue an action for that thread and return a ``Future`` that completes when everything
it made the board send has been sent; between actions the board sends idle frames.
``leds`` is the LED pattern the host last commanded; ``inject`` writes raw bytes
(damaged lines for tests), ``send`` a line with its checksum.

A firmware double for what the simulator's sensors cannot do: ``spoil(fn)`` passes
every frame through ``fn`` on its way out (return a changed ``Frame``, with readings
up to 4095 and any sequence number, or ``None`` to send nothing: a silent board), and
``set_hello(proto=2)`` changes fields of every HELLO from then on (another protocol,
``size=19 sensors=361``). ``unplug``/``replug`` close the
pseudo-terminal (the host's reads fail) and open a new one behind the same ``link``
(a symlink: give the host the link, the pty name changes); ``reset`` reboots the board
(HELLO, sequence numbers from 0, LEDs off). ``sent_at`` maps recent FRAME sequence
numbers to the ``time.monotonic()`` at which they were written (for latency benches).

Differences from the firmware: opening the port does not reset the board (hosts ask
for HELLO), scans are not modelled (``CAL n`` averages the next ``ceil(n / 3)``
frames), a frame that would block on a full pseudo-terminal is skipped and counted.
The answers to host commands are ``edge.simulation.pty_commands`` (``LedCommand`` re-exported
here).
"""

from __future__ import annotations

import collections
import math
import os
import select
import threading
import time
import tty
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence, Union

from edge.sensing.classify import Frame
from edge.link.protocol import crc16
from edge.simulation.pty_commands import BUTTONS, FIRMWARE, FirmwareCommands, LedCommand
from edge.simulation.simulator import BoardSimulator



@dataclass(frozen=True)
class _Button:
    t: float
    name: str
    down: bool


Output = Union[Frame, _Button]


class PtyBoard(FirmwareCommands):
    """One simulated board on a pseudo-terminal; ``start``/``stop`` or a context manager."""

    def __init__(self, simulator: BoardSimulator, *, link: str | os.PathLike[str] | None = None,
                 speed: float = 1.0, firmware: str = FIRMWARE) -> None:
        if speed <= 0:
            raise ValueError("speed must be > 0")
        self.sim = simulator
        self.size = simulator.size
        self.link = Path(link) if link else None
        self.speed = speed
        self.firmware = firmware
        self.sent_at: collections.OrderedDict[int, float] = collections.OrderedDict()
        self.stats = dict.fromkeys(("frames", "skipped", "rxerr", "cmderr", "resets"), 0)
        self.host_seen = threading.Event()
        self._leds = LedCommand()
        self._actions: collections.deque[tuple[Callable[[BoardSimulator], list[Output]], Future]] = collections.deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = self._slave = -1
        self._pty_name = ""
        self._rx = bytearray()
        self._rate = round(simulator.timing.frame_rate)
        self._spoil: Callable[[Frame], Frame | None] | None = None
        self._hello_fields: dict[str, str] = {}
        self._cal: tuple[int, int, list[Sequence[int]]] | None = None  # (n, frames wanted, frames)
        self._reset_state()

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> "PtyBoard":
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="pty-board", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(3.0)
        self._close_pty()
        with self._lock:
            while self._actions:
                self._actions.popleft()[1].cancel()

    def __enter__(self) -> "PtyBoard":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def path(self) -> str:
        """What a host opens: the link if one was given, else the pty's name."""
        return str(self.link) if self.link else self._pty_name

    def unplug(self) -> None:
        """Pull the cable: the pseudo-terminal (and the link) go away until ``replug``."""
        with self._lock:
            self._close_pty()

    def replug(self) -> None:
        """Plug in again: a new pseudo-terminal behind the link; the board boots."""
        with self._lock:
            self._open_pty()
            self._reset_state()

    def reset(self) -> None:
        """Reboot the board: HELLO, sequence numbers from 0, LEDs off."""
        with self._lock:
            self._reset_state()
            self._send(self._hello())

    def leds(self) -> LedCommand:
        return self._leds

    def spoil(self, fn: Callable[[Frame], Frame | None] | None) -> None:
        """Pass every frame through ``fn`` from now on (``None``: frames as they are)."""
        with self._lock:
            self._spoil = fn

    def set_hello(self, **fields: object) -> None:
        """Change (or add) HELLO fields from the next HELLO on: ``set_hello(proto=2)``."""
        with self._lock:
            self._hello_fields.update({k: str(v) for k, v in fields.items()})

    def send(self, body: str) -> bool:
        """Send one line, its checksum added, now (False: no host port)."""
        with self._lock:
            return self._send(body)

    def inject(self, raw: bytes) -> None:
        """Write raw bytes to the host now (line noise, a damaged line: for tests)."""
        with self._lock:
            if self._master >= 0:
                os.write(self._master, raw)

    # ---- actions ---------------------------------------------------------------------------

    def act(self, fn: Callable[[BoardSimulator], list[Output]]) -> Future:
        """Run ``fn(simulator)`` on the board's thread; send what it returns, in time."""
        future: Future = Future()
        with self._lock:
            self._actions.append((fn, future))
        return future

    def place(self, point: int, color: int) -> Future:
        return self.act(lambda sim: list(sim.place(point, color)))

    def lay(self, points: Sequence[int], color: int) -> Future:
        return self.act(lambda sim: list(sim.lay(list(points), color)))

    def lift(self, points: Sequence[int], side: int) -> Future:
        return self.act(lambda sim: list(sim.lift(list(points), side)))

    def play(self, point: int, color: int, captured: Sequence[int] = ()) -> Future:
        return self.act(lambda sim: list(sim.play(point, color, list(captured))))

    def hover(self, point: int | None = None, seconds: float | None = None) -> Future:
        return self.act(lambda sim: list(sim.hover(point, seconds)))

    def idle(self, seconds: float) -> Future:
        return self.act(lambda sim: list(sim.idle(seconds)))

    def setup(self, stones: dict[int, int]) -> Future:
        """Stones appear with no hand (a board as found)."""
        return self.act(lambda sim: (sim.setup(stones), [])[1])

    def press(self, name: str, hold_s: float = 0.12) -> Future:
        """Press a button (START, END, DONE, ADVICE, PASS, UNDO) for ``hold_s``."""
        if name.upper() not in BUTTONS:
            raise ValueError(f"unknown button {name!r}; buttons are {', '.join(BUTTONS)}")

        def fn(sim: BoardSimulator) -> list[Output]:
            down = _Button(sim.t, name.upper(), True)
            frames: list[Output] = list(sim.idle(hold_s))
            return [down, *frames, _Button(sim.t, name.upper(), False)]
        return self.act(fn)

    # ---- the board's thread ------------------------------------------------------------------

    def _run(self) -> None:
        todo: collections.deque[Output] = collections.deque()
        current: Future | None = None
        anchor = (self.sim.t, time.monotonic())
        while not self._stop.is_set():
            if not todo:
                if current is not None:
                    current.set_result(None)
                    current = None
                with self._lock:
                    action = self._actions.popleft() if self._actions else None
                if action is not None:
                    fn, current = action
                    try:
                        todo.extend(fn(self.sim))
                    except Exception as exc:  # a bad action (stone on a stone): tell its caller
                        current.set_exception(exc)
                        current = None
                    continue
                todo.extend(self.sim.idle(1.0 / self.sim.timing.frame_rate))
                continue
            item = todo[0]
            due = anchor[1] + (item.t - anchor[0]) / self.speed
            now = time.monotonic()
            if now - due > 0.5:  # fell behind (a busy machine): do not send a burst
                anchor = (item.t, now)
                due = now
            self._serve_host(max(0.0, due - now))
            if time.monotonic() >= due:
                todo.popleft()
                with self._lock:
                    self._output(item)

    def _serve_host(self, timeout: float) -> None:
        """Read and answer host commands for up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            fd = self._master
            if fd < 0:
                self._stop.wait(max(0.0, min(left, 0.05)))
            else:
                try:
                    ready, _, _ = select.select([fd], [], [], max(0.0, left))
                except (OSError, ValueError):
                    ready = []
                if ready:
                    with self._lock:
                        self._read_host()
            if time.monotonic() >= deadline:
                return

    def _read_host(self) -> None:
        if self._master < 0:
            return
        try:
            data = os.read(self._master, 4096)
        except OSError:
            return
        self._rx += data
        while b"\n" in self._rx:
            line, _, rest = self._rx.partition(b"\n")
            self._rx = bytearray(rest)
            reply = self._command(bytes(line).rstrip(b"\r"))
            if reply is not None:
                self._send(reply)
        if len(self._rx) > 4096:
            self._rx.clear()

    def _output(self, item: Output) -> None:
        if isinstance(item, _Button):
            self._send(f"BUTTON {self._button_seq} {item.name} {'DOWN' if item.down else 'UP'} {self._ms(item.t)}")
            self._button_seq += 1
            return
        if self._cal is not None:
            n, wanted, frames = self._cal
            frames.append(item.readings)
            if len(frames) >= wanted:
                self._cal = None
                means = [math.floor(sum(f[i] for f in frames) / len(frames) + 0.5) for i in range(len(item.readings))]
                self._send(f"CALDATA {n} " + "".join(f"{min(1023, v):03X}" for v in means))
        if self._rate == 0:
            return
        seq = (item.seq or 0) - self._seq_base - 1
        if self._spoil is not None:
            spoiled = self._spoil(Frame(item.t, item.readings, seq))
            if spoiled is None:
                return
            readings, seq = spoiled.readings, spoiled.seq if spoiled.seq is not None else seq
        else:
            readings = item.readings
        data = "".join(f"{min(0xFFF, max(0, int(v))):03X}" for v in readings)
        if self._send(f"FRAME {seq} {self._ms(item.t)} {data}"):
            self.stats["frames"] += 1
            self.sent_at[seq] = time.monotonic()
            while len(self.sent_at) > 4096:
                self.sent_at.popitem(last=False)
        else:
            self.stats["skipped"] += 1

    def _send(self, body: str) -> bool:
        """Write one line; False if there is no port or it would block (nobody reads)."""
        if self._master < 0:
            return False
        try:
            os.write(self._master, f"{body}*{crc16(body.encode('ascii'))}\n".encode("ascii"))
            return True
        except (BlockingIOError, OSError):
            return False

    def _ms(self, t: float) -> int:
        return max(0, round((t - self._t0) * 1000))

    # ---- the pseudo-terminal ------------------------------------------------------------------

    def _open_pty(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self._pty_name = os.ttyname(self._slave)
        if self.link:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self._pty_name)
            os.replace(tmp, self.link)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        self._rx.clear()
        if self.link and self.link.is_symlink():
            self.link.unlink(missing_ok=True)

    def _reset_state(self) -> None:
        self._t0 = self.sim.t
        self._seq_base = self.sim.seq
        self._button_seq = 0
        self._leds = LedCommand()
        self._cal = None
        self.stats["resets"] += 1


__all__ = ["PtyBoard", "LedCommand", "BUTTONS", "FIRMWARE"]
