"""A client for one GTP engine running as a subprocess.

``GtpClient(argv, cwd=...)`` starts the engine; ``command("genmove b", timeout=5)``
sends one command and returns the text of its answer (``=`` stripped, multi-line
answers joined with ``\\n``). A ``?`` answer raises ``GtpError``. An engine that does
not answer within the timeout is killed and ``EngineTimeout`` is raised; one that
exits, or cannot be started, raises ``EngineFailure``. After any ``EngineFailure`` the
client is closed: every later command raises again, so a broken engine can never
stall its caller.

The engine's stdout is read by a daemon thread into a queue (so a timeout never
blocks on a read); its stderr goes to a log file (appended) or is discarded, so no
pipe ever fills. The engine runs in its own session, so a Ctrl-C at the terminal
reaches only our process, which then closes the engine (``quit``, then kill).

Not done here: command ids (answers are matched by order, which is safe because a
timed-out engine is killed), and any knowledge of what the commands mean.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Sequence

__all__ = ["EngineFailure", "EngineTimeout", "GtpClient", "GtpError"]

_EOF = None  # queue sentinel: the engine closed its stdout


class GtpError(RuntimeError):
    """The engine answered ``?``: the command failed but the engine is alive."""

    def __init__(self, engine: str, command: str, answer: str) -> None:
        super().__init__(f"{engine}: {command!r} failed: {answer or '(no message)'}")
        self.engine, self.command, self.answer = engine, command, answer


class EngineFailure(RuntimeError):
    """The engine could not be started, died, or broke the protocol; it is closed."""


class EngineTimeout(EngineFailure):
    """The engine did not answer in time; it has been killed."""


class GtpClient:
    """One GTP engine subprocess. Use as a context manager, or call ``close``.

    ``argv``: the command line (a list, no shell). ``cwd``: its working folder.
    ``stderr``: a file the engine's stderr is appended to, or ``None`` to discard it.
    ``name``: used in error messages (default: the program name). ``timeout``: the
    default seconds per command (``None`` waits forever)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | Path | None = None,
        stderr: str | Path | None = None,
        name: str | None = None,
        timeout: float | None = 30.0,
    ) -> None:
        if not argv:
            raise ValueError("an engine command line needs at least the program")
        self.argv = [str(a) for a in argv]
        self.name = name or Path(self.argv[0]).name
        self.timeout = timeout
        self._closed = False
        self._log: IO[bytes] | None = None
        if stderr is not None:
            Path(stderr).parent.mkdir(parents=True, exist_ok=True)
            self._log = open(stderr, "ab")
        try:
            self._proc = subprocess.Popen(
                self.argv,
                cwd=None if cwd is None else str(cwd),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log if self._log is not None else subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            self._close_log()
            self._closed = True
            raise EngineFailure(f"{self.name}: cannot start {' '.join(self.argv)!r}"
                                f"{f' in {cwd}' if cwd else ''}: {exc}") from exc
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, name=f"gtp-{self.name}", daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ plumbing
    def _read_stdout(self) -> None:
        stream = self._proc.stdout
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                self._lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    @property
    def alive(self) -> bool:
        """True while the client is open and the engine process runs."""
        return not self._closed and self._proc.poll() is None

    # ------------------------------------------------------------------ protocol
    def command(self, line: str, timeout: float | None = -1.0) -> str:
        """Send one command and return its answer text (``=`` and padding stripped).

        ``timeout`` in seconds (negative, the default: the client's; ``None``: wait
        forever).
        Raises ``GtpError`` on ``?``; ``EngineTimeout`` (engine killed) when no full
        answer came in time; ``EngineFailure`` when the engine is gone or closed.
        Lines before the first ``=``/``?`` line are ignored (chatty engines)."""
        line = line.strip()
        if not line or "\n" in line:
            raise ValueError(f"a GTP command is one non-empty line, got {line!r}")
        if self._closed:
            raise EngineFailure(f"{self.name}: engine is closed; cannot send {line!r}")
        limit = self.timeout if timeout is not None and timeout < 0 else timeout
        deadline = None if limit is None else time.monotonic() + limit
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()
        except (OSError, ValueError) as exc:
            self._fail()
            raise EngineFailure(f"{self.name}: engine is gone (writing {line!r}: {exc}); "
                                f"exit code {self._proc.poll()}") from exc
        status, body = None, []
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            try:
                if remaining is not None and remaining <= 0:
                    raise queue.Empty
                text = self._lines.get(timeout=remaining)
            except queue.Empty:
                self._fail()
                raise EngineTimeout(f"{self.name}: no answer to {line!r} within {limit:g} s; "
                                    "engine killed") from None
            if text is _EOF:
                self._fail()
                raise EngineFailure(f"{self.name}: engine exited (code {self._proc.poll()}) "
                                    f"while answering {line!r}")
            if status is None:
                if text[:1] not in ("=", "?"):
                    continue
                status = text[0]
                text = text[1:].lstrip("0123456789")  # an optional command id
                body.append(text.strip())
            elif text.strip() == "":
                break
            else:
                body.append(text.rstrip())
        answer = "\n".join(body).strip("\n")
        if status == "?":
            raise GtpError(self.name, line, answer)
        return answer

    def known_command(self, name: str, timeout: float | None = -1.0) -> bool:
        """True if the engine says it implements ``name`` (GTP ``known_command``)."""
        try:
            return self.command(f"known_command {name}", timeout).strip().lower() == "true"
        except GtpError:
            return False

    # ------------------------------------------------------------------ closing
    def _fail(self) -> None:
        """Kill the engine after a protocol failure and mark the client closed."""
        self._closed = True
        self._kill()

    def _kill(self) -> None:
        if self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, 9)  # the engine and anything it started
            except (ProcessLookupError, PermissionError):
                self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        reader = getattr(self, "_reader", None)
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=1.0)
        for stream in (self._proc.stdin, self._proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._close_log()

    def close(self, grace: float = 2.0) -> None:
        """Send ``quit``, wait up to ``grace`` seconds, then kill. Safe to call twice."""
        if self._closed:
            self._kill()
            return
        self._closed = True
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write(b"quit\n")
            self._proc.stdin.flush()
            self._proc.wait(timeout=grace)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self._kill()

    def __enter__(self) -> "GtpClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # last resort: never leave an engine running
        try:
            if getattr(self, "_proc", None) is not None and self._proc.poll() is None:
                self._kill()
        except Exception:
            pass
