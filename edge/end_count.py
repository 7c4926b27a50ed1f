"""The count at the end on the board: dead stones proposed by the workers, shown, disputed group by group, accepted.

| step | what happens |
|------|--------------|
| start | two passes, or END: the game is not ended yet; the reconciler stops reading the board as moves (``Reconciler.start_count``: ``CountStarted``) and the workers are asked (``Advisor.count``: an ``analysis`` with ``final_status``, the same decision of dead stones as the Play page's count, ``gobuddy.ai.final_status``) |
| no verdict | no broker, an error, no answer within ``count_wait_s``, or an answer without ``final_status``: the count with every stone alive, as without a worker; the log and the status (``count``) say so |
| none dead | the game ends at once |
| dead stones | their groups blink (``LED BLINK``: a stone of each dead group first, at most 16) and the game waits for the players |
| a stone lifted | its group toggles between dead and alive (put back, or left off: once per lift); a group with every stone off counts dead (players who take the dead stones off, as in Japan and China, get the count they see); the LEDs blink the groups now counted dead (none: LEDs off) and ``count_accept_s`` starts again |
| TURN DONE, END, START | accept: ``game_ended`` with the area count that lifts the stones counted dead, and lists them (``dead``); START then begins the next game |
| UNDO | a dispute: back to playing (the pass that ended the game is taken back) |
| no decision | ``count_accept_s`` after the stones were shown (or last toggled), the count is accepted |
| restart | the count shown (the workers' dead stones and the players' toggles) is in the journal (``edge.journal.count_journal``): the agent shows it again, without asking the workers |

Nothing the board shows during the count is a move (``edge.reading.count_stops``,
``edge.reading.count_groups``). ``EndCount`` is the part of ``edge.agent.EdgeAgent`` that
runs it. It needs the agent's ``advisor``, ``reconciler``, ``record``, ``config``
(``count_wait_s``, ``count_accept_s``), ``bus``, ``queue``, ``log``, ``_lock``,
``_apply`` and ``_status_at``. Not kept over a restart: a count whose workers had not
answered yet (the game comes back unended after its passes: END counts it again).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from edge.journal.count_journal import closed_note, count_note, pending_count
from edge.reading.count_groups import groups_of
from gobuddy.bus.messages import EngineAnswer
from gobuddy.go.coords import EMPTY, from_gtp, to_gtp


@dataclass(frozen=True)
class CountStarted:
    """The game would end now (two passes, or END) after ``move_number`` moves: count first."""

    move_number: int


@dataclass(frozen=True)
class CountChanged:
    """The players changed the count after ``move_number`` moves (a stone lifted): ``dead``
    is every stone counted dead now (flat points)."""

    move_number: int
    dead: tuple[int, ...]


@dataclass
class Count:
    """A count under way for game ``game_id`` after ``moves`` moves, begun at ``since``
    (monotonic seconds): the workers' request, and once known the ``dead`` points (flat)
    shown from ``shown_at``."""

    game_id: str
    moves: int
    since: float
    request_id: str | None = None
    dead: tuple[int, ...] | None = None
    unsure: tuple[int, ...] = ()
    shown_at: float | None = None


def blink_order(dead: tuple[int, ...], board: tuple[int, ...], size: int) -> tuple[int, ...]:
    """``dead`` ordered so that one stone of each dead group (stones of one colour joined
    along lines) comes first, then the rest, so that the first 16 blinked point at every
    group. Points of ``dead`` that hold no stone are left out."""
    wanted = set(dead)
    groups = groups_of([c if p in wanted else EMPTY for p, c in enumerate(board)], size).values()
    return tuple([g[0] for g in groups] + [p for g in groups for p in g[1:]])


class EndCount:
    """The count half of the agent (see the module docstring)."""

    count: Count | None
    _count_note: str | None

    def _start_count(self) -> None:
        """Two passes or END: ask the workers which stones are dead (or count all alive)."""
        record = self.record
        assert record is not None
        self.count = Count(record.game_id, record.game.move_number, time.monotonic())
        self._status_at = 0.0
        request_id = self.advisor.count(record, self.config.count_wait_s) if self.bus.is_connected() else None
        if request_id is None:
            self._count_all_alive("no broker")
        else:
            self.count.request_id = request_id
            self.log.info("counting game %s: asked the workers which stones are dead", record.game_id)

    def _counted(self, answer: EngineAnswer) -> bool:
        """The workers' dead stones for the count under way: shown (or the game ends at
        once when none is dead); an answer without them counts all alive."""
        count, rec = self.count, self.reconciler
        if count is None or rec is None or answer.id != count.request_id or count.dead is not None:
            return False
        if answer.final_status is None:
            self._count_all_alive("the worker told no dead stones")
            return True
        size = rec.game.size
        proposed = tuple(sorted(from_gtp(v, size) for v in answer.final_status.dead))
        count.unsure = tuple(sorted(from_gtp(v, size) for v in answer.final_status.unsure))
        count.shown_at = time.monotonic()
        self._status_at = 0.0
        if not proposed and not rec.count_dead:
            self.log.info("counting: no stone is dead")
            count.dead = ()
            self._accept_count()
            return True
        self._apply(rec.show_dead(proposed))
        count.dead = rec.count_dead  # the proposal's groups, with what the players lifted meanwhile
        self.log.info("counting: %d stones dead (%d unsure): lift a stone to toggle its group, TURN DONE "
                      "accepts, UNDO goes back to playing", len(count.dead), len(count.unsure))
        self._journal_count()
        return True

    def _count_changed(self, dead: tuple[int, ...]) -> None:
        """The players lifted a stone: the dead stones now (shown by the reconciler's LEDs)."""
        count = self.count
        if count is None or count.dead is None:
            return  # the workers are still asked: their answer takes the toggles in
        count.dead = dead
        count.shown_at = time.monotonic()
        self._status_at = 0.0
        self.log.info("counting: the players changed the count: %d stones dead", len(dead))
        self._journal_count()

    def _journal_count(self) -> None:
        """Keep the count shown in the journal (``edge.journal.count_journal``)."""
        rec, record, count = self.reconciler, self.record, self.count
        if rec is None or record is None or count is None or rec.count_groups is None:
            return
        size = rec.game.size
        self.queue.append("", count_note(record, rec.count_groups.snapshot(),
                                         [to_gtp(p, size) for p in count.dead or ()]))

    def _resume_count(self) -> None:
        """After a restart: show again the count the journal holds for the game, if any."""
        rec, record = self.reconciler, self.record
        if rec is None or record is None:
            return
        note = pending_count(self.queue.entries(), record)
        if note is None:
            return
        try:
            self._apply(rec.restore_count(note["groups"]))
        except (ValueError, KeyError, TypeError) as exc:
            self.log.error("journalled count of game %s unusable (%s): the game waits for END", record.game_id, exc)
            rec.counting = rec.count_groups = None
            return
        now = time.monotonic()
        self.count = Count(record.game_id, record.game.move_number, now, dead=rec.count_dead, shown_at=now)
        self._status_at = 0.0
        self.log.info("counting game %s again after a restart: %d stones dead", record.game_id, len(self.count.dead))

    def _count_failed(self, request_id: str) -> None:
        count = self.count
        if count is not None and count.request_id == request_id and count.dead is None:
            self._count_all_alive("no worker answered")

    def _count_all_alive(self, why: str) -> None:
        """No verdict on dead stones: every stone counts alive, as without a worker."""
        count = self.count
        assert count is not None
        count.dead = ()
        self.log.warning("counting with every stone alive: %s", why)
        self._count_note = f"all alive ({why})"
        self._accept_count()

    def _accept_count(self) -> None:
        """The players accept (or nobody decided in time): the game ends with this count."""
        count, rec = self.count, self.reconciler
        self.count = None
        self._status_at = 0.0
        if count is None or rec is None or rec.game.ended:
            return
        dead = rec.count_dead if count.dead else ()  # the groups counted dead now, toggles included
        self._apply(rec.accept_count(dead))
        self.log.info("game %s counted: %s with %d stones dead", count.game_id, rec.game.result, len(dead))
        if count.dead:
            self._count_note = f"{len(dead)} dead stones accepted"

    def _players_accept(self) -> None:
        """TURN DONE or END: accept the dead stones shown (ignored while the workers are
        still asked: there is nothing to accept yet)."""
        count = self.count
        if count is not None and count.dead is None:
            self.log.info("counting: the dead stones are not known yet; press again once they blink")
            return
        self._accept_count()

    def _dispute_count(self) -> None:
        """UNDO while the count is shown: back to playing."""
        rec, record = self.reconciler, self.record
        self.count = None
        self._status_at = 0.0
        self._count_note = "disputed: playing on"
        if record is not None:
            self.queue.append("", closed_note(record))
        if rec is not None:
            self.log.info("count disputed: back to playing")
            self._apply(rec.resume_play())

    def _count_tick(self, now: float) -> None:
        """Time runs out: no verdict within ``count_wait_s`` (all alive), no decision
        within ``count_accept_s`` (accepted)."""
        count = self.count
        if count is None:
            return
        if count.dead is None and now - count.since > self.config.count_wait_s + 1.0:
            self._count_all_alive("no answer in time")
        elif count.shown_at is not None and now - count.shown_at > self.config.count_accept_s:
            self.log.info("counting: nobody decided in %.0f s: accepted", self.config.count_accept_s)
            self._accept_count()

    def _count_status(self) -> str | None:
        """The count in words for the status: waiting for the workers or the players, or
        how the last one went."""
        count = self.count
        if count is None:
            return self._count_note
        if count.dead is None:
            return "asking the workers for dead stones"
        return f"{len(count.dead)} dead stones shown: lift a stone to toggle its group, TURN DONE accepts, UNDO plays on"


__all__ = ["Count", "CountChanged", "CountStarted", "EndCount", "blink_order"]
