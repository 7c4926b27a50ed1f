"""The simulated board answers host lines as PROTOCOL.md section 3 says the firmware does."""

from __future__ import annotations

import pytest
import serial

from edge.simulation.pty_board import PtyBoard
from edge.simulation.sensor_model import SensorModel
from edge.link.protocol import crc16, decode_line
from edge.simulation.simulator import BoardSimulator

CASES = [  # (host line, reply body)
    (b"PING", "PONG"),
    (b"ping 7", "PONG 7"),
    (b"PING*6427", "PONG"),
    (b"PING*0000", "ERR BAD_CRC checksum mismatch"),
    (b"LED POINT D4", "OK LED POINT"),
    (b"led blink c3 g7", "OK LED BLINK"),
    (b"LED POINT I5", "ERR BAD_ARG bad point I5"),
    (b"LED PROBLEM", "OK LED PROBLEM"),
    (b"RATE 31", "ERR BAD_ARG RATE needs 0..30"),
    (b"FOO", "ERR UNKNOWN unknown command FOO"),
    (b"X" * 65, "ERR TOO_LONG line longer than 64 bytes"),
    (b"CAL 0", "ERR BAD_ARG CAL needs 1..64"),
]


@pytest.fixture(scope="module")
def port():
    board = PtyBoard(BoardSimulator(SensorModel(seed=2), seed=2), speed=4.0).start()
    with serial.Serial(board.path, 115200, timeout=2) as link:
        yield link, board
    board.stop()


def reply(link, line: bytes) -> str:
    link.write(line + b"\n")
    while True:
        fields = decode_line(link.readline().rstrip(b"\n"))
        if fields[0] not in ("FRAME", "BUTTON", "CALDATA"):
            return " ".join(fields)


@pytest.mark.parametrize("line, expected", CASES)
def test_replies(port, line, expected):
    link, _ = port
    assert reply(link, line) == expected


def test_hello_cal_and_leds(port):
    link, board = port
    assert reply(link, b"HELLO").startswith("HELLO GOBUDDY proto=1 ")
    assert reply(link, b"LED POINT E5") == "OK LED POINT"
    assert (board.leds().mode, board.leds().points) == ("POINT", ("E5",))
    assert reply(link, b"CAL 6") == "OK CAL 6"
    while (fields := decode_line(link.readline().rstrip(b"\n")))[0] != "CALDATA":
        pass
    assert fields[1] == "6" and len(fields[2]) == 243
    assert crc16(b"CALDATA") and board.stats["rxerr"] >= 2
