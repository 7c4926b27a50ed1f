"""The Replay page's report of a game: per player, the moves judged, accuracy, top-move and
top-five rates and the count of each class (``report_table``), the SGF download
with the review as comments and this session's variations as branches
(``sgf_download``, written when the button is pressed, not at every run), and how the
result was counted, in words (``count_words``, beside the final position).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import streamlit as st

from dashboard.mistakes import CLASSES, GameReview
from dashboard.store.games import GameDetail
from dashboard.store.sgf_io import export_sgf
from dashboard.views import variations as var
from dashboard.views.login import can
from dashboard.views.page_context import Services
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position


def report_table(review: GameReview) -> list[dict[str, Any]]:
    """One row per player (Black, White) for the report's table."""
    rows = []
    for color in "BW":
        p = review.players[color]
        row: dict[str, Any] = {"player": "Black" if color == "B" else "White", "moves judged": p.moves,
                               "accuracy": f"{p.accuracy:.0f}" if p.accuracy is not None else "–",
                               "top move": f"{100 * p.top_move_rate:.0f}%" if p.top_move_rate is not None else "–",
                               "top five": f"{100 * p.top5_rate:.0f}%" if p.top5_rate is not None else "–"}
        row.update({name: p.histogram.get(name, 0) for name in CLASSES})
        rows.append(row)
    return rows


def sgf_download(services: Services, detail: GameDetail) -> None:
    """The game as SGF with the review and this session's variations, written when the
    button is pressed (not at every step)."""
    if not can("download"):
        st.caption("Downloading SGF needs the player role.")
        return
    if detail.missing_moves:
        st.caption(f"No SGF yet: moves {list(detail.missing_moves)[:10]} have not been received.")
        return
    game_id, lines = detail.game.id, var.tree_for(detail.game.id).for_sgf()

    def text() -> str:
        with services.store.session() as session:
            return sgf_text(session, game_id, lines)

    st.download_button("Download SGF (review and variations)", text, file_name=f"{game_id}.sgf",
                       mime="application/x-go-sgf", key="replay_download", icon=":material/download:")


def sgf_text(session: Any, game_id: str, lines: Mapping[int, Any]) -> str:
    """``export_sgf`` with the variations; one that no longer fits the game is left out."""
    try:
        return export_sgf(session, game_id, variations=lines)
    except ValueError:
        return export_sgf(session, game_id)


def count_words(result: str | None, scoring: str, final: Position, dead: Sequence[str]) -> str:
    """How the result was counted: ``B+3.5 by area count; 4 white stones counted dead``
    (``scoring``: ``area`` or ``territory``; ``dead``: GTP vertices of ``final``, the
    count's position). Not checked: that the result is that count's."""
    colours = [final.board[from_gtp(v, final.size)] for v in dead]
    named = [f"{n} {name} stone{'s' * (n != 1)}" for name, n in
             (("black", colours.count(BLACK)), ("white", colours.count(WHITE))) if n]
    return f"{result or 'No result'} by {scoring} count; {' and '.join(named) or 'no stone'} counted dead"
