"""System: what is online and how fast it answers.

From the live feed: the dashboard's own bus connection; every board with how it reads
stones (colour or occupancy sensing) and its calibration, and while one calibrates, what
it waits for and what went wrong (``dashboard.board_sensing``), and its link problem
(a silent board, a port held by another process, a HELLO refused); per online board its
sensor health (``dashboard.sensor_health``: alarms, a 9x9 heat map of margins, the
figures of every point, weakest first, and how to recalibrate); per online board its
teacher (the level its learners' moves are judged at, or off; admins change it with a
``set_teaching`` board command) and who plays its next games (players and admins name
them with a ``set_players`` board command; a side left empty is a guest); every board and service
with its retained presence (online/offline and since when), engine workers with their
queue depth, speed and model; recent delays from a board message's timestamp to its
arrival here and engine round trips (p50/p95/max); recent error reports. From the
database: the boards it knows and how many games each has. Refreshes every two
seconds (a fragment).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import PurePath
from typing import Any, Sequence

import streamlit as st

from dashboard.board_sensing import BoardSensing, board_sensing
from dashboard.live_feed import LiveFeed, Presence
from dashboard.sensor_health import RECALIBRATE, alarms, board_health, light_words, margin_figure, point_rows
from dashboard.store import Store
from dashboard.views import login
from dashboard.views.page_context import current
from gobuddy.bus import topics
from gobuddy.ai.levels import level_names
from gobuddy.bus.board_messages import BoardCommand
from gobuddy.bus.game_events import GUEST


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; ``values`` must not be empty."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"samples": 0, "p50 ms": None, "p95 ms": None, "max ms": None}
    return {"samples": len(values), "p50 ms": round(percentile(values, 0.5), 1),
            "p95 ms": round(percentile(values, 0.95), 1), "max ms": round(max(values), 1)}


def _since(ts_ms: int) -> str:
    return datetime.fromtimestamp(ts_ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def presence_rows(items: list[Presence]) -> list[dict[str, Any]]:
    """One row a client: role, client, state (and why), since when, and what its role
    tells of itself in words (``presence_details``): the same columns for every role."""
    return [{"role": p.role, "client": p.client_id, "state": p.state, "reason": p.reason,
             "since": _since(p.since_ms or p.received_ms), "details": presence_details(p.role, p.details)}
            for p in items]


def presence_details(role: str, details: dict[str, Any]) -> str:
    """An engine worker's queue, speed, busy replies and model files (their names: where
    they lie on its machine is not the reader's concern), or a board's engine link and
    events not yet stored, in words; what a status does not say is left out."""
    parts: list[str] = []
    if role == "engine":
        for key, words in (("queue_depth", "queued"), ("evals_per_s", "evaluations/s"), ("busy", "busy replies")):
            if details.get(key) is not None:
                parts.append(f"{_count(details[key])} {words}")
        models = str(details.get("model") or "").split()
        if models:
            parts.append("models " + ", ".join(PurePath(m).name for m in models))
    elif role == "board":
        if details.get("engine") is not None:
            parts.append(f"engine {details['engine']}")
        if details.get("unstored_events") is not None:
            parts.append(f"{_count(details['unstored_events'])} events not stored yet")
    return " · ".join(parts)


def _count(value: Any) -> str:
    """A number with thousands separators; anything else as it is."""
    return f"{value:,}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def board_rows(items: list[Presence]) -> list[BoardSensing]:
    """The boards among ``items``, in their order."""
    return [board_sensing(p.client_id, p.online, p.details) for p in items if p.role == "board"]


def link_state(online: bool, details: dict[str, Any]) -> str:
    """A board's link in a word: its problem (``board_silent``, ``port_busy``, ...) or ok."""
    if not online:
        return "—"
    return str(details.get("link_problem") or ("ok" if details.get("serial_connected", True) else "disconnected"))


def render_boards(boards: list[BoardSensing], links: dict[str, str] | None = None) -> None:
    st.subheader("Boards")
    if not boards:
        st.caption("No board has announced itself yet.")
        return
    links = links or {}
    st.dataframe([{"board": b.board_id, "state": "online" if b.online else "offline",
                   "link": links.get(b.board_id, "—"), "sensing": b.sensing, "calibration": b.calibration}
                  for b in boards], hide_index=True, width="stretch")
    for b in boards:
        if b.message:
            st.info(f"{b.board_id}: {b.message}")
        if b.problem:
            st.warning(f"{b.board_id}, calibration problem: {b.problem}")


def link_alarm(details: dict[str, Any]) -> str:
    """The link problem of a board's ``details`` in words (empty when there is none)."""
    found = [a for a in alarms(details) if a.startswith(str(details.get("link_problem")))]
    return found[0] if found else ""


def render_health(items: list[Presence]) -> None:
    """Sensor health of each online board that sends it."""
    for p in items:
        if p.role != "board" or not p.online:
            continue
        health = board_health(p.details)
        if health is None:
            continue
        with st.expander(f"Sensor health: {p.client_id}", expanded=bool(health.alarms)):
            for alarm in health.alarms:
                st.error(alarm)
            st.caption(f"{light_words(health)}; {health.bursts} frames of random readings sat out. "
                       "Margin: how far a point reads from the nearest threshold (100%: on its level).")
            st.plotly_chart(margin_figure(health), key=f"health-{p.client_id}")
            st.dataframe(point_rows(health), hide_index=True, width="stretch", height=300)
            st.info(RECALIBRATE)
            recalibrate_button(p.client_id)


def recalibrate_button(board_id: str) -> None:
    """For admins: ask the board to recalibrate (as TURN DONE held; the board then guides
    the steps with its LEDs and its status shows them here)."""
    if not login.can("recalibrate"):
        return
    if st.button(f"Recalibrate {board_id}", key=f"recalibrate-{board_id}", icon=":material/tune:"):
        if login.require("recalibrate"):
            send_command(board_id, f"Asked {board_id} to recalibrate: clear the board; its LEDs guide the steps.",
                         command="recalibrate")


def send_command(board_id: str, done: str, **fields: Any) -> None:
    """Publish a ``BoardCommand`` of ``fields`` to ``board_id``, by the signed-in user;
    show ``done`` when the broker took it, else why not (broker away, a refused value)."""
    try:
        current().feed.publish(topics.board_command(board_id),
                               BoardCommand(board_id=board_id, by=login.user_name(), **fields))
    except Exception as exc:  # broker away, refused: say so
        st.error(f"Could not reach {board_id}: {exc}")
    else:
        st.success(done)


TEACHER_OFF = "off"


def render_teaching(items: list[Presence]) -> None:
    """Each online board's teacher (its status ``teaching``); players and admins set it
    (``set_teaching``: the learner at the board chooses, as on the Play page)."""
    for p in items:
        if p.role != "board" or not p.online:
            continue
        level = p.details.get("teaching")
        st.caption(f"{p.client_id}: teacher {'at ' + str(level) if level else 'off'}")
        if login.can("teach"):
            teaching_control(p.client_id, level)


def teaching_control(board_id: str, level: str | None) -> None:
    """Choose the board's teacher level (or off) and send it to the board,
    which judges its learners' moves at that level from then on (the game being played
    included)."""
    choices = [TEACHER_OFF, *level_names()]
    c = st.columns([3, 2])
    chosen = c[0].selectbox(f"Teacher on {board_id}", choices, key=f"teach-{board_id}",
                            index=choices.index(level) if level in choices else 0)
    if c[1].button(f"Set the teacher on {board_id}", key=f"teach-set-{board_id}", icon=":material/school:"):
        if not login.require("teach"):
            return
        wanted = None if chosen == TEACHER_OFF else chosen
        send_command(board_id, f"Asked {board_id} to teach at {wanted}." if wanted
                     else f"Asked {board_id} to stop teaching.", command="set_teaching", level=wanted)


def render_players(items: list[Presence]) -> None:
    """Each online board's players for its next games (its status ``player_black`` and
    ``player_white``); players and admins name them (``set_players``)."""
    for p in items:
        if p.role != "board" or not p.online:
            continue
        black, white = p.details.get("player_black"), p.details.get("player_white")
        st.caption(f"{p.client_id}: next games {black or GUEST} (black) against {white or GUEST} (white)")
        if login.can("play"):
            players_control(p.client_id, black, white)


def players_control(board_id: str, black: Any, white: Any) -> None:
    """Name who plays the board's next games and send it to the board (empty: a guest);
    the game being played keeps its players."""
    with st.form(f"players-{board_id}", border=False):
        c = st.columns([2, 2, 2])
        b = c[0].text_input(f"Black on {board_id}", value=str(black or ""), max_chars=64, placeholder=GUEST,
                            key=f"players-{board_id}-B")
        w = c[1].text_input(f"White on {board_id}", value=str(white or ""), max_chars=64, placeholder=GUEST,
                            key=f"players-{board_id}-W")
        if not c[2].form_submit_button(f"Set the players on {board_id}", icon=":material/group:"):
            return
    if not login.require("play"):
        return
    names = {"B": " ".join(b.split()) or None, "W": " ".join(w.split()) or None}
    send_command(board_id, f"Asked {board_id} to name {names['B'] or GUEST} (black) and {names['W'] or GUEST} "
                 "(white) in its next games.", command="set_players", players=names)


def latency_rows(feed: LiveFeed) -> list[dict[str, Any]]:
    rows = []
    delays = feed.delays()
    for kind in ("game_event", "board_state"):
        rows.append({"what": f"{kind} → dashboard", **summary([float(d) for k, d in delays if k == kind])})
    timings = feed.timings()
    for purpose in sorted({t.purpose for t in timings}):
        chosen = [t for t in timings if t.purpose == purpose]
        rows.append({"what": f"engine {purpose}: round trip", **summary([t.round_trip_ms for t in chosen])})
        rows.append({"what": f"engine {purpose}: search", **summary([t.search_ms for t in chosen])})
    return rows


def render_status(feed: LiveFeed, store: Store, broker: str) -> None:
    if feed.has_bus:
        st.markdown(f"Broker {broker}: " + (":green[connected]" if feed.connected() else ":red[not connected]"))
    else:
        st.markdown("Broker: none (the dashboard runs with --no-bus)")
    everyone = feed.presence()
    online = {role: sum(p.online for p in everyone if p.role == role) for role in ("board", "engine", "recorder")}
    c = st.columns(4)
    c[0].metric("Boards online", online["board"])
    c[1].metric("Engine workers online", online["engine"])
    c[2].metric("Recorder", "online" if online["recorder"] else "offline")
    queue = sum(int(p.details.get("queue_depth") or 0) for p in everyone if p.role == "engine" and p.online)
    c[3].metric("Engine queue", queue)
    render_boards(board_rows(everyone), {p.client_id: link_state(p.online, p.details)
                                         for p in everyone if p.role == "board"})
    for p in everyone:
        if p.role == "board" and p.online and p.details.get("link_problem"):
            st.warning(f"{p.client_id}: {link_alarm(p.details)}")
    render_health(everyone)
    render_teaching(everyone)
    render_players(everyone)
    st.subheader("Presence")
    if everyone:
        st.dataframe(presence_rows(everyone), hide_index=True, width="stretch",
                     column_config={"details": st.column_config.TextColumn(width="large")})
    else:
        st.caption("Nobody has announced itself on the bus yet.")
    st.subheader("Recent latencies")
    st.dataframe(latency_rows(feed), hide_index=True, width="stretch")
    errors = feed.errors()[-10:]
    if errors:
        st.subheader("Recent rejected messages")
        st.dataframe([{"by": f"{e.role}/{e.client_id}", "topic": e.topic, "kind": e.kind, "message": e.message}
                      for e in reversed(errors)], hide_index=True, width="stretch")
    st.subheader("Boards in the database")
    boards = store.boards()
    if boards:
        st.dataframe([{"board": b.id, "kind": b.kind, "games": b.games, "last seen": f"{b.last_seen:%Y-%m-%d %H:%M}",
                       "state": b.state or ""} for b in boards], hide_index=True, width="stretch")
    else:
        st.caption("No board has been stored yet.")


def render() -> None:
    services = current()
    st.title("System")
    broker = services.config.broker_address
    st.fragment(run_every=2.0)(render_status)(services.feed, services.store, broker)


if __name__ == "__main__":
    render()
