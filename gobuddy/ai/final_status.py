"""Which stones are dead at the end of a game: a verdict that is right, or says it is unsure.

``judge(pos)`` gives every group of a finished position one of four verdicts, with the
evidence that decided it:

1. **Rules.** Benson's pass-alive chains are *alive*; opponent stones inside pass-alive
   territory are *dead* (``gobuddy.go.pass_alive``). Proofs: nothing can overturn them.
2. **Reading.** Every other chain with at most ``read_liberties`` liberties is read
   (``capture_reading.read_capture``): captured even when its owner moves first means
   dead; not capturable even when the attacker moves first means it lives; captured only
   when the attacker moves first means the fight is *unsettled*: verdict *unsure*.
3. **Playouts.** Random playouts to the end with both sides playing on, never filling
   their own eyes nor putting two or more stones in atari (``playout.playout_ownership``):
   each chain's mean ownership from its own side, +1 always its owner's, -1 always
   captured.

How they combine, per chain: a reading that agrees with the playouts, or meets playouts
that lean neither way (|mean| under ``contrary``), decides. A reading that proves death
through a sacrifice of two or more stones overrules playouts that say it lives: such
playouts never try that sacrifice (the seki-looking shapes that die to a throw-in). Any
other disagreement is *unsure*. Without a reading (too many liberties, the node budget
ran out), the playouts decide when they are clear (|mean| at least ``decisive``: kept in
three playouts of four, or lost in three of four; tactical playouts keep a living wall
in 80-95% of playouts and a dead group in under 10% on the test table), else *unsure*.
When the engine's ``ownership`` is given (+ = black, row-major, e.g. an engine
answer's), a playout-only verdict it contradicts (the other side owns the chain by at
least ``contrary``) is *unsure* too; it never overrules a proof or a reading. A chain that lives and touches shared liberties that the playouts left empty
(empty points bordering both colours once the dead are lifted) is in *seki*.

Chains become groups for display and toggling: chains of one colour with the same
verdict that share a liberty. ``counted_dead`` is what a count uses when nobody decides:
the verdict, and for an unsure group the side the playouts lean to. Results are
repeatable: the playouts are seeded with ``config.seed`` or the position's hash.

Not covered: life that depends on a ko fought with threats elsewhere, fights that are
not local (the reading only plays near the chain), positions that are not finished
(open areas make the playouts coin tosses, so answers there are mostly *unsure*).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gobuddy.ai.capture_reading import CAPTURED, SAFE, UNKNOWN, read_capture
from gobuddy.go.coords import BLACK, EMPTY, WHITE
from gobuddy.go.pass_alive import pass_alive
from gobuddy.go.playout import playout_ownership
from gobuddy.go.position import Position, neighbours
from gobuddy.go.scoring import empty_regions

ALIVE, DEAD, SEKI, UNSURE = "alive", "dead", "seki", "unsure"


@dataclass(frozen=True)
class JudgeConfig:
    """Settings of ``judge``: ``playouts`` and their ``seed`` (None: the position's
    hash), the reading's node ``read_budget`` per question and the most liberties a
    chain may have to be read (``read_liberties``), and the ownership thresholds
    ``decisive`` (playouts alone decide) and ``contrary`` (playouts that contradict a
    reading). ``seki_neutral``: a shared liberty left empty in this share of playouts
    is a seki liberty."""

    playouts: int = 96
    seed: int | None = None
    read_budget: int = 4000
    read_liberties: int = 6
    decisive: float = 0.5
    contrary: float = 0.5
    seki_neutral: float = 0.5


@dataclass(frozen=True)
class GroupStatus:
    """One group: ``colour``, ``stones`` (sorted flat points), ``verdict`` (alive, dead,
    seki, unsure), ``counted_dead`` (how a count takes it unless the players decide)
    and ``reason`` (the evidence, in words)."""

    colour: int
    stones: tuple[int, ...]
    verdict: str
    counted_dead: bool
    reason: str


@dataclass(frozen=True)
class FinalStatus:
    """The verdicts of a position of side ``size``: ``groups`` in order of first stone."""

    size: int
    groups: tuple[GroupStatus, ...]

    @property
    def settled(self) -> bool:
        """True when no group is unsure."""
        return all(g.verdict != UNSURE for g in self.groups)

    def unsure(self) -> list[GroupStatus]:
        return [g for g in self.groups if g.verdict == UNSURE]

    def dead_points(self) -> list[int]:
        """Every stone counted dead (unsure groups as ``counted_dead`` says), sorted."""
        return sorted(p for g in self.groups if g.counted_dead for p in g.stones)

    def listed(self, status: str) -> list[list[int]]:
        """GTP ``final_status_list`` groups: ``alive``, ``dead`` or ``seki``; unsure
        groups go where ``counted_dead`` puts them (dead, else alive)."""
        out = []
        for g in self.groups:
            verdict = g.verdict if g.verdict != UNSURE else (DEAD if g.counted_dead else ALIVE)
            if verdict == status:
                out.append(list(g.stones))
        return out


def _read(pos: Position, point: int, config: JudgeConfig) -> tuple[str, bool]:
    """(dead | lives | unsettled | unknown, proved through a sacrifice)."""
    if pos.liberties(point) > config.read_liberties:
        return UNKNOWN, False
    first = read_capture(pos, point, attacker_first=True, budget=config.read_budget)
    if first.result == SAFE:
        return "lives", False
    if first.result == UNKNOWN:
        return UNKNOWN, False
    second = read_capture(pos, point, attacker_first=False, budget=config.read_budget)
    if second.result == CAPTURED:
        return "dead", first.sacrifice or second.sacrifice
    return ("unsettled" if second.result == SAFE else UNKNOWN), False


def _verdict(colour: int, stones: tuple[int, ...], pos: Position, proofs: dict[int, tuple[str, str]],
             own: list[float], network: Sequence[float] | None, config: JudgeConfig) -> GroupStatus:
    if stones[0] in proofs:
        verdict, reason = proofs[stones[0]]
        return GroupStatus(colour, stones, verdict, verdict == DEAD, reason)
    mean = sum(own[p] for p in stones) * colour / len(stones)
    lean_dead = mean < 0
    share = f"its owner keeps it in {round(50 * (1 + mean))}% of playouts"
    reading, sacrifice = _read(pos, stones[0], config)
    if reading == "unsettled":
        return GroupStatus(colour, stones, UNSURE, lean_dead, "unsettled: it lives or dies with the next move")
    if reading in ("dead", "lives"):
        dead = reading == "dead"
        contrary = mean > config.contrary if dead else mean < -config.contrary
        if not contrary:
            return GroupStatus(colour, stones, DEAD if dead else ALIVE, dead,
                          "read: captured whoever starts" if dead else "read: cannot be captured")
        if dead and sacrifice:
            return GroupStatus(colour, stones, DEAD, True, "read: captured after a sacrifice that playouts do not try")
        said = "captured whoever starts" if dead else "cannot be captured"
        return GroupStatus(colour, stones, UNSURE, lean_dead,
                           f"the evidence disagrees: reading says {said}, but {share}")
    if abs(mean) < config.decisive:
        return GroupStatus(colour, stones, UNSURE, lean_dead, f"not clear: {share}")
    if network is not None:
        engine = sum(float(network[p]) for p in stones) * colour / len(stones)
        if (engine < -config.contrary) if mean > 0 else (engine > config.contrary):
            return GroupStatus(colour, stones, UNSURE, lean_dead, f"the evidence disagrees: {share}, but the engine's "
                          f"ownership gives it to the {'other side' if mean > 0 else 'owner'}")
    return GroupStatus(colour, stones, DEAD if lean_dead else ALIVE, lean_dead, f"playouts: {share}")


def judge(pos: Position, config: JudgeConfig = JudgeConfig(),
          ownership: Sequence[float] | None = None) -> FinalStatus:
    """The verdict on every group of ``pos`` (unchanged); ``ownership``: the engine's,
    optional (see the module doc). Raises ``ValueError`` for an ownership of the wrong
    length."""
    if ownership is not None and len(ownership) != pos.n:
        raise ValueError(f"ownership has {len(ownership)} values for {pos.n} points")
    proofs: dict[int, tuple[str, str]] = {}  # first stone of a chain -> (verdict, reason)
    for colour in (BLACK, WHITE):
        proved = pass_alive(pos, colour)
        for p in proved.stones:
            proofs[p] = (ALIVE, "pass-alive: uncapturable even if its owner passes")
        for p in proved.dead:
            proofs[p] = (DEAD, "inside pass-alive territory: it can never make an eye")
    chains = [(pos.board[stones[0]], tuple(sorted(stones))) for stones, _ in pos.chains()]
    own: list[float] = [0.0] * pos.n
    neutral: list[float] = [0.0] * pos.n
    if any(stones[0] not in proofs for _, stones in chains):
        seed = pos.hash & 0xFFFFFFFF if config.seed is None else config.seed
        own, neutral = playout_ownership(pos, config.playouts, seed)
    verdicts = [_verdict(colour, stones, pos, proofs, own, ownership, config) for colour, stones in chains]
    verdicts = _mark_seki(pos, verdicts, neutral, config)
    return FinalStatus(pos.size, _groups(pos, verdicts))


def _mark_seki(pos: Position, chains: list[GroupStatus], neutral: list[float],
               config: JudgeConfig) -> list[GroupStatus]:
    board = pos.board[:]
    for c in chains:
        if c.counted_dead:
            for p in c.stones:
                board[p] = EMPTY
    shared = bytearray(pos.n)
    for region, border in empty_regions(board, pos.size):
        if border == 3:
            for p in region:
                shared[p] = neutral[p] > config.seki_neutral
    nbrs = neighbours(pos.size)
    out = []
    for c in chains:
        if c.verdict == ALIVE and any(shared[q] for p in c.stones for q in nbrs[p]):
            c = GroupStatus(c.colour, c.stones, SEKI, False, c.reason + "; shares liberties neither side can fill")
        out.append(c)
    return out


def _groups(pos: Position, chains: list[GroupStatus]) -> tuple[GroupStatus, ...]:
    """Chains of one colour and one verdict that share a liberty, joined."""
    nbrs = neighbours(pos.size)
    board = pos.board
    parent = list(range(len(chains)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_liberty: dict[int, list[int]] = {}
    for i, c in enumerate(chains):
        libs = {q for p in c.stones for q in nbrs[p] if board[q] == EMPTY}
        for q in libs:
            by_liberty.setdefault(q, []).append(i)
    for members in by_liberty.values():
        first_of: dict[tuple[int, str, bool], int] = {}
        for i in members:
            c = chains[i]
            j = first_of.setdefault((c.colour, c.verdict, c.counted_dead), i)
            parent[find(i)] = find(j)
    joined: dict[int, list[GroupStatus]] = {}
    for i, c in enumerate(chains):
        joined.setdefault(find(i), []).append(c)
    groups = []
    for members in joined.values():
        first = members[0]
        reasons = list(dict.fromkeys(m.reason for m in members))
        groups.append(GroupStatus(first.colour, tuple(sorted(p for m in members for p in m.stones)), first.verdict,
                                  first.counted_dead, reasons[0] if len(reasons) == 1 else "; ".join(reasons[:2])))
    return tuple(sorted(groups, key=lambda g: g.stones[0]))


__all__ = ["ALIVE", "DEAD", "SEKI", "UNSURE", "FinalStatus", "GroupStatus", "JudgeConfig", "judge"]
