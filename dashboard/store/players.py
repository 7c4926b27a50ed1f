"""Who played: player identities, linking games to them, merging guest games, and the
adaptive level stored on a player.

| rule      | what it means                                                              |
|-----------|----------------------------------------------------------------------------|
| key       | a player is found by its name folded (``name_key``: case and runs of spaces ignored) |
| kind      | ``human`` or ``engine``, as the wire said when the player was first seen   |
| merged    | a player merged into another resolves to it: games linked later go there   |
| a claim   | one side of chosen games moves from one player (often "guest") to another; recorded in ``player_merges`` |
| level     | a person's adaptive level (``dashboard.ladder``); an engine player's level, read from its name |

A game keeps its record names (``games.black``/``white``) for ever; only the links
(``black_player_id``/``white_player_id``) change. Functions take an open ``Session``
and do not commit. ``player_for`` may create a player, in a savepoint: when another
writer created the same name first, it takes that one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Sequence

from sqlalchemy import func, or_, select, union, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dashboard import ladder
from dashboard.store.models import Game, LevelChange, Player, PlayerMerge
from gobuddy.bus.game_events import GUEST  # the name the boards give a person nobody named

MAX_NAME = 64


class PlayerError(ValueError):
    """A player that does not exist, a name that cannot be used, or a claim that is
    refused; the message says which."""


@dataclass(frozen=True)
class PlayerView:
    id: int
    name: str
    kind: str
    user_name: str | None
    merged_into: int | None
    level: str | None
    created_at: datetime
    games: int = 0


@dataclass(frozen=True)
class MergeView:
    game_id: str
    color: str
    from_player: str | None
    to_player: str
    merged_at: datetime
    merged_by: str | None


def name_key(name: str) -> str:
    """The key a name is found by: spaces collapsed, case folded, at most 64 characters."""
    return " ".join(name.split()).casefold()[:MAX_NAME]


def _view(p: Player, games: int = 0) -> PlayerView:
    return PlayerView(p.id, p.name, p.kind, p.user_name, p.merged_into, p.level, p.created_at, games)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def resolve(session: Session, player: Player) -> Player:
    """The player ``player`` was merged into (following the chain), or itself."""
    seen = {player.id}
    while player.merged_into is not None and player.merged_into not in seen:
        seen.add(player.merged_into)
        nxt = session.get(Player, player.merged_into)
        if nxt is None:
            break
        player = nxt
    return player


def player_for(session: Session, name: str, kind: str = "human", *, create: bool = True,
               levels: Sequence[str] | None = None) -> Player | None:
    """The player called ``name`` (resolved through merges), created as ``kind`` when
    new and ``create``; None for a blank name (or an unknown one without ``create``).
    A new engine player gets the level its name carries (``ladder.level_in_name``)."""
    key = name_key(name or "")
    if not key:
        return None
    player = session.scalars(select(Player).where(Player.key == key)).first()
    if player is None:
        if not create:
            return None
        if kind not in ("human", "engine"):
            raise PlayerError(f"a player's kind is human or engine, not {kind!r}")
        levels = ladder.default_levels() if levels is None else levels
        level = ladder.level_in_name(name, levels or []) if kind == "engine" else None
        player = Player(key=key, name=" ".join(name.split())[:MAX_NAME], kind=kind, level=level, created_at=_now())
        try:
            with session.begin_nested():  # another writer may create the same name first (PostgreSQL)
                session.add(player)
        except IntegrityError:
            player = session.scalars(select(Player).where(Player.key == key)).one()
            return resolve(session, player)
        return player
    return resolve(session, player)


def link_game(session: Session, game: Game, players: dict | None) -> None:
    """Link ``game`` to the players of a ``game_started``'s ``players`` (``{"B": {"name",
    "kind"}, "W": ...}`` or None), creating them as needed."""
    for color, attr in (("B", "black_player_id"), ("W", "white_player_id")):
        side = (players or {}).get(color) or {}
        player = player_for(session, side.get("name") or "", side.get("kind") or "human")
        setattr(game, attr, player.id if player else None)


def link_unlinked(session: Session, game_ids: Iterable[str] | None = None) -> int:
    """Link games that have a name but no player (imported SGF games, for instance) to
    the players of their names, as humans; only ``game_ids`` when given. How many
    sides were linked."""
    query = select(Game).where(Game.deleted_at.is_(None), or_(
        Game.black_player_id.is_(None) & Game.black.is_not(None),
        Game.white_player_id.is_(None) & Game.white.is_not(None)))
    if game_ids is not None:
        query = query.where(Game.id.in_(list(game_ids)))
    linked = 0
    for game in session.scalars(query):
        for name, attr in ((game.black, "black_player_id"), (game.white, "white_player_id")):
            if getattr(game, attr) is None and name:
                player = player_for(session, name)
                if player is not None:
                    setattr(game, attr, player.id)
                    linked += 1
    return linked


def _game_counts(session: Session) -> dict[int, int]:
    """Undeleted games by player: a game counts once for a player who held both sides
    (a guest against a guest), once for each of two different players."""
    sides = union(*(select(Game.id.label("game_id"), column.label("player_id"))
                    .where(Game.deleted_at.is_(None), column.is_not(None))
                    for column in (Game.black_player_id, Game.white_player_id))).subquery()  # UNION: (game, player) once
    rows = session.execute(select(sides.c.player_id, func.count()).group_by(sides.c.player_id))
    return {pid: n for pid, n in rows}


def list_players(session: Session, *, kind: str | None = None, merged: bool = False) -> list[PlayerView]:
    """Players by name (folded), with their number of games (``_game_counts``: a game
    counts once however many sides the player held); merged ones only if ``merged``."""
    query = select(Player).order_by(Player.key)
    if kind:
        query = query.where(Player.kind == kind)
    if not merged:
        query = query.where(Player.merged_into.is_(None))
    counts = _game_counts(session)
    return [_view(p, counts.get(p.id, 0)) for p in session.scalars(query)]


def get_player(session: Session, player_id: int) -> PlayerView:
    """A player; ``PlayerError`` when there is none with that id."""
    p = _row(session, player_id)
    return _view(p, _game_counts(session).get(p.id, 0))


def _row(session: Session, player_id: int) -> Player:
    p = session.get(Player, player_id)
    if p is None:
        raise PlayerError(f"no player with id {player_id}")
    return p


def player_of_user(session: Session, user_name: str) -> PlayerView | None:
    """The player linked to a dashboard account, or else the one of the same name."""
    p = session.scalars(select(Player).where(Player.user_name == user_name, Player.merged_into.is_(None))).first()
    if p is None:
        p = session.scalars(select(Player).where(Player.key == name_key(user_name))).first()
        p = resolve(session, p) if p else None
    return _view(p) if p else None


def _move_side(session: Session, game: Game, color: str, to: Player, by: str | None) -> None:
    attr = "black_player_id" if color == "B" else "white_player_id"
    session.add(PlayerMerge(game_id=game.id, color=color, from_player_id=getattr(game, attr), to_player_id=to.id,
                            merged_at=_now(), merged_by=by))
    setattr(game, attr, to.id)


def claim_games(session: Session, to_player_id: int, game_ids: Sequence[str], *, from_name: str = GUEST,
                color: str | None = None, by: str | None = None) -> int:
    """Give ``to_player_id`` the side of each game that ``from_name`` played (``color``
    picks the side when ``from_name`` played both). Refused, nothing changed, for a game
    where ``from_name`` did not play (that side) or played both sides with no ``color``.
    Returns the number of sides moved (each recorded in ``player_merges``)."""
    to = resolve(session, _row(session, to_player_id))
    source = player_for(session, from_name, create=False)
    if source is None:
        raise PlayerError(f"no player is called {from_name!r}")
    if source.id == to.id:
        raise PlayerError(f"{to.name!r} cannot claim games from itself")
    moved = 0
    for game_id in game_ids:
        game = session.get(Game, game_id)
        if game is None or game.deleted_at is not None:
            raise PlayerError(f"no game with id {game_id!r}")
        sides = [c for c, pid in (("B", game.black_player_id), ("W", game.white_player_id)) if pid == source.id]
        if color is not None:
            sides = [c for c in sides if c == color]
        if not sides:
            raise PlayerError(f"{from_name!r} did not play {'that side of ' if color else ''}game {game_id!r}")
        if len(sides) == 2:
            raise PlayerError(f"{from_name!r} played both sides of game {game_id!r}: say which colour to claim")
        _move_side(session, game, sides[0], to, by)
        moved += 1
    return moved


def board_games_of(session: Session, board_id: str, since: datetime, until: datetime,
                   name: str = GUEST) -> list[str]:
    """The ids of the games on ``board_id`` started in ``[since, until)`` in which
    ``name`` played, oldest first."""
    source = player_for(session, name, create=False)
    if source is None:
        return []
    return list(session.scalars(select(Game.id).where(
        Game.board_id == board_id, Game.deleted_at.is_(None), Game.started_at >= since, Game.started_at < until,
        or_(Game.black_player_id == source.id, Game.white_player_id == source.id)).order_by(Game.started_at)))


def claim_board_games(session: Session, to_player_id: int, board_id: str, since: datetime, until: datetime, *,
                      from_name: str = GUEST, color: str | None = None, by: str | None = None) -> int:
    """``claim_games`` for every game of ``board_games_of`` (all of a board's guest games
    in a time range); games where the guest played both sides need ``color``."""
    ids = board_games_of(session, board_id, since, until, from_name)
    return claim_games(session, to_player_id, ids, from_name=from_name, color=color, by=by) if ids else 0


def merge_player(session: Session, from_id: int, into_id: int, *, by: str | None = None) -> int:
    """Merge a whole player into another: every side it played moves (recorded), and
    its name resolves to ``into_id`` from now on. Returns the sides moved."""
    source, to = _row(session, from_id), resolve(session, _row(session, into_id))
    if source.id == to.id:
        raise PlayerError("a player cannot be merged into itself")
    moved = 0
    for color, column in (("B", Game.black_player_id), ("W", Game.white_player_id)):
        for game in session.scalars(select(Game).where(column == source.id)):
            _move_side(session, game, color, to, by)
            moved += 1
    session.execute(update(Player).where(Player.merged_into == source.id).values(merged_into=to.id))
    source.merged_into = to.id
    return moved


def merges_into(session: Session, player_id: int) -> list[MergeView]:
    """The sides given to a player, newest first."""
    rows = session.execute(select(PlayerMerge, Player.name).outerjoin(Player, Player.id == PlayerMerge.from_player_id)
                           .where(PlayerMerge.to_player_id == player_id)
                           .order_by(PlayerMerge.merged_at.desc(), PlayerMerge.id.desc()))
    to = _row(session, player_id).name
    return [MergeView(m.game_id, m.color, name, to, m.merged_at, m.merged_by) for m, name in rows]


# ---------------------------------------------------------------------- levels
def set_level(session: Session, player_id: int, level: str | None) -> None:
    """Set a player's level by hand (an override; the ladder goes on from the next game)."""
    _row(session, player_id).level = level


def level_of(session: Session, name: str, size: int = ladder.MAIN_SIZE) -> str | None:
    """The level on the ladder of ``size`` of the player called ``name`` (None: unknown
    player or no level yet): the stored level for 9x9 (``ladder.MAIN_SIZE``); for another
    size the level after their last game of that size, or the 9x9 level before their
    first one."""
    p = player_for(session, name, create=False)
    return _level_on(session, p, size) if p else None


def _level_on(session: Session, person: Player, size: int) -> str | None:
    if size == ladder.MAIN_SIZE:
        return person.level
    last = session.scalar(select(LevelChange.level_after).join(Game, Game.id == LevelChange.game_id)
                          .where(LevelChange.player_id == person.id, Game.size == size)
                          .order_by(LevelChange.changed_at.desc(), LevelChange.game_id.desc()).limit(1))
    return last if last is not None else person.level


def record_game_end(session: Session, game: Game, levels: Sequence[str] | None = None) -> LevelChange | None:
    """After a game against an engine level ends: step the person's level on the ladder
    of the game's board size (``dashboard.ladder``; the stored level is 9x9's) and record
    the step, once per (player, game). Nothing for a game without a result, against no
    engine, or an engine whose level is unknown."""
    levels = ladder.default_levels() if levels is None else levels
    if not levels or game.result is None:
        return None
    sides = {c: session.get(Player, pid) if pid else None
             for c, pid in (("B", game.black_player_id), ("W", game.white_player_id))}
    for color, other in (("B", "W"), ("W", "B")):
        person, engine = sides[color], sides[other]
        if person is None or engine is None or person.kind != "human" or engine.kind != "engine":
            continue
        played = engine.level if engine.level in levels else ladder.level_in_name(engine.name, levels)
        result = ladder.outcome(game.result, color)
        if played is None or result is None or session.get(LevelChange, (person.id, game.id)) is not None:
            continue
        after = ladder.step(levels, played, result)
        change = LevelChange(player_id=person.id, game_id=game.id, opponent_level=played, outcome=result,
                             level_before=_level_on(session, person, game.size), level_after=after,
                             changed_at=_now())
        session.add(change)
        if game.size == ladder.MAIN_SIZE:
            person.level = after
        return change
    return None
