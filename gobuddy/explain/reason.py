"""A reason for (or against) a move: its kind, the points it is about, its key numbers,
and the plain words a person reads.

| kind             | what it says                                                    | numbers            |
|------------------|-----------------------------------------------------------------|--------------------|
| ``capture``      | the move captures stones (and, read, whether that loses more)   | stones             |
| ``atari``        | the move ataris a chain, or leaves an own chain in atari        | stones             |
| ``save``         | the move saves an own chain from atari                          | stones             |
| ``self-atari``   | the opponent can capture the stones just played                 | stones             |
| ``snapback``     | a sacrifice that recaptures more, or a capture that walks into one | stones          |
| ``ladder``       | the ladder works / does not work (read, with its breaker)       | stones             |
| ``connection``   | the move joins own chains                                       | stones             |
| ``cut``          | the move separates opponent chains that share no liberty after it | stones           |
| ``ko``           | takes the ko / fills the ko                                     | stones             |
| ``life-and-death`` | ownership of a group flips (from the network's ownership)     | stones, points     |
| ``territory``    | the biggest point: the engine's score for this move and another | points             |
| ``tempo``        | sente or gote, told from the engine's answer                    |                    |
| ``engine-line``  | the engine's answer and its line, when nothing simpler applies  |                    |

Points are flat indices (``gobuddy.go.coords``); ``text`` and ``detail`` are already
written with GTP vertices, because they are words for people (the edge). ``text`` is a
sentence ("captures 3 stones at D4 E4 E5"); ``line()`` is the GTP form, the kind
first ("capture 3 stones at D4 E4 E5"). ``good`` is True for a reason to play the
move, False for a reason against it, None when it is neither. ``weight`` orders
reasons, the largest first (``rank``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("capture", "atari", "save", "self-atari", "snapback", "ladder", "connection", "cut", "ko",
         "life-and-death", "territory", "tempo", "engine-line")

# Base weights: what is read from the rules outranks what is judged, and a tactical
# loss (the move loses stones) outranks everything (it is what a learner must see).
_BASE = {
    "self-atari": 95.0, "snapback": 92.0, "capture": 90.0, "ladder": 88.0, "save": 86.0,
    "life-and-death": 80.0, "ko": 78.0, "atari": 70.0, "cut": 60.0, "connection": 55.0,
    "territory": 50.0, "tempo": 20.0, "engine-line": 10.0,
}


@dataclass(frozen=True)
class Reason:
    """One reason; see the module docstring. ``where``: the points it is about, the
    group it concerns first (the LEDs point at ``where[0]``); ``stones``: stones
    captured, saved, lost or in the group; ``points``: a score difference in points
    (territory, life and death), or None."""

    kind: str
    text: str
    detail: str
    where: tuple[int, ...] = ()
    stones: int = 0
    points: float | None = None
    good: bool | None = None
    weight: float = field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown reason kind {self.kind!r}")

    def line(self) -> str:
        """The GTP form: the kind, then the detail (``capture 3 stones at D4 E4 E5``)."""
        return f"{self.kind} {self.detail}"

    def to_dict(self) -> dict[str, object]:
        """Plain data for storage and messages (points stay flat indices)."""
        return {"kind": self.kind, "text": self.text, "detail": self.detail, "where": list(self.where),
                "stones": self.stones, "points": self.points, "good": self.good}


def reason(kind: str, text: str, detail: str, where: tuple[int, ...] | list[int] = (), stones: int = 0,
           points: float | None = None, good: bool | None = None, bonus: float = 0.0) -> Reason:
    """A ``Reason`` weighted by its kind's base, its size and ``bonus``. Reasons
    against the move weigh more than reasons for it (a learner must see a loss first)."""
    size = stones + (abs(points) if points is not None else 0.0)
    weight = _BASE[kind] + min(size, 40.0) / 4.0 + bonus + (5.0 if good is False else 0.0)
    return Reason(kind, text, detail, tuple(where), stones, points, good, weight)


def rank(reasons: list[Reason], limit: int | None = None) -> list[Reason]:
    """Reasons, the heaviest first (ties keep their order); duplicates (same kind and
    detail) dropped; at most ``limit``."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in sorted(reasons, key=lambda r: -r.weight):
        if (r.kind, r.detail) in seen:
            continue
        seen.add((r.kind, r.detail))
        out.append(r)
    return out[:limit] if limit is not None else out


def mistake_kind(reasons: list[Reason]) -> str | None:
    """The kind a mistake is counted under (a player's page: which mistakes they make
    most): the kind of the heaviest reason against the move, or None when no reason
    counts against it."""
    against = [r for r in reasons if r.good is False]
    return max(against, key=lambda r: r.weight).kind if against else None


def as_lines(reasons: list[Reason]) -> str:
    """The GTP answer: one reason a line, kind first."""
    return "\n".join(r.line() for r in reasons)


def as_comment(reasons: list[Reason]) -> str:
    """Sentences for an SGF comment or a caption: one a line, capitalised."""
    return "\n".join(r.text[:1].upper() + r.text[1:] + "." for r in reasons)
