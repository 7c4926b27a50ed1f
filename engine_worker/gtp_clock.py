"""GTP time controls: the clock each colour plays on, and what it allows the next move.

``time_settings main byo stones`` (GTP 2, section 4.2): ``main`` seconds of main time,
then Canadian byo-yomi: ``byo`` seconds for every ``stones`` stones. ``byo > 0`` with
``stones == 0`` means no time limit (the default before any ``time_settings``);
``byo == 0`` means nothing after main time (sudden death). All three 0 would be a game of
no time at all, which no runner means: it is taken as no limit too. ``time_left colour seconds
stones`` says where a colour's clock stands: ``stones == 0`` in main time, else the
stones still to play in the current byo-yomi period.

Runners do not all send ``time_left``, so ``Clock.spent`` also runs the clock down by
the time each move took here (main time, then period after period); a ``time_left``
overrides that estimate. ``Clock.reset`` (a new game) gives both colours the full time.

``Clock.allowance(colour, empty_points)``: the most seconds the next move may take, or
``None`` when nothing limits it.

- In byo-yomi: the period's seconds left over its stones left.
- In main time: the seconds left over the colour's expected moves to come (half the
  empty points, at least ``MIN_MOVES_LEFT``), but never less than one byo-yomi stone's
  share (the end of main time gives that back).
- A share ``SAFETY`` of it and ``LAG`` seconds stay in reserve (the move's transmission,
  the work around the search), and never less than ``FLOOR`` seconds: a move must be
  made even with the flag about to fall.

Japanese byo-yomi (KGS's ``kgs-time_settings byoyomi``: ``periods`` periods of ``byo``
seconds, each move within one) is kept as one-stone Canadian periods with ``periods``
set; its ``time_left`` stones count the periods left, so a move may take the period's
time whatever that count. The further periods stay a reserve, never spent on purpose.

Not checked: the runner's own clock (an opponent's ``time_left`` is kept, not used)."""

from __future__ import annotations

from dataclasses import dataclass, field

MIN_MOVES_LEFT = 10  # main time is never spread over fewer moves than this
SAFETY = 0.1  # share of an allowance kept in reserve
LAG = 0.05  # seconds kept in reserve on every move
FLOOR = 0.05  # the least a move is allowed (seconds)


@dataclass
class Clock:
    """The time settings and each colour's clock: colour -> (seconds left, stones left
    in the byo-yomi period, 0 in main time). ``ValueError`` for negative settings."""

    main_time: float = 0.0
    byo_yomi_time: float = 1.0
    byo_yomi_stones: int = 0
    periods: int = 0  # Japanese byo-yomi: its number of periods (byo_yomi_stones is then 1); 0: Canadian
    left: dict[int, tuple[float, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if min(self.main_time, self.byo_yomi_time, self.byo_yomi_stones, self.periods) < 0:
            raise ValueError("time settings must not be negative")

    @property
    def limited(self) -> bool:
        """Whether the settings limit time at all (``byo > 0`` with no stones, or no time of
        any kind: they do not)."""
        return not ((self.byo_yomi_time > 0 and self.byo_yomi_stones == 0)
                    or (self.main_time == 0 and self.byo_yomi_time == 0))

    @property
    def has_byo_yomi(self) -> bool:
        return self.byo_yomi_time > 0 and self.byo_yomi_stones > 0

    def reset(self) -> None:
        """A new game: both colours back to the full time."""
        self.left.clear()

    def state(self, colour: int) -> tuple[float, int]:
        """(seconds left, byo-yomi stones left; 0 in main time) for ``colour``."""
        if colour in self.left:
            return self.left[colour]
        if self.main_time > 0 or not self.has_byo_yomi:
            return self.main_time, 0
        return self.byo_yomi_time, self.byo_yomi_stones

    def set_left(self, colour: int, seconds: float, stones: int) -> None:
        """What ``time_left`` said (a negative time counts as none left)."""
        if stones < 0:
            raise ValueError("stones must not be negative")
        self.left[colour] = (max(0.0, seconds), stones)

    def spent(self, colour: int, seconds: float) -> None:
        """Run ``colour``'s clock down by a move that took ``seconds``."""
        if not self.limited:
            return
        left, stones = self.state(colour)
        seconds = max(0.0, seconds)
        if stones == 0:
            if seconds <= left or not self.has_byo_yomi:
                self.left[colour] = (max(0.0, left - seconds), 0)
                return
            seconds -= left  # main time ran out during the move: the first period starts
            left, stones = self.byo_yomi_time, self.byo_yomi_stones
        left, stones = left - seconds, stones - 1
        if stones == 0:
            left, stones = self.byo_yomi_time, self.byo_yomi_stones
        self.left[colour] = (max(0.0, left), stones)

    def allowance(self, colour: int, empty_points: int) -> float | None:
        """The most seconds ``colour``'s next move may take (see the module docstring);
        ``None`` when the settings do not limit time."""
        if not self.limited:
            return None
        left, stones = self.state(colour)
        if stones > 0:
            share = left if self.periods else left / stones
        else:
            share = left / max(MIN_MOVES_LEFT, empty_points // 2)
            if self.has_byo_yomi:
                share = max(share, self.byo_yomi_time / self.byo_yomi_stones)
        return max(FLOOR, share * (1 - SAFETY) - LAG)


__all__ = ["Clock", "FLOOR", "LAG", "MIN_MOVES_LEFT", "SAFETY"]
