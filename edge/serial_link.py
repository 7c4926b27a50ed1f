"""The serial link to the board's firmware: ``firmware/PROTOCOL.md`` version 1 over pyserial.

``SerialLink`` owns the port in one thread. It opens the port for itself alone
(``edge.serial_port``: a port another process holds is the named problem
``port_busy``, with that process, never a link that flaps), waits for the board's
``HELLO`` (asking for it after half a second, since a board that does not reset on
open sends none), and reads lines, handing the agent, in order, through ``get``:

| item | when |
|---|---|
| ``LinkEvent("connected", hello)`` | after each successful handshake |
| ``Frame(t, readings, seq)`` (``edge.classify``) | every valid FRAME line |
| ``ButtonChange(t, name, down)`` | every valid BUTTON line (firmware names: START, ...) |
| ``CalData(n, readings)`` | the result of a ``CAL`` |
| ``LinkEvent("rebooted", hello)`` | an unrequested HELLO: the board reset, its LEDs are off |
| ``LinkEvent("disconnected", reason)`` | the port failed or vanished (unplugged) |
| ``LinkEvent("refused", reason)`` | a HELLO this host may not read (see below); nothing is decoded |
| ``LinkEvent("silent", reason)`` / ``LinkEvent("resumed")`` | no FRAME for ``silent_s``; frames again |

Every HELLO, the first of a connection or any later one, is checked
(``board_protocol.hello_mismatch``: protocol version, board size, sensor count,
``adcmax``). A mismatch is refused: the link stays open but decodes nothing but HELLO
lines (asking again every ``hello_retry_s``) until a HELLO it may read arrives.
``problem`` names what is wrong now as ``(code, message)``: ``port_busy``,
``cannot_open``, ``no_hello``, a mismatch code, ``board_silent`` or ``disconnected``.

Time: ``t`` (seconds) is the board's own clock (the ``ms`` field), shifted per
connection so that it never runs backwards across reconnects and reboots (a one-second
gap marks each new connection, which restarts any stability count downstream).

Every line is checked before use (``edge.board_protocol``: ``*`` and 4 uppercase hex
digits, the CRC-16/CCITT of the body, printable ASCII, at most 288 bytes) and so are the
fields of its type (a FRAME carries exactly ``3 * sensors`` hex digits, none above the
HELLO's ``adcmax``). A rejected line is dropped and counted (``stats``: ``crc_errors``,
``framing_errors``, ``out_of_range``); unknown line types are counted and ignored
(forward compatibility). Sequence numbers: a gap no longer than the board's clock
allows is counted as lost (``frames_lost``, ``buttons_lost``); a repeated number is a
duplicate line, dropped and counted (``frames_repeated``, ``buttons_repeated``); any
other step (backwards, or further than time allows) is counted once as a jump
(``seq_jumps``), never as lost lines: no counter wraps or leaps. When the port fails
the link closes it and reopens it with capped exponential backoff.

Commands (``command``) get the CRC suffix, at most 4 wait for their replies, replies
are matched in order (a reply lost on the link fails its command after
``reply_timeout_s``). Not done here: what frames mean (``edge.classify``), or which LED
pattern to show (``edge.agent``).
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Union

import serial

from edge.board_protocol import (Hello, LineError, decode_line, encode_command, hello_mismatch, parse_hello,
                                 parse_readings, uint)
from edge.classify import Frame
from edge.serial_port import PortBusy, default_lock_dir, open_exclusive

MAX_OUTSTANDING = 4
MAX_LINE = 1024  # bytes without a newline before the buffer is thrown away as garbage
HELLO_AFTER_S = 0.5  # ask for HELLO when a freshly opened board has not sent one by then
MAX_RATE = 30  # frames a second at most (PROTOCOL.md, RATE): bounds a believable sequence gap
MIN_BUTTON_MS = 25  # a debounced button change takes at least this long (PROTOCOL.md 2.3)
_REPLIES = {"PONG": "PING", "STATUS": "STATUS", "HELLO": "HELLO"}


class CommandError(RuntimeError):
    """The board answered a command with ``ERR`` (``reply`` holds the line body)."""

    def __init__(self, command: str, reply: str) -> None:
        super().__init__(f"board refused {command!r}: {reply}")
        self.command = command
        self.reply = reply


@dataclass(frozen=True)
class ButtonChange:
    """A debounced button change at board time ``t``: ``name`` as the firmware says it."""

    t: float
    name: str
    down: bool


@dataclass(frozen=True)
class CalData:
    """The firmware's average of ``n`` scans after a ``CAL n`` (protocol order)."""

    n: int
    readings: tuple[int, ...]


@dataclass(frozen=True)
class LinkEvent:
    """``kind``: connected, rebooted, disconnected, refused, silent or resumed; ``hello``
    when connected or rebooted."""

    kind: str
    detail: str = ""
    hello: Hello | None = None


LinkItem = Union[Frame, ButtonChange, CalData, LinkEvent]


@dataclass
class _Pending:
    text: str
    word: str
    future: Future
    sent: float = 0.0


@dataclass
class _Session:
    """Per-connection state: the HELLO, the time base and the sequence numbers."""

    hello: Hello | None = None
    refused: str | None = None
    offset: float | None = None
    frame_seq: int | None = None
    frame_ms: int = 0
    button_seq: int | None = None
    button_ms: int = 0
    last_frame: float = 0.0  # time.monotonic() of the last FRAME (or of the handshake)
    silent: bool = False
    pending: collections.deque = field(default_factory=collections.deque)


class SerialLink:
    """The board's serial port, reopened whenever it fails; see the module docstring.

    ``opener(port)`` returns an open pyserial-like object (default: ``open_exclusive``
    at 115200 baud with a 20 ms read timeout, its lock file in ``lock_dir``, by default
    the system's UUCP lock directory). ``size``: the board size this host reads.
    Thread-safe: ``command`` and ``get`` may be called from any thread."""

    def __init__(self, port: str, *, opener: Callable[[str], Any] | None = None, size: int = 9,
                 backoff_min_s: float = 0.2, backoff_max_s: float = 5.0, hello_timeout_s: float = 3.0,
                 reply_timeout_s: float = 2.0, silent_s: float = 3.0, hello_retry_s: float = 5.0,
                 lock_dir: Path | None = None, logger: logging.Logger | None = None) -> None:
        self.port = port
        self.size = size
        lock = lock_dir if lock_dir is not None else default_lock_dir()
        self._opener = opener or (lambda p: open_exclusive(p, lock, baudrate=115200, timeout=0.02,
                                                           write_timeout=1.0))
        self.backoff_min_s, self.backoff_max_s = backoff_min_s, backoff_max_s
        self.hello_timeout_s, self.reply_timeout_s = hello_timeout_s, reply_timeout_s
        self.silent_s, self.hello_retry_s = silent_s, hello_retry_s
        self.problem: tuple[str, str] | None = None
        self.log = logger or logging.getLogger("edge.serial")
        self._items: queue.Queue = queue.Queue(maxsize=2000)
        self._outbox: collections.deque[_Pending] = collections.deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_t = 0.0
        self._session = _Session()
        self.connected = threading.Event()
        self.stats = dict.fromkeys((
            "lines", "frames", "crc_errors", "framing_errors", "out_of_range", "unknown_lines", "frames_lost",
            "buttons_lost", "frames_repeated", "buttons_repeated", "seq_jumps", "frames_dropped", "connects",
            "disconnects", "reboots", "refused", "silences", "port_busy", "command_errors", "reply_timeouts"), 0)

    # ---- the agent's side ------------------------------------------------------------------

    @property
    def hello(self) -> Hello | None:
        return self._session.hello if self.connected.is_set() else None

    @property
    def rejected(self) -> int:
        """Lines dropped for a bad checksum, bad framing or a reading out of range."""
        return self.stats["crc_errors"] + self.stats["framing_errors"] + self.stats["out_of_range"]

    def start(self) -> "SerialLink":
        self._thread = threading.Thread(target=self._run, name=f"serial-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 3.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def get(self, timeout_s: float | None = None) -> LinkItem | None:
        """The next item from the board, or ``None`` after ``timeout_s``."""
        try:
            return self._items.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def command(self, text: str) -> Future:
        """Queue a command; the future gets the reply's body, or ``CommandError``,
        ``TimeoutError`` or ``ConnectionError``. ``ValueError`` at once for a bad line."""
        encode_command(text)
        pending = _Pending(" ".join(text.split()), text.split()[0].upper(), Future())
        with self._lock:
            self._outbox.append(pending)
        return pending.future

    # ---- the port thread ---------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff_min_s
        while not self._stop.is_set():
            reason = "stopped"
            try:
                port = self._opener(self.port)
            except PortBusy as exc:
                reason = str(exc)
                self.stats["port_busy"] += 1
                if self.problem != ("port_busy", reason):
                    self.log.error("cannot use the board's port: %s", reason)
                    self._emit(LinkEvent("refused", reason))
                self.problem = ("port_busy", reason)
            except (serial.SerialException, OSError, ValueError) as exc:
                reason = f"cannot open {self.port}: {exc}"
                self.problem = ("cannot_open", reason)
            else:
                try:
                    self._serve(port)
                except (serial.SerialException, OSError) as exc:
                    reason = f"link to {self.port} failed: {exc}"
                    if self.problem is None or self.problem[0] == "board_silent":
                        self.problem = ("disconnected", reason)
                finally:
                    try:
                        port.close()
                    except (serial.SerialException, OSError):
                        pass
                if self._session.hello is not None:
                    delay = self.backoff_min_s
            self._down(reason)
            if self._stop.wait(delay):
                break
            delay = min(self.backoff_max_s, delay * 2)

    def _down(self, reason: str) -> None:
        was_up = self.connected.is_set()
        self.connected.clear()
        self._fail_pending(self._session.pending, ConnectionError(reason))
        with self._lock:
            outbox, self._outbox = self._outbox, collections.deque()
        self._fail_pending(outbox, ConnectionError(reason))
        self._session = _Session()
        if reason == "stopped":
            self.problem = None
        if was_up:
            self.stats["disconnects"] += 1
            self.log.log(logging.INFO if reason == "stopped" else logging.WARNING, "board link down: %s", reason)
            self._emit(LinkEvent("disconnected", reason))
        elif reason != "stopped":
            self.log.debug("board link: %s", reason)

    def _serve(self, port: Any) -> None:
        session = self._session = _Session()
        port.reset_input_buffer()
        opened = time.monotonic()
        asked = 0.0
        buf = bytearray()
        while not self._stop.is_set():
            chunk = port.read(max(1, port.in_waiting))
            if chunk:
                buf += chunk
                *lines, rest = buf.split(b"\n")
                buf = bytearray(rest)
                for line in lines:
                    self._line(bytes(line), session)
                if len(buf) > MAX_LINE:
                    self.stats["framing_errors"] += 1
                    buf.clear()
            now = time.monotonic()
            if session.hello is None:
                wait = self.hello_retry_s if session.refused else HELLO_AFTER_S
                if now - max(opened, asked) > wait and not any(p.word == "HELLO" for p in session.pending):
                    self._write(port, _Pending("HELLO", "HELLO", Future()))  # a board that did not reset
                    asked = now
                if session.refused is None and now - opened > self.hello_timeout_s:
                    reason = (f"no HELLO within {self.hello_timeout_s:.1f} s: is this a Go Learning Buddy board?")
                    self.problem = ("no_hello", reason)
                    raise serial.SerialException(reason)
            else:
                self._send_queued(port, session)
                self._watch(session, now)
            self._expire(session, now)

    def _watch(self, session: _Session, now: float) -> None:
        """The watchdog: no FRAME for ``silent_s`` is ``board_silent`` until frames return."""
        if not session.silent and now - session.last_frame > self.silent_s:
            session.silent = True
            self.stats["silences"] += 1
            reason = f"no frame from the board for {now - session.last_frame:.1f} s"
            self.problem = ("board_silent", reason)
            self.log.warning("the board is silent: %s", reason)
            self._emit(LinkEvent("silent", reason))

    def _write(self, port: Any, pending: _Pending) -> None:
        pending.sent = time.monotonic()
        self._session.pending.append(pending)
        port.write(encode_command(pending.text))

    def _send_queued(self, port: Any, session: _Session) -> None:
        while len(session.pending) < MAX_OUTSTANDING:
            with self._lock:
                if not self._outbox:
                    return
                pending = self._outbox.popleft()
            self._write(port, pending)

    def _expire(self, session: _Session, now: float) -> None:
        while session.pending and now - session.pending[0].sent > self.reply_timeout_s:
            pending = session.pending.popleft()
            self.stats["reply_timeouts"] += 1
            if not pending.future.done():
                pending.future.set_exception(TimeoutError(f"no reply to {pending.text!r}"))

    # ---- lines ----------------------------------------------------------------------------------

    def _line(self, raw: bytes, session: _Session) -> None:
        if not raw.strip():
            return
        try:
            fields = decode_line(raw)
            self._dispatch(fields, session)
        except LineError as exc:
            self.stats[{"crc": "crc_errors", "range": "out_of_range"}.get(exc.kind, "framing_errors")] += 1
            self.log.debug("dropped a line from the board (%s): %r", exc, raw[:80])
            return
        self.stats["lines"] += 1

    def _dispatch(self, fields: list[str], session: _Session) -> None:
        kind = fields[0]
        if kind == "HELLO":
            self._on_hello(parse_hello(fields), " ".join(fields), session)
        elif session.hello is None:
            return  # nothing is read before the handshake
        elif kind == "FRAME":
            self._on_frame(fields, session)
        elif kind == "BUTTON":
            self._on_button(fields, session)
        elif kind == "CALDATA":
            if len(fields) < 3:
                raise LineError("framing", "CALDATA needs n and data")
            self._emit(CalData(uint(fields[1], "CALDATA n"),
                               parse_readings(fields[2], session.hello.sensors, session.hello.adcmax)))
        elif kind in ("OK", "ERR", "PONG", "STATUS"):
            self._on_reply(kind, " ".join(fields), session)
        else:
            self.stats["unknown_lines"] += 1

    def _on_hello(self, hello: Hello, body: str, session: _Session) -> None:
        requested = bool(session.pending and session.pending[0].word == "HELLO")
        if requested:
            session.pending.popleft().future.set_result(body)
        mismatch = hello_mismatch(hello, self.size)
        if mismatch is not None:
            self._refuse(session, *mismatch)
            return
        if session.hello is not None and requested:
            return  # the answer to a HELLO command: nothing changed
        refused, session.refused = session.refused, None
        if session.hello is not None:  # unrequested: the board was reset
            self.stats["reboots"] += 1
            self._fail_pending(session.pending, ConnectionResetError("the board rebooted"))
            self._restart(session, hello)
            self.log.warning("the board rebooted")
            self._emit(LinkEvent("rebooted", "unrequested HELLO", hello))
            return
        self._restart(session, hello)
        self.problem = None
        self.stats["connects"] += 1
        self.connected.set()
        self.log.info("board connected on %s: firmware %s, %dx%d, %d frames/s%s", self.port, hello.firmware,
                      hello.size, hello.size, hello.rate, " (after a refused HELLO)" if refused else "")
        self._emit(LinkEvent("connected", self.port, hello))

    def _restart(self, session: _Session, hello: Hello) -> None:
        """A new board session: its HELLO, fresh sequence numbers and time base."""
        session.offset = session.frame_seq = session.button_seq = None
        session.hello, session.silent, session.last_frame = hello, False, time.monotonic()
        if self.problem is not None and self.problem[0] == "board_silent":
            self.problem = None

    def _refuse(self, session: _Session, code: str, reason: str) -> None:
        """A HELLO this host may not read: decode nothing until an acceptable one."""
        if session.refused != reason:
            self.stats["refused"] += 1
            self.log.error("board refused on %s: %s; nothing from it is read", self.port, reason)
            self._emit(LinkEvent("refused", reason))
        self._fail_pending(session.pending, ConnectionRefusedError(reason))
        session.refused, session.hello = reason, None
        self.problem = (code, reason)
        self.connected.clear()

    def _on_reply(self, kind: str, body: str, session: _Session) -> None:
        wanted = _REPLIES.get(kind)
        if kind == "OK":
            wanted = body.split(" ")[1].upper() if " " in body else None
        while session.pending:
            pending = session.pending.popleft()
            if kind == "ERR" or pending.word == wanted:
                if kind == "ERR":
                    self.stats["command_errors"] += 1
                    pending.future.set_exception(CommandError(pending.text, body))
                else:
                    pending.future.set_result(body)
                return
            self.stats["reply_timeouts"] += 1  # its reply was lost on the link
            pending.future.set_exception(TimeoutError(f"the reply to {pending.text!r} was lost"))

    def _time(self, ms: int, session: _Session) -> float:
        if session.offset is None:
            session.offset = self._last_t + 1.0 - ms / 1000.0
        t = session.offset + ms / 1000.0
        self._last_t = max(self._last_t, t)
        return t

    def _on_frame(self, fields: list[str], session: _Session) -> None:
        assert session.hello is not None
        if len(fields) < 4:
            raise LineError("framing", "FRAME needs seq, ms and data")
        seq, ms = uint(fields[1], "FRAME seq"), uint(fields[2], "FRAME ms")
        readings = parse_readings(fields[3], session.hello.sensors, session.hello.adcmax)
        most = (ms - session.frame_ms) % 2**32 * MAX_RATE // 1000 + 1
        if not self._count_seq(seq, session.frame_seq, most, "frames"):
            return
        session.frame_seq, session.frame_ms = seq, ms
        session.last_frame = time.monotonic()
        if session.silent:
            session.silent = False
            if self.problem is not None and self.problem[0] == "board_silent":
                self.problem = None
            self.log.info("frames from the board again")
            self._emit(LinkEvent("resumed", "frames again"))
        self.stats["frames"] += 1
        frame = Frame(self._time(ms, session), readings, seq)
        try:
            self._items.put_nowait(frame)
        except queue.Full:
            self.stats["frames_dropped"] += 1

    def _on_button(self, fields: list[str], session: _Session) -> None:
        if len(fields) < 5 or fields[3] not in ("DOWN", "UP"):
            raise LineError("framing", "BUTTON needs seq, name, DOWN|UP and ms")
        seq, ms = uint(fields[1], "BUTTON seq"), uint(fields[4], "BUTTON ms")
        most = (ms - session.button_ms) % 2**32 // MIN_BUTTON_MS + 1
        if not self._count_seq(seq, session.button_seq, most, "buttons"):
            return
        session.button_seq, session.button_ms = seq, ms
        self._emit(ButtonChange(self._time(ms, session), fields[2], fields[3] == "DOWN"))

    def _count_seq(self, seq: int, last: int | None, most: int, what: str) -> bool:
        """Count the step from ``last`` to ``seq`` (see the module docstring): lost lines when
        at most ``most`` were missed, else a jump; False for a repeat (drop the line)."""
        if last is None:
            return True
        missed = (seq - last - 1) % 2**32
        if missed == 2**32 - 1:
            self.stats[f"{what}_repeated"] += 1
            return False
        if missed <= most:
            self.stats[f"{what}_lost"] += missed
        else:
            self.stats["seq_jumps"] += 1
            self.log.warning("%s sequence jumped from %d to %d", what[:-1], last, seq)
        return True

    def _emit(self, item: LinkItem) -> None:
        try:
            self._items.put(item, timeout=1.0)
        except queue.Full:
            self.log.error("the agent is not reading the board: dropped %r", item)

    @staticmethod
    def _fail_pending(pending: collections.deque, exc: Exception) -> None:
        while pending:
            item = pending.popleft()
            if not item.future.done():
                item.future.set_exception(exc)
