"""The count at the end of a Play game: dead stones proposed, shown, disputed, accepted.

After two passes ``Count.of`` asks ``gobuddy.ai.final_status.judge`` (the same decision
as GTP ``final_score``; the engine's ownership, when it answered, is only a cross-check)
which groups are dead. The players see the dead stones crossed out and the territory
shaded on the board, the groups counted dead listed with the reason, and groups the
judge is unsure of flagged; they toggle any group dead or alive (a click on one of its
stones, or its box in the list; a box sets its group's state as it shows it, and only
while the count is the one it was drawn for), and "Accept the count" ends the game with the area
count of what they accepted (``PlayGame.end_by_score``), which goes into the
``game_ended`` event and so into the database and the SGF ``RE[]``.

Not done here: publishing (``views/play.py``), resuming play after a dispute (Undo
takes the passes back).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from dashboard.views.play_game import PlayGame
from gobuddy.ai.final_status import DEAD, SEKI, UNSURE, FinalStatus, GroupStatus, judge
from gobuddy.go.coords import BLACK, CoordinateError, from_gtp, to_gtp
from gobuddy.go.scoring import Score, area_score, ownership

COUNT = "play_count"


@dataclass
class Count:
    """The judge's verdicts on the game after ``moves`` moves and the groups the
    players count dead now (indices into ``status.groups``)."""

    game_id: str
    moves: int
    status: FinalStatus
    dead: set[int] = field(default_factory=set)
    version: int = 0  # changes with every change of ``dead``: the list's boxes are made afresh

    @classmethod
    def of(cls, game: PlayGame, engine_ownership: Sequence[float] | None = None) -> "Count":
        """The judge's proposal for ``game``'s position (unsure groups as it leans)."""
        status = judge(game.position, ownership=engine_ownership)
        return cls(game.game_id, len(game.moves), status,
                   {i for i, g in enumerate(status.groups) if g.counted_dead})

    def fits(self, game: PlayGame) -> bool:
        return self.game_id == game.game_id and self.moves == len(game.moves)

    def toggle(self, index: int) -> None:
        self.dead ^= {index}
        self.version += 1

    def mark(self, index: int, dead: bool, drawn_at: int) -> bool:
        """Count group ``index`` dead (or alive) as its box, drawn at version
        ``drawn_at``, reports; True when that changed the count. A report from a box
        drawn before the last change is stale and changes nothing (the player saw
        another count), and so does one that agrees with the count: Streamlit can run a
        box's callback with no click at all, with the value the box shows
        (streamlit#10102, seen here when a slow run overlaps a click on the board), so
        the box sets a state, it never flips one."""
        if drawn_at != self.version or (index in self.dead) == dead:
            return False
        self.toggle(index)
        return True

    def toggle_at(self, vertex: str) -> bool:
        """Toggle the group with a stone at ``vertex``; False when there is none."""
        try:
            point = from_gtp(vertex, self.status.size)
        except CoordinateError:
            return False
        for i, g in enumerate(self.status.groups):
            if point in g.stones:
                self.toggle(i)
                return True
        return False

    def dead_points(self) -> list[int]:
        return sorted(p for i in self.dead for p in self.status.groups[i].stones)

    def dead_vertices(self) -> list[str]:
        return [to_gtp(p, self.status.size) for p in self.dead_points()]

    def score(self, game: PlayGame) -> Score:
        return area_score(game.position, game.komi, self.dead_points())

    def territory(self, game: PlayGame) -> list[float]:
        """Per point +1 black's, -1 white's, 0 nobody's, with the dead lifted: the shading."""
        return [float(v) for v in ownership(game.position, self.dead_points())]

    def unsure_vertices(self) -> list[str]:
        return [to_gtp(p, self.status.size) for g in self.status.unsure() for p in g.stones]


def describe(group: GroupStatus, size: int) -> str:
    """``White C9 D9 … (11 stones)`` for the list."""
    vertices = [to_gtp(p, size) for p in group.stones]
    shown = " ".join(vertices[:6]) + (" …" if len(vertices) > 6 else "")
    return f"{'Black' if group.colour == BLACK else 'White'} {shown} ({len(vertices)} stone{'s' * (len(vertices) > 1)})"


def count_panel(game: PlayGame, count: Count, on_accept: Callable[[], None], allowed: Callable[[], bool]) -> None:
    """The list of groups with their dead/alive boxes and the result so far, and the
    button that accepts the count (``on_accept``). Boxes and button act in callbacks,
    so that inside the Play page's fragment only the fragment redraws; a box acts only
    when ``allowed()`` (the player's role, read again) says so."""
    score = count.score(game)
    st.markdown(f"**Counting: {score.result}** (black {score.black}, white {score.white}, komi {game.komi:g}"
                + (f", {score.neutral} neutral" if score.neutral else "") + ")")
    unsure = count.status.unsure()
    if unsure:
        st.warning(f"The judge is not sure about {len(unsure)} group{'s' * (len(unsure) > 1)} (ringed in red): "
                   "decide them before you accept.")
    st.caption("Dead stones are crossed out. Click a stone on the board, or tick its box, to count its group "
               "dead or alive.")
    for i, group in enumerate(count.status.groups):
        listed = i in count.dead or group.verdict in (UNSURE, SEKI, DEAD)
        if not listed:
            continue
        label = describe(group, count.status.size)
        if group.verdict == UNSURE:
            label += " — unsure"
        elif group.verdict == SEKI:
            label += " — seki"
        key = f"play_dead_{count.game_id}_{count.moves}_{count.version}_{i}"
        st.checkbox(label, value=i in count.dead, key=key, help=group.reason, on_change=_box_changed,
                    args=(count, i, key, count.version, allowed))
    st.button("Accept the count", type="primary", key="play_accept_count", on_click=on_accept)


def _box_changed(count: Count, index: int, key: str, drawn_at: int, allowed: Callable[[], bool]) -> None:
    """A group's box reported a value: ``Count.mark`` decides whether it counts."""
    if allowed():
        count.mark(index, bool(st.session_state.get(key)), drawn_at)


def current_count(game: PlayGame) -> Count | None:
    count = st.session_state.get(COUNT)
    return count if isinstance(count, Count) and count.fits(game) else None


__all__ = ["COUNT", "Count", "count_panel", "current_count", "describe"]
