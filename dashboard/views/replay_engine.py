"""The Replay page's engine buttons: analyse this position (also when its stored
analysis has no ownership), the whole game over all workers, or think longer about
one position (partial answers shown as the search grows, the deeper answer stored);
the ownership toggle that says when a position has none; and how a tried move asks
the engine (``engine_asker``). Asking needs the player role, checked when the request
would go out (``require``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import streamlit as st

from dashboard.store.games import GameDetail
from dashboard.views import variations as var
from dashboard.views.game_analysis import analyse_positions, batch_timeout, think_longer, try_move
from dashboard.views.login import can, require
from dashboard.views.page_context import Services
from dashboard.views.replay_data import fresh
from gobuddy.bus.requests import EngineRequestFailed

THINK_FACTOR = 4


def analysis_buttons(services: Services, detail: GameDetail, keys: dict, answers: Mapping[int, Any], n: int) -> None:
    """Analyse this position (also when its analysis lacks the ownership), the whole
    game, or think longer about this one; with progress, then the page runs again."""
    feed, config = services.feed, services.config
    if not feed.has_bus:
        st.caption("No broker configured: only stored analyses are shown.")
        return
    allowed = can("analyse")  # the buttons stay (disabled) for viewers; a click is checked below all the same
    if not allowed:
        st.caption("Asking the engine needs the player role: only stored analyses are shown.")
    answer = answers.get(n)
    missing = [k for k in sorted(keys) if k not in answers]
    stored_visits = int(answer["root"]["visits"]) if answer else 0
    has_owner = bool(answer and answer.get("ownership") is not None)
    deeper = min(100_000, THINK_FACTOR * max(stored_visits, config.analysis_visits))
    row = st.container(horizontal=True)  # wraps when the column is too narrow for the three labels
    one = row.button("Analyse this position", key="replay_ask", disabled=(answer is not None and has_owner)
                     or not allowed,
                     help="Asks again where the stored analysis has no ownership")
    whole = row.button(f"Analyse the game ({len(missing)} left)", key="replay_all",
                       disabled=not missing or not allowed, type="primary",
                       help="Every position not analysed yet, spread over all engine workers")
    longer = row.button(f"Think longer ({deeper} visits)", key="replay_think", disabled=not allowed,
                        icon=":material/hourglass_top:",
                        help="A deeper search of this position, shown as it grows; the deeper answer is stored")
    if longer and require("analyse"):
        think(services, detail, keys, n, deeper)
        return
    numbers = [n] if one else (missing if whole else [])
    if not numbers or not require("analyse"):
        return
    workers = sum(p.online for p in feed.presence("engine"))
    bar = st.progress(0.0, text=f"Asking {workers} engine worker(s) about {len(numbers)} position(s)…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(1, total), text=f"{done} of {total} positions analysed")

    visits = max(config.analysis_visits, stored_visits) if one else config.analysis_visits
    run = analyse_positions(feed, services.store, detail, keys, numbers, visits=visits,
                            timeout_s=batch_timeout(config.analysis_timeout_s, len(numbers), workers),
                            progress=progress)
    st.session_state["replay_run"] = (run.stored, dict(list(run.failed.items())[:5]), len(run.failed), run.seconds)
    fresh()
    st.rerun()


def think(services: Services, detail: GameDetail, keys: dict, n: int, visits: int) -> None:
    """Think longer about the position after ``n`` moves: each partial answer shown in
    place (visits, best move, win rate), the final one stored, then the page runs again."""
    shown = st.empty()

    def grown(answer: Mapping[str, Any]) -> None:
        best = (answer.get("moves") or [{}])[0]
        shown.info(f"Thinking… {answer['root']['visits']} visits · best {best.get('move', '?')} · "
                   f"black {100 * float(answer['root']['winrate_black']):.1f}%", icon=":material/hourglass_top:")

    shown.info(f"Thinking about move {n} with {visits} visits…", icon=":material/hourglass_top:")
    timeout_s = services.config.analysis_timeout_s * THINK_FACTOR
    try:
        final, stored = think_longer(services.feed, services.store, detail, keys, n, visits=visits, timeout_s=timeout_s,
                             on_partial=grown)
    except (TimeoutError, EngineRequestFailed, ConnectionError, ValueError) as exc:
        shown.error(f"Thinking longer failed: {exc}")
        return
    best = (final.get("moves") or [{}])[0]
    st.session_state["replay_thought"] = (f"Thought longer: {final['root']['visits']} visits · best "
                                          f"{best.get('move', '?')} · " + (
                                              "stored." if stored else "the stored analysis searched more: kept."))
    fresh()
    st.rerun()


def engine_asker(services: Services, detail: GameDetail, n: int) -> var.Asker | None:
    """How a tried move gets the engine's answer, or None when the engine cannot be asked."""
    if not (services.feed.has_bus and can("analyse")):
        return None

    def ask(before: list[tuple[str, str]], color: str, vertex: str) -> Mapping[str, Any]:
        if not require("analyse"):
            raise PermissionError("asking the engine needs the player role")
        return try_move(services.feed, detail, n, color, vertex, before=before,
                        visits=services.config.analysis_visits, timeout_s=services.config.analysis_timeout_s)

    return ask


def ownership_toggle(answer: Mapping[str, Any] | None, has_bus: bool,
                     on_change: Callable[[], None] | None = None) -> None:
    """The territory toggle (``on_change`` called when it is switched); says when this
    position's analysis has no ownership."""
    has_owner = bool(answer and answer.get("ownership") is not None)
    help_text = None if has_owner else ("Not analysed yet: Analyse this position" if not answer else
                                        "Analysed without ownership: Analyse this position to get it")
    on = st.toggle("Show territory (ownership)", key="replay_ownership", help=help_text, on_change=on_change)
    if on and not has_owner:
        where = " (needs the engine workers)" if not has_bus else ""
        st.caption(("This position is not analysed yet" if not answer else
                    "This position was analysed without ownership")
                   + f": **Analyse this position** gets it{where}.")
