"""The serial link to the board's firmware: ``firmware/PROTOCOL.md`` version 1 over pyserial.

``SerialLink`` owns the port in one thread. It opens the port for itself alone
(``edge.link.serial_port``: a port another process holds is the named problem
``port_busy``, with that process, never a link that flaps), waits for the board's
``HELLO`` (asking for it after half a second, since a board that does not reset on
open sends none), and reads lines, handing the agent, in order, through ``get``:

| item | when |
|---|---|
| ``LinkEvent("connected", hello)`` | after each successful handshake |
| ``Frame(t, readings, seq)`` (``edge.sensing.classify``) | every valid FRAME line |
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

Every line is checked before use (``edge.link.protocol``: ``*`` and 4 uppercase hex
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
``reply_timeout_s``). This module holds the port, its thread, reconnecting, the
watchdog and the commands; reading lines is ``edge.link.lines``, the items handed on
are ``edge.link.items`` (both re-exported here). Not done here: what frames mean
(``edge.sensing.classify``), or which LED pattern to show (``edge.agent``).
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable

import serial

from edge.link.protocol import Hello, encode_command
from edge.link.items import ButtonChange, CalData, CommandError, LinkEvent, LinkItem
from edge.link.lines import LineReading, _Pending, _Session
from edge.link.serial_port import PortBusy, default_lock_dir, open_exclusive

MAX_OUTSTANDING = 4
MAX_LINE = 1024  # bytes without a newline before the buffer is thrown away as garbage
HELLO_AFTER_S = 0.5  # ask for HELLO when a freshly opened board has not sent one by then


class SerialLink(LineReading):
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


__all__ = ["SerialLink", "ButtonChange", "CalData", "CommandError", "LinkEvent", "LinkItem"]
