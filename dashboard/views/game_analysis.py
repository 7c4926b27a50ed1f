"""Asking the engine workers about a stored game's positions and storing their answers.

``analyse_positions`` sends the requests for all the positions asked at once, so the
broker's shared subscription spreads them over every engine worker, then stores each
answer (``Store.save_analysis``, keyed by the position) as it arrives and reports
progress. An answer whose ``position_key`` does not match the position asked about is
not stored (counted as failed). ``think_longer`` asks about one position with more
visits, hands each partial answer to a callback as the search grows, and stores the
final one (the deeper answer replaces the stored one). ``try_move`` asks about one
position without storing anything (the Replay page's variations).
"""

from __future__ import annotations

import concurrent.futures
import queue
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from dashboard.live_feed import LiveFeed
from dashboard.position_request import position_request
from dashboard.store import PositionKey, Store
from dashboard.store.games import GameDetail
from gobuddy.bus.messages import EngineRequest
from gobuddy.bus.requests import EngineRequestFailed

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class AnalysisRun:
    """How a batch went: positions stored, and a message per position that failed."""

    stored: int
    failed: dict[int, str]
    seconds: float


def game_request(detail: GameDetail, n: int, then: Sequence[tuple[str, str]] = (), *, to_play: str | None = None,
                 visits: int, timeout_s: float, report_every_ms: int | None = None) -> EngineRequest:
    """The ``analysis`` request (with ownership) for the position after ``n`` moves of
    the game, then the moves ``then``."""
    g = detail.game
    return position_request("analysis", size=g.size, komi=g.komi, rules=g.rules, setup=detail.setup,
                            moves=[(m.color, m.vertex) for m in detail.moves[:n]] + list(then), to_play=to_play,
                            visits=visits, timeout_s=timeout_s, include_ownership=True,
                            report_every_ms=report_every_ms)


def analyse_positions(feed: LiveFeed, store: Store, detail: GameDetail, keys: dict[int, PositionKey],
                      numbers: Sequence[int], *, visits: int, timeout_s: float,
                      progress: Progress | None = None) -> AnalysisRun:
    """Analyse the positions after ``numbers`` moves (each must be in ``keys``) and store
    the answers. All requests go out at once with one deadline, ``timeout_s`` from
    now; positions still unanswered then are reported as failed."""
    g = detail.game
    started = time.monotonic()
    futures: dict[concurrent.futures.Future, int] = {}
    failed: dict[int, str] = {}
    for n in numbers:
        request = game_request(detail, n, to_play=keys[n].to_play, visits=visits, timeout_s=timeout_s)
        try:
            futures[feed.request_async(request)] = n
        except Exception as exc:  # publish refused, not connected: report it per position
            failed[n] = f"{type(exc).__name__}: {exc}"
    stored, done, total = 0, len(failed), len(numbers)
    if progress:
        progress(done, total)
    try:
        for future in concurrent.futures.as_completed(futures, timeout=timeout_s + 1.0):
            n = futures[future]
            done += 1
            try:
                answer = future.result()
            except EngineRequestFailed as exc:
                failed[n] = str(exc)
            else:
                pk = answer.position_key
                if pk.hash != keys[n].hash or pk.move_count != n:
                    failed[n] = f"the answer is for another position ({pk.move_count} moves, {pk.hash})"
                else:
                    store.save_analysis(keys[n], answer.model, answer.to_dict(), move_count=n, game_id=g.id,
                                        move_number=n)
                    stored += 1
            if progress:
                progress(done, total)
    except concurrent.futures.TimeoutError:
        for future, n in futures.items():
            if not future.done():
                failed[n] = f"no engine answered within {timeout_s:.0f} s"
    return AnalysisRun(stored, failed, time.monotonic() - started)


def batch_timeout(config_timeout_s: float, positions: int, workers: int, per_position_s: float = 2.0) -> float:
    """A deadline for a batch: the single-request timeout plus ``per_position_s`` for
    each position, shared by the workers online (at least one)."""
    return config_timeout_s + per_position_s * positions / max(1, workers)


def try_move(feed: LiveFeed, detail: GameDetail, n: int, color: str, vertex: str, *, visits: int,
             timeout_s: float, before: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The engine's answer (dict) for the position after ``n`` moves, then the moves
    ``before`` (``(colour, vertex)``, a variation tried so far), then ``color`` playing
    ``vertex``. Raises ``TimeoutError``, ``EngineRequestFailed`` or
    ``ConnectionError``."""
    return feed.request(game_request(detail, n, [*before, (color, vertex)], visits=visits,
                                     timeout_s=timeout_s)).to_dict()


def think_longer(feed: LiveFeed, store: Store, detail: GameDetail, keys: dict[int, PositionKey], n: int, *,
                 visits: int, timeout_s: float, on_partial: Callable[[dict[str, Any]], None] | None = None,
                 report_every_ms: int = 500) -> tuple[dict[str, Any], bool]:
    """Analyse the position after ``n`` moves with ``visits`` visits (with ownership),
    asking for a partial answer every ``report_every_ms``: ``on_partial(answer_dict)``
    is called for each, in the calling thread, while the search runs. The final answer
    is stored (unless a deeper one is stored already) and returned with whether it
    was stored. Raises ``TimeoutError``,
    ``EngineRequestFailed``, ``ConnectionError``, or ``ValueError`` when the answer is for
    another position (not stored)."""
    if feed.client is None:
        raise ConnectionError("the dashboard runs without a broker (--no-bus)")
    g, key = detail.game, keys[n]
    request = game_request(detail, n, to_play=key.to_play, visits=visits, timeout_s=timeout_s,
                           report_every_ms=report_every_ms)
    partials: queue.Queue = queue.Queue()
    future = feed.client.request_async(request, on_partial=partials.put)
    deadline = time.monotonic() + timeout_s + 1.0
    while not future.done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no engine answered within {timeout_s:.0f} s (are engine workers online?)")
        try:
            partial = partials.get(timeout=0.1)
        except queue.Empty:
            continue
        if on_partial is not None:
            on_partial(partial.to_dict())
    while on_partial is not None and not partials.empty():  # those that came just before the final one
        on_partial(partials.get_nowait().to_dict())
    answer = future.result()
    pk = answer.position_key
    if pk.hash != key.hash or pk.move_count != n:
        raise ValueError(f"the answer is for another position ({pk.move_count} moves, {pk.hash})")
    stored = store.save_analysis(key, answer.model, answer.to_dict(), move_count=n, game_id=g.id, move_number=n)
    return answer.to_dict(), stored
