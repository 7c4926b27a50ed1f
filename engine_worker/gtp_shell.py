"""The GTP version 2 protocol shell: lines in, framed responses out, no Go inside.

What it does, following the specification (sections 2 and 3):

* Preprocessing of every input line: control characters other than HT and LF are
  removed, text from ``#`` on is a comment, HT becomes a space, and lines that are then
  empty or white space are discarded.
* A command is ``[id] name [arguments...]``: an optional unsigned integer id, a
  case-sensitive name (``NAME`` is not ``name``), space-separated arguments.
* A success is ``=[id] text`` and a failure ``?[id] message``; every response ends with
  an empty line. Handlers return text; a blank line inside it would end the response
  early, so blank lines are dropped from the text.
* ``GtpError("illegal move")`` from a handler answers ``? illegal move``; any other
  exception answers ``? internal error: ...`` and never stops the shell.

Commands are plain functions registered by name (``register``), so an engine adds or
replaces commands without touching the shell. A *streaming* command
(``register(name, fn, streaming=True)``, e.g. ``lz-analyze``) gets a ``Stream``: it
writes lines as it goes and stops when ``stream.interrupted()`` says the next command
(or the end of input) has arrived. For that, ``run`` reads input on a thread into a
queue. Its response is ``=[id]``, then its lines, then the empty line.

Not handled here: ``quit`` and everything about Go (see ``engine_worker.gtp_engine``).
"""

from __future__ import annotations

import io
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

_DROP = {c: None for c in range(32) if c not in (9, 10)}
_DROP[127] = None


class GtpError(Exception):
    """A command failed; ``str(error)`` is the message after ``?``, in the spec's
    wording where it has one (``syntax error``, ``illegal move``, ...)."""


@dataclass(frozen=True)
class Command:
    """One parsed command: optional numeric ``id``, ``name``, ``args``."""

    id: int | None
    name: str
    args: list[str]


def preprocess(line: str) -> str:
    """One raw input line -> its content per GTP section 2.6 ('' means discard it)."""
    line = line.translate(_DROP)
    cut = line.find("#")
    if cut >= 0:
        line = line[:cut]
    line = line.replace("\t", " ").replace("\n", "")
    return line if line.strip() else ""


def parse(line: str) -> Command | None:
    """A preprocessed line -> ``Command``, or ``None`` for a line to discard.

    A line that is only an id parses with the empty name (an unknown command)."""
    words = line.split()
    if not words:
        return None
    cid = None
    if words[0].isdigit() and words[0].isascii():
        cid = int(words[0])
        words = words[1:]
    return Command(cid, words[0] if words else "", words[1:])


def _frame(mark: str, cid: int | None, text: str) -> str:
    """A framed response, ``=[id] text`` (a success) or ``?[id] message`` (a failure),
    and the closing empty line."""
    lines = [ln.rstrip() for ln in text.split("\n")]
    if len(lines) > 1:  # keep a leading empty line (multi-line output) but no inner ones
        lines = lines[:1] + [ln for ln in lines[1:] if ln]
    body = "\n".join(lines)
    return f"{mark}{'' if cid is None else cid} {body}\n\n"


Handler = Callable[[list[str]], "str | None"]
StreamingHandler = Callable[[list[str], "Stream"], None]


class Stream:
    """What a streaming handler writes to, and how it learns to stop.

    ``write(line)`` sends one line of the response (the ``=[id]`` header goes out
    before the first line); ``interrupted()`` is true once more input is waiting;
    ``wait(seconds)`` sleeps until then or for ``seconds``, returning ``interrupted()``.
    The shell closes the response with the empty line when the handler returns."""

    def __init__(self, shell: "GtpShell", cid: int | None) -> None:
        self._shell, self._cid, self.started = shell, cid, False

    def _start(self) -> None:
        if not self.started:
            self.started = True
            self._shell._write(f"={'' if self._cid is None else self._cid}\n", flush=True)

    def write(self, line: str) -> None:
        self._start()
        text = "\n".join(ln for ln in line.split("\n") if ln.strip())
        if text:
            self._shell._write(text + "\n", flush=True)

    def interrupted(self) -> bool:
        return self._shell._input_waiting()

    def wait(self, seconds: float) -> bool:
        return self._shell._input_waiting(seconds)


class GtpShell:
    """A registry of GTP commands and the loop that serves them over text streams."""

    def __init__(self) -> None:
        self._handlers: dict[str, tuple[Callable, bool]] = {}
        self._out: TextIO | None = None
        self._queue: queue.Queue[str | None] | None = None
        self._pending: str | None = None
        self.done = False

    # ------------------------------------------------------------ registry
    def register(self, name: str, fn: Handler | StreamingHandler, streaming: bool = False) -> None:
        """Add or replace command ``name``. A plain ``fn(args) -> str | None`` returns
        the response text; a streaming ``fn(args, stream)`` writes it (see ``Stream``).
        Both raise ``GtpError(message)`` to fail."""
        if not name or any(c.isspace() for c in name) or "#" in name:
            raise ValueError(f"{name!r} is not a valid GTP command name")
        self._handlers[name] = (fn, streaming)

    def known(self, name: str) -> bool:
        return name in self._handlers

    def commands(self) -> list[str]:
        """Registered command names, sorted."""
        return sorted(self._handlers)

    def stop(self) -> None:
        """Ask ``run`` to return after the current response (used by ``quit``)."""
        self.done = True

    # ------------------------------------------------------------ execution
    def execute(self, line: str) -> str:
        """Answer one raw line with a complete response ('' for a discarded line).

        For tests and embedding. A streaming command run this way writes its lines to
        the same response and finds itself interrupted at once (``interrupted()`` and
        ``wait`` return True): it writes what it writes before its first check."""
        cmd = parse(preprocess(line))
        if cmd is None:
            return ""
        buffer = io.StringIO()
        saved, self._out = self._out, buffer
        try:
            self._dispatch(cmd)
        finally:
            self._out = saved
        return buffer.getvalue()

    def _dispatch(self, cmd: Command) -> None:
        entry = self._handlers.get(cmd.name)
        if entry is None:
            self._write(_frame("?", cmd.id, "unknown command"))
            return
        fn, streaming = entry
        stream = Stream(self, cmd.id) if streaming else None
        try:
            if stream is not None:
                fn(cmd.args, stream)
                stream._start()
                self._write("\n")
            else:
                result = fn(cmd.args)
                self._write(_frame("=", cmd.id, "" if result is None else str(result)))
        except Exception as exc:  # noqa: BLE001 - a failing command must not end the shell
            message = str(exc) if isinstance(exc, GtpError) else f"internal error: {exc!r}"
            if not isinstance(exc, GtpError):
                traceback.print_exc(file=sys.stderr)
            if stream is not None and stream.started:
                self._write(f"error: {message}\n\n")
            else:
                self._write(_frame("?", cmd.id, message))

    def run(self, inp: TextIO, out: TextIO) -> None:
        """Serve commands from ``inp`` to ``out`` until ``quit`` or end of input.

        Input is read on a daemon thread into a queue, so streaming commands can be
        interrupted; output is flushed whenever no further command is waiting."""
        self._out = out
        self._queue = queue.Queue()
        reader = threading.Thread(target=self._read, args=(inp,), daemon=True, name="gtp-input")
        reader.start()
        while not self.done:
            line = self._next_line()
            if line is None:
                break
            cmd = parse(line)
            if cmd is not None:
                self._dispatch(cmd)
            if not self._input_waiting():
                out.flush()
        out.flush()

    def _read(self, inp: TextIO) -> None:
        assert self._queue is not None
        try:
            for raw in inp:
                line = preprocess(raw)
                if line:
                    self._queue.put(line)
        finally:
            self._queue.put(None)

    def _next_line(self) -> str | None:
        if self._pending is not None:
            line, self._pending = self._pending, None
            return line
        assert self._queue is not None
        return self._queue.get()

    def _input_waiting(self, seconds: float = 0.0) -> bool:
        """Whether more input (or its end) is waiting, after waiting up to ``seconds``
        for it; True outside ``run``."""
        if self._queue is None or self._pending is not None:
            return True
        try:
            self._pending = self._queue.get(timeout=seconds) if seconds > 0 else self._queue.get_nowait()
        except queue.Empty:
            return False
        if self._pending is None:  # end of input: keep it for _next_line, and stop
            self._queue.put(None)
        return True

    def _write(self, text: str, flush: bool = False) -> None:
        assert self._out is not None
        self._out.write(text)
        if flush:
            self._out.flush()
