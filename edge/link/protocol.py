"""Lines of the board's serial protocol (``firmware/PROTOCOL.md``, version 1), as text.

| function | does |
|---|---|
| ``crc16`` | CRC-16/CCITT-FALSE of a line body, 4 uppercase hex digits |
| ``encode_command`` | a host command with its ``*CRC`` suffix and newline, at most 64 bytes |
| ``decode_line`` | a line from the board, checked (``*``, checksum, printable ASCII, length) |
| ``parse_readings`` | FRAME / CALDATA sensor data (3 uppercase hex digits a sensor, at most ``adcmax``) |
| ``parse_hello`` | the HELLO fields the host needs (looked up by key; unknown keys ignored) |
| ``hello_mismatch`` | why a HELLO is not a board this host may read (protocol, size, sensors, adcmax) |

A line that fails a check raises ``LineError`` whose ``kind`` (``crc``, ``framing`` or
``range``: a reading above the ``adcmax`` HELLO announced) says which counter it belongs
to. No I/O here: ``edge.link.serial_link`` owns the port, and
``edge.simulation.pty_board`` speaks the board's side.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

PROTO = 1
ADC_MAX = 1023  # the largest reading when HELLO names none (a 10-bit ADC)
MAX_BODY = 288  # bytes of a line body from the board
MAX_COMMAND = 64  # bytes of a host line before its newline, checksum included
_HEX = frozenset(b"0123456789ABCDEF")


class LineError(ValueError):
    """A line from the board that cannot be used; ``kind`` is ``crc``, ``framing`` or ``range``."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


@dataclass(frozen=True)
class Hello:
    """The board's HELLO: protocol version, firmware, geometry, largest reading, frame
    rate, buttons."""

    proto: int
    firmware: str
    size: int
    sensors: int
    rate: int
    buttons: tuple[str, ...]
    adcmax: int = ADC_MAX


def crc16(data: bytes) -> str:
    """CRC-16/CCITT-FALSE as 4 uppercase hex digits (``crc16(b"123456789") == "29B1"``)."""
    return f"{binascii.crc_hqx(data, 0xFFFF):04X}"


def encode_command(text: str) -> bytes:
    """A host line with its checksum: ``"LED POINT D4"`` -> ``b"LED POINT D4*XXXX\\n"``.

    Raises ``ValueError`` for an empty command, a ``*`` or non-printable character, or
    a line longer than the board accepts (64 bytes with the checksum)."""
    body = " ".join(text.split())
    if not body:
        raise ValueError("empty command")
    if "*" in body or any(not 0x20 <= ord(ch) <= 0x7E for ch in body):
        raise ValueError(f"command {body!r} must be printable ASCII without '*'")
    line = f"{body}*{crc16(body.encode('ascii'))}"
    if len(line) > MAX_COMMAND:
        raise ValueError(f"command {body!r} is {len(line)} bytes with its checksum; the board takes {MAX_COMMAND}")
    return line.encode("ascii") + b"\n"


def decode_line(raw: bytes) -> list[str]:
    """The fields of one line from the board (without its ``\\n``); ``LineError`` if the
    framing or the checksum is wrong."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    body, star, crc = raw.rpartition(b"*")
    if not star:
        raise LineError("framing", "no '*' before a checksum")
    if len(crc) != 4 or not set(crc) <= _HEX:
        raise LineError("framing", f"checksum {crc[:8]!r} is not 4 uppercase hex digits")
    if len(body) > MAX_BODY:
        raise LineError("framing", f"body of {len(body)} bytes exceeds {MAX_BODY}")
    if any(b < 0x20 or b > 0x7E or b == 0x2A for b in body):
        raise LineError("framing", "body holds a non-printable character or '*'")
    if crc16(body) != crc.decode("ascii"):
        raise LineError("crc", f"checksum {crc.decode('ascii')} does not match the body")
    fields = body.decode("ascii").split(" ")
    if not fields[0] or "" in fields:
        raise LineError("framing", "empty field")
    return fields


def parse_readings(data: str, sensors: int, adcmax: int = 0xFFF) -> tuple[int, ...]:
    """``3 * sensors`` uppercase hex digits -> readings; ``LineError`` otherwise: ``framing``
    for the digits, ``range`` for a reading above ``adcmax`` (nothing of the line is used)."""
    if len(data) != 3 * sensors or not set(data.encode("ascii")) <= _HEX:
        raise LineError("framing", f"sensor data is not {3 * sensors} uppercase hex digits")
    readings = tuple(int(data[i:i + 3], 16) for i in range(0, len(data), 3))
    top = max(readings)
    if top > adcmax:
        raise LineError("range", f"sensor {readings.index(top)} reads {top}, above the board's adcmax {adcmax}")
    return readings


def parse_hello(fields: list[str]) -> Hello:
    """A HELLO line's fields -> ``Hello``; ``LineError`` when a needed key is bad."""
    if len(fields) < 2 or fields[1] != "GOBUDDY":
        raise LineError("framing", "HELLO without GOBUDDY")
    keys = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
    try:
        return Hello(proto=int(keys["proto"]), firmware=keys.get("fw", "?")[:64], size=int(keys["size"]),
                     sensors=int(keys["sensors"]), rate=int(keys.get("rate", "0")),
                     buttons=tuple(b for b in keys.get("buttons", "").split(",") if b),
                     adcmax=int(keys.get("adcmax", str(ADC_MAX))))
    except (KeyError, ValueError) as exc:
        raise LineError("framing", f"HELLO field missing or bad: {exc}") from None


def hello_mismatch(hello: Hello, size: int) -> tuple[str, str] | None:
    """``(code, reason)`` when ``hello`` is not a board this host may read as ``size`` x
    ``size`` (``protocol_mismatch``, ``size_mismatch``, ``sensor_mismatch``,
    ``adc_mismatch``), else ``None``. Checked on every HELLO, not only the first."""
    if hello.proto != PROTO:
        return "protocol_mismatch", f"the board speaks protocol {hello.proto}, this agent implements {PROTO}"
    if hello.size != size:
        return "size_mismatch", (f"the board is {hello.size}x{hello.size} ({hello.sensors} sensors), "
                                 f"this agent reads {size}x{size}")
    if hello.sensors != size * size:
        return "sensor_mismatch", f"the board announces {hello.sensors} sensors for {size}x{size}, not {size * size}"
    if not 1 <= hello.adcmax <= 0xFFF:
        return "adc_mismatch", f"the board announces adcmax={hello.adcmax}, beyond 3 hex digits"
    return None


def uint(text: str, what: str) -> int:
    """A decimal field (sequence numbers, milliseconds); ``LineError`` otherwise."""
    if not text.isdigit():
        raise LineError("framing", f"{what} {text[:12]!r} is not a decimal number")
    return int(text)


