"""How the serial link reads the board's lines: HELLO checks, frames, buttons, replies.

``LineReading`` is the part of ``edge.link.serial_link.SerialLink`` that turns one checked
line (``edge.link.protocol``) into what the agent gets, per connection (``_Session``):

- every HELLO is checked (``hello_mismatch``: protocol version, board size, sensor
  count, ``adcmax``); a mismatch is refused (nothing decoded until an acceptable
  HELLO); an unrequested HELLO is a reboot;
- FRAME and BUTTON lines: their fields bounded (readings up to the HELLO's
  ``adcmax``), sequence numbers counted (lost, repeated, jumped: no counter wraps or
  leaps) and their board time shifted so that it never runs backwards;
- replies matched in order to the commands waiting for them.

It needs the link's ``stats``, ``log``, ``problem``, ``connected``, ``size``, ``port``,
``_last_t``, ``_items``, ``_emit`` and ``_fail_pending``. Not here: the port, its
thread, reconnecting, the watchdog and the command queue (``edge.link.serial_link``).
"""

from __future__ import annotations

import collections
import queue
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

from edge.link.protocol import Hello, LineError, decode_line, hello_mismatch, parse_hello, parse_readings, uint
from edge.sensing.classify import Frame
from edge.link.items import ButtonChange, CalData, CommandError, LinkEvent

MAX_RATE = 30  # frames a second at most (PROTOCOL.md, RATE): bounds a believable sequence gap
MIN_BUTTON_MS = 25  # a debounced button change takes at least this long (PROTOCOL.md 2.3)
_REPLIES = {"PONG": "PING", "STATUS": "STATUS", "HELLO": "HELLO"}


@dataclass
class _Pending:
    """A command sent (or to send) and the future of its reply."""

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


class LineReading:
    """Lines in, items out (see the module docstring); mixed into ``SerialLink``."""

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
