"""What the host checks of the board before reading it: every HELLO (protocol, size,
sensors, adcmax), readings within adcmax, and a port of its own (flock, a UUCP lock file,
the holders named)."""

from __future__ import annotations

import os
import tty

import pytest

from edge.link.protocol import LineError, hello_mismatch, parse_hello, parse_readings
from edge.link.serial_port import LockFile, PortBusy, open_exclusive, port_holders

HELLO = "HELLO GOBUDDY proto=1 fw=1.0.0 size=9 sensors=81 adcmax=1023 rate=25 buttons=START,END"


@pytest.mark.parametrize("change, code, words", [
    ({}, None, ""),
    ({"proto": "2"}, "protocol_mismatch", "protocol 2"),
    ({"size": "19", "sensors": "361"}, "size_mismatch", "19x19 (361 sensors)"),
    ({"sensors": "80"}, "sensor_mismatch", "80 sensors"),
    ({"adcmax": "5000"}, "adc_mismatch", "adcmax=5000"),
])
def test_every_hello_is_checked(change, code, words):
    fields = dict(f.split("=", 1) for f in HELLO.split()[2:])
    fields.update(change)
    hello = parse_hello(["HELLO", "GOBUDDY", *(f"{k}={v}" for k, v in fields.items())])
    found = hello_mismatch(hello, 9)
    assert (found[0] if found else None) == code
    if found:
        assert words in found[1]


def test_a_hello_without_adcmax_means_a_10_bit_adc():
    assert parse_hello(HELLO.replace(" adcmax=1023", "").split()).adcmax == 1023


def test_readings_above_adcmax_are_a_range_error():
    data = "3FF" * 81
    assert parse_readings(data, 81, 1023)[0] == 1023
    with pytest.raises(LineError) as err:
        parse_readings("400" + data[3:], 81, 1023)
    assert err.value.kind == "range" and "1024" in str(err.value)


def _pty() -> tuple[int, int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


def test_a_port_is_opened_for_one_reader_and_its_holder_named(tmp_path):
    master, slave, name = _pty()
    try:
        first = open_exclusive(name, tmp_path, baudrate=115200, timeout=0.02)
        lock = tmp_path / f"LCK..{name.removeprefix('/dev/').replace('/', '_')}"
        assert int(lock.read_text()) == os.getpid()
        assert os.getpid() in [pid for pid, _ in port_holders(name)]
        with pytest.raises(PortBusy) as busy:
            open_exclusive(name, None, baudrate=115200)  # flock alone keeps it out
        assert f"pid {os.getpid()}" in str(busy.value)
        first.close()
        assert not lock.exists()
        open_exclusive(name, tmp_path, baudrate=115200).close()  # free again
    finally:
        os.close(master)
        os.close(slave)


def test_a_lock_file_of_a_live_process_keeps_the_port_and_a_stale_one_does_not(tmp_path):
    master, slave, name = _pty()
    try:
        lock = LockFile(name, tmp_path)
        lock.path.write_text(f"{os.getppid():10d}\n")  # our parent: alive
        with pytest.raises(PortBusy, match=f"pid {os.getppid()}"):
            lock.acquire()
        lock.path.write_text(f"{2**22 + 12345:10d}\n")  # no such process
        lock.acquire()
        assert int(lock.path.read_text()) == os.getpid()
        lock.release()
        assert not lock.path.exists()
    finally:
        os.close(master)
        os.close(slave)
