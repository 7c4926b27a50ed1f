"""What the serial link hands the agent, besides frames: buttons, calibration data, link events.

``edge.link.serial_link`` delivers these (and ``edge.sensing.classify.Frame``) in order through
``SerialLink.get``; ``CommandError`` is how a command's future fails when the board
answers ``ERR``. Plain data: nothing here reads a port.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from edge.link.protocol import Hello
from edge.sensing.classify import Frame


class CommandError(RuntimeError):
    """The board answered a command with ``ERR`` (``reply`` holds the line body)."""

    def __init__(self, command: str, reply: str) -> None:
        super().__init__(f"board refused {command!r}: {reply}")
        self.command = command
        self.reply = reply


@dataclass(frozen=True)
class ButtonChange:
    """A debounced button change at board time ``t``: ``name`` as the firmware says it."""

    t: float
    name: str
    down: bool


@dataclass(frozen=True)
class CalData:
    """The firmware's average of ``n`` scans after a ``CAL n`` (protocol order)."""

    n: int
    readings: tuple[int, ...]


@dataclass(frozen=True)
class LinkEvent:
    """``kind``: connected, rebooted, disconnected, refused, silent or resumed; ``hello``
    when connected or rebooted."""

    kind: str
    detail: str = ""
    hello: Hello | None = None


LinkItem = Union[Frame, ButtonChange, CalData, LinkEvent]


__all__ = ["ButtonChange", "CalData", "CommandError", "LinkEvent", "LinkItem"]
