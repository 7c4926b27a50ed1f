"""Games: every stored game, newest first, searchable and filterable; rename, delete,
download as SGF (with the engine's evaluations as comments), open in Replay; import
SGF files. Who may do which: ``dashboard.access`` (download and import: players;
rename and delete: admins), checked on the server when the action runs
(``views/login.py``), not only by which controls are shown.

Everything here reads and writes the database through ``dashboard.store``. An SGF file
is imported all or nothing (``Store.import_sgf_file``): a file with any error stores none
of its games and the error is shown with the file's name; other files still import.
What was repaired to read a file (text around the game, repeated properties, setup
after the root...) is listed as a warning under its name.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any

import streamlit as st

from dashboard.store import GameFilter, SgfImportError, Store, UnknownGame
from dashboard.store.games import GameSummary
from dashboard.views.login import can, refusal, require
from dashboard.views.page_context import current
from dashboard.views.replay_data import dead_stones
from gobuddy.go.record import GameError

RESULTS = {"any": None, "black won": "B", "white won": "W", "draw": "draw", "unfinished": "unfinished"}
MODES = {"any": None, "two players": "two_players", "against the engine": "vs_engine", "imported": "imported"}
PAGE_SIZE = 200


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=timezone.utc)


def game_filter(text: str, since: date | None, until: date | None, board: str | None, result: str,
                mode: str) -> GameFilter:
    """The store's filter for the page's inputs; ``until`` includes that whole day (UTC)."""
    return GameFilter(text=text, since=day_start(since) if since else None,
                      until=day_start(until) + timedelta(days=1) if until else None, board_id=board,
                      result=RESULTS[result], mode=MODES[mode])


def import_files(store: Store, files: list[Any]) -> None:
    """Import each uploaded file on its own; report what was stored, what was repaired
    to read it, and what was not stored."""
    for upload in files:
        try:
            done = store.import_sgf_file(upload.getvalue())
        except SgfImportError as exc:
            st.error(f"{upload.name}: {exc}. Nothing from this file was stored.")
            continue
        ids = done.ids
        st.success(f"{upload.name}: {len(ids)} game{'s' if len(ids) != 1 else ''} imported.")
        if done.warnings:
            st.warning(f"{upload.name}: repaired while reading (the file breaks the SGF standard here):\n"
                       + "\n".join(f"- {w}" for w in done.warnings))
        st.session_state["games_selected"] = ids[0]


def game_label(g: GameSummary) -> str:
    """One line naming a game: date, title, players (when the title is a name), moves."""
    players = f"{g.black or '?'}–{g.white or '?'}, " if g.name else ""
    return f"{g.started_at:%Y-%m-%d %H:%M} · {g.title} ({players}{g.move_count} moves)"


def finished(g: GameSummary) -> bool:
    """A game that has ended: it has a result, or an end was recorded."""
    return g.result is not None or g.ended_at is not None


def default_game(games: list[GameSummary]) -> str | None:
    """The game a page opens on when none is asked for: the latest finished one (a game
    still being played is on the Live page), else the latest. ``games`` newest first."""
    done = [g for g in games if finished(g)]
    return (done or games)[0].id if games else None


ENDINGS = {"score": "counted", "resignation": "resigned", "time": "on time", "forfeit": "forfeit",
           "abandoned": "abandoned"}


SGF_ENDINGS = {"R": "resignation", "Resign": "resignation", "T": "time", "Time": "time", "F": "forfeit",
               "Forfeit": "forfeit"}


def ending(g: GameSummary) -> str:
    """How the game ended, for the list: ``counted, 3 dead`` / ``resigned`` / ...; empty
    while it goes on. An imported game has no recorded reason: its result (SGF ``RE``,
    ``B+R``, ``W+3.5``) tells it."""
    reason = g.end_reason
    if reason is None and g.result and "+" in g.result:
        reason = SGF_ENDINGS.get(g.result.split("+", 1)[1], "score")
    elif reason is None and g.result in ("0", "Draw", "Jigo"):  # SGF's draw: a count
        reason = "score"
    if reason is None:
        return ""
    said = ENDINGS.get(reason, reason)
    return f"{said}, {g.dead} dead" if reason == "score" and g.dead else said


def games_rows(games: list[GameSummary]) -> list[dict[str, Any]]:
    return [{"started": g.started_at.strftime("%Y-%m-%d %H:%M"), "game": g.title, "black": g.black or "",
             "white": g.white or "", "result": g.result or "", "ended": ending(g), "moves": g.move_count,
             "board": g.board_id or "", "mode": g.mode, "id": g.id} for g in games]


def counted(dead: list[str] | None) -> str:
    """What the summary says of the final count: `` · counted, 4 stones dead`` when the
    count named its dead stones (``games.dead``), else nothing."""
    if dead is None:
        return ""
    return f" · counted, {len(dead) or 'no'} stone{'s' * (len(dead) != 1)} dead"


def selected_game(store: Store, game: GameSummary) -> None:
    """Actions on one game: replay; download (players); rename, delete (admins)."""
    st.subheader(game.title)
    st.caption(f"{game.id} · {game.size}x{game.size}, komi {game.komi:g}, {game.rules} · {game.move_count} moves"
               + (f" · result {game.result}" if game.result else "") + counted(dead_stones(store, game.id)))
    c1, c2 = st.columns(2)
    if c1.button("Open in Replay", key="games_replay", icon=":material/replay:"):
        st.session_state["replay_game"] = game.id
        st.switch_page("views/replay.py", query_params={"game": game.id})
    if not can("download"):
        c2.caption("Downloading SGF needs the player role.")
    else:
        try:
            sgf = store.export_sgf(game.id)
        except GameError as exc:
            c2.warning(f"No SGF yet: {exc}")
        else:
            c2.download_button("Download SGF", sgf, file_name=f"{game.id}.sgf", mime="application/x-go-sgf",
                               key="games_download", icon=":material/download:")
    error = st.session_state.pop("games_error", None)
    if error:
        st.error(error, icon=":material/lock:" if error.startswith(("Only", "You were", "Sign in")) else None)
    if not can("rename"):
        st.caption("Renaming and deleting games needs the admin role.")
        return
    with st.form("games_rename"):
        st.text_input("Name", value=game.name or "", key=f"games_name_{game.id}",
                      placeholder=f"{game.black or 'Black'} vs {game.white or 'White'}")
        st.form_submit_button("Rename", on_click=_rename, args=(store, game.id))
    sure = st.checkbox("Yes, delete this game for good", key="games_delete_sure")
    st.button("Delete game", key="games_delete", disabled=not sure, type="primary", on_click=_delete,
              args=(store, game.id))


def _rename(store: Store, game_id: str) -> None:
    """Form callback: rename, when this session may (checked now, on the server)."""
    why = refusal("rename")
    if why:
        st.session_state["games_error"] = why
        return
    try:
        store.rename_game(game_id, st.session_state.get(f"games_name_{game_id}", ""))
    except (ValueError, UnknownGame) as exc:
        st.session_state["games_error"] = str(exc)


def _delete(store: Store, game_id: str) -> None:
    """Button callback (runs before the next script run, so it may reset widgets);
    deletes only when this session may (checked now, on the server)."""
    st.session_state["games_delete_sure"] = False
    why = refusal("delete")
    if why:
        st.session_state["games_error"] = why
        return
    try:
        store.delete_game(game_id)
    except UnknownGame as exc:
        st.session_state["games_message"] = str(exc)
    else:
        st.session_state["games_message"] = f"Deleted {game_id}."
    st.session_state.pop("games_selected", None)


def render() -> None:
    store = current().store
    st.title("Games")
    message = st.session_state.pop("games_message", None)
    if message:
        st.toast(message)
    if can("import"):
        with st.expander("Import SGF files", icon=":material/upload:"):
            files = st.file_uploader("SGF files", type=["sgf"], accept_multiple_files=True, key="games_upload")
            if st.button("Import", key="games_import", disabled=not files) and require("import"):
                import_files(store, list(files or []))
    boards = [b.id for b in store.boards()]
    c = st.columns([3, 2, 2, 2, 2, 2])
    text = c[0].text_input("Search (name, player, id)", key="games_text")
    since = c[1].date_input("From", value=None, key="games_since")
    until = c[2].date_input("Until", value=None, key="games_until")
    board = c[3].selectbox("Board", [None, *boards], format_func=lambda b: "any" if b is None else b,
                           key="games_board")
    result = c[4].selectbox("Result", list(RESULTS), key="games_result")
    mode = c[5].selectbox("Mode", list(MODES), key="games_mode")
    page = store.list_games(game_filter(text, since, until, board, result, mode), limit=PAGE_SIZE)
    shown = f"{len(page.games)} of {page.total}" if page.total > len(page.games) else f"{page.total}"
    st.caption(f"{shown} game{'s' if page.total != 1 else ''}, newest first")
    if not page.games:
        st.info("No stored game matches. Games appear here as they are played, or import SGF files above.")
        return
    st.dataframe(games_rows(page.games), hide_index=True, width="stretch", column_order=(
        "started", "game", "black", "white", "result", "ended", "moves", "board", "mode"))
    by_id = {g.id: g for g in page.games}
    if st.session_state.get("games_selected") not in by_id:
        st.session_state["games_selected"] = default_game(page.games)
    chosen = st.selectbox("Game", list(by_id), key="games_selected", format_func=lambda i: game_label(by_id[i]))
    selected_game(store, by_id[chosen])


if __name__ == "__main__":
    render()
