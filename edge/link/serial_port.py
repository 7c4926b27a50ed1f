"""Opening the board's serial port for this agent alone, and naming who holds it otherwise.

Two readers on one serial device split its bytes between them: each sees broken lines,
the link flaps and calibration never finishes. ``open_exclusive`` therefore takes the
port three ways before the first byte is read:

| how | keeps out |
|---|---|
| ``flock(LOCK_EX)`` (pyserial's ``exclusive=True``) | a second agent, any program that locks |
| ``TIOCEXCL`` on the open terminal | every later ``open()`` of the device by a non-root process |
| a UUCP lock file ``LCK..<name>`` (in ``lock_dir``, holding our pid) | minicom, picocom and others that honour it |

When any of them fails it raises ``PortBusy`` whose message names the processes that
have the device open (from ``/proc/<pid>/fd``, where the system lets us read it) or the
pid in the lock file. A lock file whose process is gone is stale and taken over.

Not done here: keeping root processes out (``TIOCEXCL`` does not bind root; ModemManager
must be told to ignore the board by a udev rule), or locking pyserial URLs that are
not device paths (``loop://``, ``socket://``), which are opened as they are.
"""

from __future__ import annotations

import errno
import fcntl
import os
import termios
from pathlib import Path
from typing import Any

import serial

DEFAULT_LOCK_DIRS = (Path("/run/lock"), Path("/var/lock"))


class PortBusy(serial.SerialException):
    """The port is held by another process; ``holders`` are ``(pid, name)`` pairs (may be empty)."""

    def __init__(self, port: str, holders: list[tuple[int, str]], detail: str = "") -> None:
        who = ", ".join(f"{name} (pid {pid})" for pid, name in holders) or "another process"
        super().__init__(f"{port} is held by {who}{': ' + detail if detail else ''}; stop it or free the port")
        self.port = port
        self.holders = holders


def port_holders(path: str, proc: Path = Path("/proc")) -> list[tuple[int, str]]:
    """The processes with ``path`` (a device, symlinks resolved) open: ``(pid, command
    name)``, sorted by pid. Processes whose descriptors we may not read are missing."""
    target = os.path.realpath(path)
    try:
        device = os.stat(target).st_rdev or None
    except OSError:
        device = None
    found = []
    try:
        pids = [int(d.name) for d in proc.iterdir() if d.name.isdigit()]
    except OSError:
        return []
    for pid in pids:
        fd_dir = proc / str(pid) / "fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        if any(_is(fd_dir / fd, target, device) for fd in fds):
            found.append((pid, _command_name(proc, pid)))
    return sorted(found)


def _is(fd_link: Path, target: str, device: int | None) -> bool:
    """Whether the descriptor ``fd_link`` is the device ``target`` (by name or device number)."""
    try:
        return os.readlink(fd_link) == target or (device is not None and os.stat(fd_link).st_rdev == device)
    except OSError:  # closed meanwhile, or not ours to read
        return False


def _command_name(proc: Path, pid: int) -> str:
    try:
        return (proc / str(pid) / "comm").read_text().strip() or "?"
    except OSError:
        return "?"


class LockFile:
    """A UUCP lock file ``<dir>/LCK..<device name>`` holding our pid (10 characters and a
    newline). ``acquire`` raises ``PortBusy`` if a live process holds it."""

    def __init__(self, port: str, lock_dir: Path) -> None:
        name = os.path.realpath(port).removeprefix("/dev/").replace("/", "_")
        self.path = lock_dir / f"LCK..{name}"
        self.port = port
        self.held = False

    def acquire(self) -> None:
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                pid = self._owner()
                if pid is not None and pid != os.getpid() and _alive(pid):
                    raise PortBusy(self.port, [(pid, _command_name(Path("/proc"), pid))],
                                   f"lock file {self.path}") from None
                self.path.unlink(missing_ok=True)  # stale (or our own, left over)
                continue
            with os.fdopen(fd, "w") as f:
                f.write(f"{os.getpid():10d}\n")
            self.held = True
            return

    def release(self) -> None:
        if self.held:
            self.held = False
            if self._owner() == os.getpid():
                self.path.unlink(missing_ok=True)

    def _owner(self) -> int | None:
        try:
            return int(self.path.read_text().strip() or "0") or None
        except (OSError, ValueError):
            return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def default_lock_dir() -> Path | None:
    """The first writable UUCP lock directory of this system, or ``None``."""
    for d in DEFAULT_LOCK_DIRS:
        if d.is_dir() and os.access(d, os.W_OK):
            return d
    return None


def open_exclusive(port: str, lock_dir: Path | None = None, **settings: Any) -> Any:
    """Open ``port`` for this process alone (see the module docstring); ``settings`` go
    to ``serial.serial_for_url``. Raises ``PortBusy`` naming the holders, or the
    ``SerialException``/``OSError`` of a port that cannot be opened at all. The lock
    file, if any, is removed when the returned port is closed."""
    if "://" in port:  # a pyserial URL, not a device path (``/dev/ttyACM0``, a symlink to a pty)
        return serial.serial_for_url(port, **settings)
    lock = LockFile(port, lock_dir) if lock_dir is not None else None
    if lock is not None:
        try:
            lock.acquire()
        except OSError:
            lock = None  # a lock directory we cannot write: flock and TIOCEXCL still hold
    try:
        handle = serial.serial_for_url(port, exclusive=True, **settings)
    except serial.SerialException as exc:
        if lock is not None:
            lock.release()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EBUSY):
            raise PortBusy(port, port_holders(port)) from None
        raise
    try:
        fcntl.ioctl(handle.fileno(), termios.TIOCEXCL)
    except (OSError, AttributeError):
        pass  # not a terminal (a plain file in a test): flock still holds
    if lock is not None:
        close = handle.close

        def close_and_unlock() -> None:
            try:
                close()
            finally:
                lock.release()
        handle.close = close_and_unlock
    return handle
