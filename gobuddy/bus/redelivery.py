"""When a sender of game events should send again what the recorder has not stored.

End-to-end delivery: the broker acknowledges a message before it is on its disk, so a
broker that dies can lose what it acknowledged; the recorder says per game up to which
``seq`` it stored everything (``game_stored``). A sender (the edge agent's outbox, the
dashboard's Play page) keeps what is not stored yet and asks ``Redelivery.due`` whether
to send it again:

| what the sender sees                                         | due?                               |
|--------------------------------------------------------------|------------------------------------|
| nothing unstored, or no recorder online                      | no (and patience starts over)      |
| the same first unstored event, no mark moved, for ``wait``   | yes; then ``wait`` doubles, up to ``resend_max_s`` |
| a mark moved (the recorder is storing)                       | not yet: the timer starts over at ``resend_after_s`` |

Pure: the clock is a parameter; nothing here sends.
"""

from __future__ import annotations

import time
from typing import Callable, Hashable


class Redelivery:
    """The patience of one sender (see the module docstring)."""

    def __init__(self, resend_after_s: float = 10.0, resend_max_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not 0 < resend_after_s <= resend_max_s:
            raise ValueError("resend_after_s must be > 0 and <= resend_max_s")
        self.resend_after_s, self.resend_max_s, self._clock = resend_after_s, resend_max_s, clock
        self.wait_s = resend_after_s
        self._watching: tuple[Hashable, int] | None = None
        self._since = 0.0

    def due(self, first_unstored: Hashable | None, progress: int, recorder_online: bool) -> bool:
        """True when the events from ``first_unstored`` on should be sent again now.
        ``progress`` is any counter that grows whenever a stored mark moves."""
        if first_unstored is None or not recorder_online:
            self._watching, self.wait_s = None, self.resend_after_s
            return False
        now = self._clock()
        key = (first_unstored, progress)
        if key != self._watching:
            if self._watching is not None and progress != self._watching[1]:
                self.wait_s = self.resend_after_s  # the recorder is storing: patience again
            self._watching, self._since = key, now
            return False
        if now - self._since < self.wait_s:
            return False
        self._since, self.wait_s = now, min(self.wait_s * 2, self.resend_max_s)
        return True

    def waited_s(self) -> float:
        """How long the current first unstored event has been waited for."""
        return self._clock() - self._since if self._watching is not None else 0.0
