"""The serial link: PROTOCOL.md framing and checksums (tables), rejected lines counted
and reported, and a board unplugged and plugged in again mid-game with no false move."""

from __future__ import annotations

import time

import pytest

from edge.link.protocol import LineError, crc16, decode_line, encode_command, parse_hello, parse_readings
from tests.edge.agent.rig import AgentRig, wait_until

FRAME_E5 = ("FRAME 3 121 " + "258" * 40 + "078" + "258" * 40).encode()


def line(body: bytes) -> bytes:
    return body + b"*" + crc16(body).encode()


def test_crc_matches_the_protocol_examples():
    assert crc16(b"123456789") == "29B1"
    assert crc16(b"PONG") == "D687"
    assert crc16(b"PING") == "6427"
    assert line(FRAME_E5).endswith(b"*A343")


@pytest.mark.parametrize("command, wire", [
    ("PING", b"PING*6427\n"),
    ("led  point d4", b"led point d4*" + crc16(b"led point d4").encode() + b"\n"),
    ("LED BLINK " + " ".join(["A1"] * 16), b"LED BLINK " + b" ".join([b"A1"] * 16) + b"*"
     + crc16(b"LED BLINK " + b" ".join([b"A1"] * 16)).encode() + b"\n"),
])
def test_commands_carry_their_checksum(command, wire):
    assert encode_command(command) == wire


@pytest.mark.parametrize("command, reason", [
    ("", "empty"), ("PING*", "without '*'"), ("PING \x01", "printable"), ("PING é", "printable"), ("LED BLINK " + "A1 " * 17, "64"),
])
def test_bad_commands_are_refused_before_sending(command, reason):
    with pytest.raises(ValueError, match=reason):
        encode_command(command)


@pytest.mark.parametrize("raw, kind", [
    (b"PONG*D687", None),
    (b"PONG*D687\r", None),
    (b"PONG*D688", "crc"),  # one bit of the checksum
    (b"PONF*D687", "crc"),  # one bit of the body
    (b"PONG", "framing"),  # no checksum
    (b"PONG*d687", "framing"),  # lower-case hex
    (b"PONG*D68", "framing"),
    (b"PO\x01NG*" + crc16(b"PO\x01NG").encode(), "framing"),
    (b"PONG  7*" + crc16(b"PONG  7").encode(), "framing"),  # empty field
    (b"X" * 289 + b"*" + crc16(b"X" * 289).encode(), "framing"),
])
def test_lines_from_the_board_are_checked(raw, kind):
    if kind is None:
        assert decode_line(raw) == ["PONG"]
    else:
        with pytest.raises(LineError) as err:
            decode_line(raw)
        assert err.value.kind == kind


def test_frame_data_and_hello_fields():
    fields = decode_line(line(FRAME_E5))
    readings = parse_readings(fields[3], 81)
    assert readings[40] == 0x78 and readings[0] == 0x258 and len(readings) == 81
    with pytest.raises(LineError):
        parse_readings(fields[3][:-3], 81)
    assert parse_readings("3FF" + fields[3][3:], 81)[0] == 1023
    with pytest.raises(LineError):
        parse_readings("3ff" + fields[3][3:], 81)  # lower case
    hello = parse_hello("HELLO GOBUDDY proto=1 fw=1.0.0 size=9 sensors=81 adcmax=1023 rate=25 "
                        "buttons=START,END,DONE,ADVICE,PASS,UNDO future=7".split())
    assert (hello.proto, hello.firmware, hello.size, hello.rate, hello.buttons[3]) == (1, "1.0.0", 9, 25, "ADVICE")


def test_unplug_replug_reconnects_without_false_moves_and_counts_bad_lines(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path, status_every_s=0.2) as rig:
        rig.press("START")
        rig.play("E5 C3")
        observer.wait_moves(2)
        link = rig.agent.link
        rig.board.inject(line(FRAME_E5)[:-1] + b"0\n")  # damaged checksum
        rig.board.inject(b"FRAME 1 2 3*\n")  # broken framing
        rig.board.inject(line(b"FRAME 9 9 ABC") + b"\n")  # a frame too short
        rig.board.inject(line(b"NEWS from the future") + b"\n")  # unknown type: ignored, not rejected
        # The lines are read in order, but the counters are read from another thread: wait for the last one.
        wait_until(lambda: link.stats["unknown_lines"] >= 1, 5, "the unknown line to be read")
        assert link.stats["crc_errors"] >= 1 and link.stats["framing_errors"] >= 2
        wait_until(lambda: (s := observer.status()) and s["details"]["serial_rejected"] >= 3, 5,
                   "rejected lines in the status")

        events_before = len(observer.events())
        rig.board.unplug()
        wait_until(lambda: not link.connected.is_set(), 5, "the link to notice")
        time.sleep(1.0)
        rig.board.replug()
        wait_until(lambda: link.stats["connects"] >= 2, 10, "the reconnect")
        time.sleep(1.0)  # the board is read again: the same stones, nothing new
        assert len(observer.events()) == events_before
        rig.play("G7")
        assert observer.wait_moves(3) == ["B E5", "W C3", "B G7"]
        assert link.stats["disconnects"] >= 1
