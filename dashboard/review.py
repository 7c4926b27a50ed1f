"""Reviewing finished games: every position analysed, the report stored, once per game.

    python -m dashboard.review --db sqlite:///var/gobuddy.db \\
        --username reviewer --password-file var/broker/secrets/reviewer.password [--watch 30]
    python -m dashboard.review --db sqlite:///var/gobuddy.db --no-engine   # stored analyses only

A game gets its result -> ``dashboard.ingest`` marks it ``pending``. This command (or the
player's page, in process, through the dashboard's own bus connection) takes the
pending games oldest first; for each, the positions that have no stored analysis are
asked of the engine workers over the bus (``views.game_analysis.analyse_positions``,
the Replay page's path: all at once, spread over the workers, stored by position, at
``--visits``, 100 by default), then ``dashboard.mistakes.review_game`` judges every move
and ``Store.save_review`` keeps the per-colour report and each judged move with its
class, loss and, for a mistake, the top reason kind (``mistake_kind``). A game whose
positions could not all be analysed is stored ``partial`` (``--retry-partial`` tries
those again). Each game is its own transaction: stopping and starting again goes on
where it stopped (resumable); progress is one line per game on standard output.

The bus account: ``reviewer`` (``broker/make_users.py`` makes it: it reads the bus and asks
the engine as itself, nothing else), or ``--no-engine``. With ``--watch SECONDS`` the
command is a service (``make run`` starts it): it looks for finished games as soon as the
bus shows a game ended (``next_look``), and every SECONDS anyway, and tries the partially
reviewed ones again every tenth look. SIGTERM or Ctrl-C stops it, exit status 0 (a game
half reviewed is left as it was, and reviewed at the next start).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from dashboard.mistakes import review_game
from dashboard.store import PositionKey, Store, UnknownGame
from dashboard.store.games import GameDetail
from dashboard.store.reviews import MISTAKE_CLASSES
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.record import GameError

log = logging.getLogger("dashboard.review")

DEFAULT_VISITS = 100
# (game detail, position keys by move count, the move counts to analyse) -> analysed count
Analyse = Callable[[GameDetail, Mapping[int, PositionKey], Sequence[int]], int]
Progress = Callable[[int, int, "Reviewed"], None]


@dataclass(frozen=True)
class Reviewed:
    """One game's review: how many positions it has, how many were asked of the engine
    and answered, moves judged, and whether it is complete (state ``done``)."""

    game_id: str
    positions: int
    asked: int
    analysed: int
    judged: int
    complete: bool
    accuracy: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class ReviewRun:
    games: list[Reviewed]
    seconds: float

    @property
    def done(self) -> int:
        return sum(g.complete for g in self.games)


def mistake_kind(position: Any, color: str, vertex: str, before: Mapping[str, Any] | None,
                 after: Mapping[str, Any] | None) -> str | None:
    """The kind of the top reason against a mistake (``gobuddy.explain.explain_move``:
    the first reason that counts against the move, else the first reason), or None when
    ``gobuddy.explain`` is not installed or has nothing to say. The one hook for mistake
    kinds: the review stores what it returns."""
    try:
        from gobuddy.explain import explain_move
    except ImportError:
        return None
    try:
        point = from_gtp(vertex, position.size)
        reasons = explain_move(position, point, color_from_str(color), before, after)
    except Exception as exc:  # an explanation must never stop a review
        log.debug("no reason for %s %s: %s", color, vertex, exc)
        return None
    against = [r for r in reasons if r.good is False]
    top = (against or list(reasons) or [None])[0]
    return top.kind if top is not None else None


def _kinds(detail: GameDetail, upto: int, answers: Mapping[int, Mapping[str, Any]],
           review: Any) -> dict[int, str | None]:
    """``mistake_kind`` of each mistake (inaccuracy or worse) of ``review``."""
    wanted = {m.number: m for m in review.moves if m.category in MISTAKE_CLASSES}
    if not wanted:
        return {}
    g = detail.game
    game = GoGame.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play, detail.setup,
                           [(m.color, m.vertex) for m in detail.moves[:upto]])
    kinds: dict[int, str | None] = {}
    for n, pos in game.positions():
        m = wanted.get(n + 1)
        if m is not None and m.vertex != "pass":
            kinds[m.number] = mistake_kind(pos, m.color, m.vertex, answers.get(n), answers.get(n + 1))
    return kinds


def review_one(store: Store, game_id: str, analyse: Analyse | None = None) -> Reviewed:
    """Review one game (see the module docstring); ``analyse`` asks the engine for the
    positions without a stored analysis (None: judge what is stored)."""
    detail = store.get_game(game_id)
    try:
        keys = store.position_keys(game_id)
    except GameError as exc:  # an unplayable record: nothing to judge, not worth retrying
        store.save_review(game_id, review_game([], {}), complete=False)
        return Reviewed(game_id, 0, 0, 0, 0, False, error=str(exc))
    answers = {n: a.answer for n, a in store.analyses_for_game(game_id).items()}
    missing = [n for n in sorted(keys) if n not in answers]
    analysed = 0
    if missing and analyse is not None:
        analysed = analyse(detail, keys, missing)
        answers = {n: a.answer for n, a in store.analyses_for_game(game_id).items()}
    upto = max(keys) if keys else 0
    review = review_game([(m.number, m.color, m.vertex) for m in detail.moves[:upto]], answers)
    complete = all(n in answers for n in keys) and not detail.missing_moves
    store.save_review(game_id, review, kinds=_kinds(detail, upto, answers, review), complete=complete)
    judged = sum(m.loss is not None for m in review.moves)
    return Reviewed(game_id, len(keys), len(missing) if analyse else 0, analysed, judged, complete,
                    {c: p.accuracy for c, p in review.players.items()})


def review_pending(store: Store, analyse: Analyse | None = None, *, partial: bool = False, limit: int | None = None,
                   progress: Progress | None = None) -> ReviewRun:
    """Review the games waiting for it, oldest first (``Store.games_to_review``)."""
    started = time.monotonic()
    ids = store.games_to_review(partial=partial, limit=limit)
    done: list[Reviewed] = []
    for i, game_id in enumerate(ids, start=1):
        try:
            result = review_one(store, game_id, analyse)
        except UnknownGame:  # deleted meanwhile
            continue
        done.append(result)
        if progress:
            progress(i, len(ids), result)
    return ReviewRun(done, time.monotonic() - started)


def engine_analyser(feed: Any, store: Store, *, visits: int = DEFAULT_VISITS, timeout_s: float = 30.0) -> Analyse:
    """An ``Analyse`` over the bus: the Replay page's batch path, with a deadline that
    grows with the positions and shrinks with the engine workers online."""
    from dashboard.views.game_analysis import analyse_positions, batch_timeout

    def analyse(detail: GameDetail, keys: Mapping[int, PositionKey], numbers: Sequence[int]) -> int:
        workers = sum(p.online for p in feed.presence("engine"))
        run = analyse_positions(feed, store, detail, dict(keys), list(numbers), visits=visits,
                                timeout_s=batch_timeout(timeout_s, len(numbers), workers))
        for n, why in sorted(run.failed.items())[:3]:
            log.warning("%s after %d moves: %s", detail.game.id, n, why)
        return run.stored

    return analyse


def line(i: int, total: int, r: Reviewed) -> str:
    """One progress line, for example ``[3/120] board-1-20260109-101500: 41 positions, 12
    asked (12 answered), 40 moves judged, done · accuracy B 84.1 W 77.0``."""
    acc = " ".join(f"{c} {a:.1f}" for c, a in sorted(r.accuracy.items()) if a is not None)
    state = "done" if r.complete else "partial"
    text = (f"[{i}/{total}] {r.game_id}: {r.positions} positions, {r.asked} asked ({r.analysed} answered), "
            f"{r.judged} moves judged, {state}")
    return text + (f" · accuracy {acc}" if acc else "") + (f" · {r.error}" if r.error else "")


# ---- command line ------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    from dashboard.config import DEFAULT_DB_URL
    from gobuddy.bus.cli import add_broker_arguments

    p = argparse.ArgumentParser(prog="python -m dashboard.review",
                                description="Review every finished game not reviewed yet: analyse its positions "
                                            "with the engine workers and store each player's report.")
    add_broker_arguments(p, default_username="reviewer")
    p.add_argument("--db", default=DEFAULT_DB_URL, help=f"SQLAlchemy URL of the history (default {DEFAULT_DB_URL})")
    p.add_argument("--visits", type=int, default=DEFAULT_VISITS, help=f"visits per position (default {DEFAULT_VISITS})")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds for one position's answer (default 30)")
    p.add_argument("--limit", type=int, default=None, help="review at most this many games")
    p.add_argument("--retry-partial", action="store_true", help="also games reviewed before without every position")
    p.add_argument("--no-engine", action="store_true", help="judge only what is stored; ask no engine")
    p.add_argument("--watch", type=float, default=None, metavar="SECONDS",
                   help="keep running: look for finished games every SECONDS (a service; games reviewed "
                        "partially are tried again every tenth look)")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def ended_games(feed: Any) -> frozenset[tuple[str, str | None]]:
    """(board, game) of every board the bus shows with an ended game."""
    return frozenset((b.board_id, b.game_id) for b in feed.boards() if b.status == "ended")


def next_look(feed: Any, store: Store, seconds: float, settle_s: float = 10.0) -> None:
    """Wait for the next look: ``seconds``, or less when a game ends on the bus (``feed``,
    a ``LiveFeed``; ``None``: just sleep). The recorder stores the result a moment after
    the board sends it, so after the news the store is read until the game is pending
    there, for at most ``settle_s``."""
    if feed is None:
        time.sleep(seconds)
        return
    before = ended_games(feed)
    if not feed.wait_for(lambda f: bool(ended_games(f) - before), seconds):
        return
    deadline = time.monotonic() + settle_s
    while time.monotonic() < deadline and not store.review_counts().get("pending", 0):
        time.sleep(0.2)


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.watch is not None and args.watch <= 0:
        p.error(f"--watch must be a positive number of seconds, got {args.watch:g}")
    if args.username == "dashboard" and args.watch is not None:
        log.warning("reviewing as 'dashboard' knocks a running dashboard off the broker; use the reviewer account")
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM (the launcher, systemd) stops like Ctrl-C
    try:
        return run(args)
    except KeyboardInterrupt:  # each game is its own transaction: the next start goes on where this one stopped
        log.info("stopped")
        return 0


def run(args: argparse.Namespace) -> int:
    """Review what waits (with ``--watch``: for ever); 0, or 1 when the broker cannot be reached."""
    store = Store.open(args.db)
    feed = None
    try:
        analyse = None
        if not args.no_engine:
            from dashboard.live_feed import LiveFeed
            from gobuddy.bus.cli import bus_config_from_args

            feed = LiveFeed(bus_config_from_args(args, role="dashboard"))
            if not feed.client.wait_connected(10.0):  # type: ignore[union-attr]
                print(f"cannot reach the broker at {args.broker_host}:{args.broker_port}", file=sys.stderr)
                return 1
            feed.wait_for(lambda f: any(x.online for x in f.presence("engine")), 5.0)
            analyse = engine_analyser(feed, store, visits=args.visits, timeout_s=args.timeout)
        looks = 0
        while True:
            waiting = store.review_counts()
            if args.watch is None or waiting.get("pending", 0) or (looks % 10 == 9 and waiting.get("partial", 0)):
                print(f"waiting: {waiting.get('pending', 0)} pending, {waiting.get('partial', 0)} partial, "
                      f"{waiting.get('done', 0)} reviewed", flush=True)
                run = review_pending(store, analyse, partial=args.retry_partial or looks % 10 == 9,
                                     limit=args.limit, progress=lambda i, n, r: print(line(i, n, r), flush=True))
                print(f"reviewed {len(run.games)} game(s) in {run.seconds:.1f} s: {run.done} done, "
                      f"{len(run.games) - run.done} partial", flush=True)
            if args.watch is None:
                break
            looks += 1
            next_look(feed, store, args.watch)
        return 0
    finally:
        if feed is not None:
            feed.close()
        store.close()


if __name__ == "__main__":
    sys.exit(main())
