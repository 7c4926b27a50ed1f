"""The simulated board's answers to host commands (``firmware/PROTOCOL.md`` section 3).

``FirmwareCommands`` is the part of ``edge.simulation.pty_board.PtyBoard`` that reads one line
from the host and answers it as the firmware does: HELLO (with any fields changed by
``set_hello``), PING, STATUS, RATE, LED (``LedCommand``: the pattern last set), CAL,
and the ERR codes for a line too long, a non-printable byte, a bad checksum, a bad
argument or an unknown command. It needs the board's ``sim``, ``size``, ``firmware``,
``stats``, ``_rate``, ``_leds``, ``_cal``, ``_hello_fields``, ``host_seen`` and
``_ms``. Not here: the pseudo-terminal, the board's thread and what it sends
(``edge.simulation.pty_board``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from edge.link.protocol import MAX_COMMAND, crc16

FIRMWARE = "sim-1.0.0"
BUTTONS = ("START", "END", "DONE", "ADVICE", "PASS", "UNDO")
_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class LedCommand:
    """The LED pattern the host last set: ``mode`` OFF/POINT/BLINK/PROBLEM, GTP points."""

    mode: str = "OFF"
    points: tuple[str, ...] = ()


class FirmwareCommands:
    """Host commands in, replies out (see the module docstring); mixed into ``PtyBoard``."""

    def _hello(self) -> str:
        fields = {"proto": "1", "fw": self.firmware, "size": str(self.size), "sensors": str(self.size * self.size),
                  "adcmax": "1023", "rate": str(self._rate), "buttons": ",".join(BUTTONS), **self._hello_fields}
        return "HELLO GOBUDDY " + " ".join(f"{k}={v}" for k, v in fields.items())

    def _command(self, raw: bytes) -> str | None:
        if len(raw) > MAX_COMMAND:
            self.stats["rxerr"] += 1
            return "ERR TOO_LONG line longer than 64 bytes"
        if any(b < 0x20 or b > 0x7E for b in raw):
            self.stats["rxerr"] += 1
            return "ERR BAD_CHAR non-printable byte"
        text = raw.decode("ascii")
        if not text.strip():
            return None
        if "*" in text:
            text, _, crc = text.rpartition("*")
            if len(crc) != 4 or crc.upper() != crc16(text.encode("ascii")):
                self.stats["rxerr"] += 1
                return "ERR BAD_CRC checksum mismatch"
        self.host_seen.set()
        fields = text.split()
        reply = self._execute(fields[0].upper() if fields else "", fields[1:])
        if reply.startswith("ERR"):
            self.stats["cmderr"] += 1
        return reply

    def _execute(self, word: str, args: list[str]) -> str:
        if word == "HELLO":
            return self._hello()
        if word == "PING":
            return "PONG" + (f" {args[0][:16]}" if args else "")
        if word == "STATUS":
            up = self._ms(self.sim.t)
            return (f"STATUS up={up} scans={up // 12} scan_us=12000 frames={self.stats['frames']} "
                    f"skipped={self.stats['skipped']} rate={self._rate} led={self._leds.mode} "
                    f"rxerr={self.stats['rxerr']} cmderr={self.stats['cmderr']}")
        if word == "RATE":
            if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= 30:
                return "ERR BAD_ARG RATE needs 0..30"
            self._rate = int(args[0])
            if self._rate:
                self.sim.timing = replace(self.sim.timing, frame_rate=float(self._rate))
            return f"OK RATE {self._rate}"
        if word == "LED":
            return self._led(args)
        if word == "CAL":
            if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 64:
                return "ERR BAD_ARG CAL needs 1..64"
            if self._cal is not None:
                return "ERR BUSY calibration running"
            self._cal = (int(args[0]), math.ceil(int(args[0]) / 3), [])
            return f"OK CAL {args[0]}"
        return f"ERR UNKNOWN unknown command {word[:16]}"

    def _led(self, args: list[str]) -> str:
        mode = args[0].upper() if args else ""
        points = [a.upper() for a in args[1:]]
        if any(not self._vertex_ok(p) for p in points):
            bad = next(p for p in points if not self._vertex_ok(p))
            return f"ERR BAD_ARG bad point {bad[:16]}"
        if mode in ("OFF", "PROBLEM") and not points:
            self._leds = LedCommand(mode)
        elif (mode == "POINT" and len(points) == 1) or (mode == "BLINK" and 1 <= len(points) <= 16):
            self._leds = LedCommand(mode, tuple(points))
        else:
            return "ERR BAD_ARG bad LED command"
        return f"OK LED {mode}"

    def _vertex_ok(self, text: str) -> bool:
        cols = _COLUMNS[:self.size]
        return (len(text) >= 2 and text[0] in cols and text[1:].isdigit()
                and 1 <= int(text[1:]) <= self.size)
