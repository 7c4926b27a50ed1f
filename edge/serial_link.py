"""The serial link to the board's firmware: ``firmware/PROTOCOL.md`` version 1 over pyserial.

``SerialLink`` owns the port in one thread. It opens the port (a path such as
``/dev/ttyACM0`` or any pyserial URL), waits for the board's ``HELLO`` (asking for it
after half a second, since a board that does not reset on open sends none), refuses a board that
speaks another ``proto``, then reads lines and hands the agent, in order, through
``get``:

| item | when |
|---|---|
| ``LinkEvent("connected", hello)`` | after each successful handshake |
| ``Frame(t, readings, seq)`` (``edge.classify``) | every valid FRAME line |
| ``ButtonChange(t, name, down)`` | every valid BUTTON line (firmware names: START, ...) |
| ``CalData(n, readings)`` | the result of a ``CAL`` |
| ``LinkEvent("rebooted", hello)`` | an unrequested HELLO: the board reset, its LEDs are off |
| ``LinkEvent("disconnected", reason)`` | the port failed or vanished (unplugged) |
| ``LinkEvent("refused", reason)`` | the device is not a v1 Go Learning Buddy board |

Time: ``t`` (seconds) is the board's own clock (the ``ms`` field), shifted per
connection so that it never runs backwards across reconnects and reboots (a one-second
gap marks each new connection, which restarts any stability count downstream).

Every line is checked before use (``edge.board_protocol``: ``*`` and 4 uppercase hex
digits, the CRC-16/CCITT of the body, printable ASCII, at most 288 bytes) and so are the
fields of its type (a FRAME carries exactly ``3 * sensors`` hex digits). A rejected line is dropped and counted
(``stats``: ``crc_errors``, ``framing_errors``); unknown line types are counted and
ignored (forward compatibility); FRAME and BUTTON sequence gaps are counted as lost.
When the port fails the link closes it and reopens it with capped exponential backoff.

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
from typing import Any, Callable, Union

import serial

from edge.board_protocol import (PROTO, Hello, LineError, decode_line, encode_command, parse_hello, parse_readings,
                                 uint)
from edge.classify import Frame

MAX_OUTSTANDING = 4
MAX_LINE = 1024  # bytes without a newline before the buffer is thrown away as garbage
HELLO_AFTER_S = 0.5  # ask for HELLO when a freshly opened board has not sent one by then
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
    """``kind``: connected, rebooted, disconnected or refused; ``hello`` when connected."""

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
    offset: float | None = None
    frame_seq: int | None = None
    button_seq: int | None = None
    pending: collections.deque = field(default_factory=collections.deque)


class SerialLink:
    """The board's serial port, reopened whenever it fails; see the module docstring.

    ``opener(port)`` returns an open pyserial-like object (default: ``serial_for_url``
    at 115200 baud with a 20 ms read timeout). Thread-safe: ``command`` and ``get`` may
    be called from any thread."""

    def __init__(self, port: str, *, opener: Callable[[str], Any] | None = None, backoff_min_s: float = 0.2,
                 backoff_max_s: float = 5.0, hello_timeout_s: float = 3.0, reply_timeout_s: float = 2.0,
                 logger: logging.Logger | None = None) -> None:
        self.port = port
        self._opener = opener or (lambda p: serial.serial_for_url(p, baudrate=115200, timeout=0.02,
                                                                   write_timeout=1.0))
        self.backoff_min_s, self.backoff_max_s = backoff_min_s, backoff_max_s
        self.hello_timeout_s, self.reply_timeout_s = hello_timeout_s, reply_timeout_s
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
            "lines", "frames", "crc_errors", "framing_errors", "unknown_lines", "frames_lost", "buttons_lost",
            "frames_dropped", "connects", "disconnects", "reboots", "refused", "command_errors",
            "reply_timeouts"), 0)

    # ---- the agent's side ------------------------------------------------------------------

    @property
    def hello(self) -> Hello | None:
        return self._session.hello if self.connected.is_set() else None

    @property
    def rejected(self) -> int:
        """Lines dropped for a bad checksum or bad framing."""
        return self.stats["crc_errors"] + self.stats["framing_errors"]

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
            except (serial.SerialException, OSError, ValueError) as exc:
                reason = f"cannot open {self.port}: {exc}"
            else:
                try:
                    self._serve(port)
                except (serial.SerialException, OSError) as exc:
                    reason = f"link to {self.port} failed: {exc}"
                except _Refused as exc:
                    reason = str(exc)
                    self.stats["refused"] += 1
                    self._emit(LinkEvent("refused", reason))
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
        asked = False
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
            if session.hello is None and not asked and now - opened > HELLO_AFTER_S:
                self._write(port, _Pending("HELLO", "HELLO", Future()))  # a board that did not reset
                asked = True
            if session.hello is None and now - opened > self.hello_timeout_s:
                raise serial.SerialException(f"no HELLO within {self.hello_timeout_s:.1f} s: is this a Go Learning "
                                             "Buddy board?")
            if session.hello is not None:
                self._send_queued(port, session)
            self._expire(session, now)

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
            self.stats["crc_errors" if exc.kind == "crc" else "framing_errors"] += 1
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
            self._emit(CalData(uint(fields[1], "CALDATA n"), parse_readings(fields[2], session.hello.sensors)))
        elif kind in ("OK", "ERR", "PONG", "STATUS"):
            self._on_reply(kind, " ".join(fields), session)
        else:
            self.stats["unknown_lines"] += 1

    def _on_hello(self, hello: Hello, body: str, session: _Session) -> None:
        if session.pending and session.pending[0].word == "HELLO":
            pending = session.pending.popleft()
            pending.future.set_result(body)
        elif session.hello is not None:  # unrequested: the board was reset
            self.stats["reboots"] += 1
            self._fail_pending(session.pending, ConnectionResetError("the board rebooted"))
            session.offset = session.frame_seq = session.button_seq = None
            session.hello = hello
            self.log.warning("the board rebooted")
            self._emit(LinkEvent("rebooted", "unrequested HELLO", hello))
            return
        if session.hello is None:
            if hello.proto != PROTO:
                raise _Refused(f"board speaks protocol {hello.proto}, this host implements {PROTO}")
            session.hello = hello
            self.stats["connects"] += 1
            self.connected.set()
            self.log.info("board connected on %s: firmware %s, %dx%d, %d frames/s", self.port, hello.firmware,
                          hello.size, hello.size, hello.rate)
            self._emit(LinkEvent("connected", self.port, hello))

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
        readings = parse_readings(fields[3], session.hello.sensors)
        if session.frame_seq is not None:
            self.stats["frames_lost"] += (seq - session.frame_seq - 1) % 2**32
        session.frame_seq = seq
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
        if session.button_seq is not None:
            self.stats["buttons_lost"] += (seq - session.button_seq - 1) % 2**32
        session.button_seq = seq
        self._emit(ButtonChange(self._time(ms, session), fields[2], fields[3] == "DOWN"))

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


class _Refused(Exception):
    """The device on the port is not a board this host may drive."""
