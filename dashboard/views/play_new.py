"""The Play page's new-game form: who plays, against which level, on which board.

| choice   | offered                                                               |
|----------|-----------------------------------------------------------------------|
| name     | the signed-in user's name, "guest" when nobody is signed in; editable   |
| opponent | the levels of ``gobuddy.ai.levels``, weakest first, their ranks as      |
|          | measured in ``models/LEVELS.md`` in the help; preselected with the     |
|          | name's place on the adaptive ladder (``Store.suggested_level``)         |
| size     | the sizes the engine plays (``SIZES``)                                  |
| colour, komi, handicap | as before                                               |

The name box is outside the form, so that a name typed offers that player's level at
once; the rest is one form. ``new_game_settings`` returns the choices (the keywords
of ``PlayGame.new``) when the form is submitted.

Not done here: starting and publishing the game (``views/play``), storing a level
chosen by hand (the ladder steps from the level played: ``dashboard.ladder``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from dashboard.views.login import IDENTITY
from dashboard.views.page_context import Services, current
from gobuddy.ai.levels import level_names

# The board sizes the engine plays: the shipped model's metadata (gobuddy.board_sizes of
# models/gobuddy-9x9.onnx) says 9 only, and a worker refuses the others. The dashboard
# does not load the model (the workers do, maybe on other machines); a test checks this
# against the shipped model.
SIZES = (9,)
LEVELS_MD = Path(__file__).resolve().parents[2] / "models" / "LEVELS.md"
NAME = "play_name"  # the name box
LEVEL = "play_level"  # the opponent box (preselected for the name)
LAST_NAME = "play_last_name"  # the name of the last game: the box's value next time


def signed_in_name() -> str:
    """The signed-in user's name, or "guest" when nobody is signed in."""
    identity = st.session_state.get(IDENTITY)
    return identity.name if identity is not None and identity.signed_in and identity.name else "guest"


def suggested_level(services: Services, name: str) -> str:
    """The level to offer ``name``: their place on the adaptive ladder, the weakest for
    a newcomer (or when the database cannot say)."""
    try:
        level = services.store.suggested_level(name.strip() or "guest")
    except SQLAlchemyError:
        level = None
    return level if level in level_names() else level_names()[0]


@st.cache_data(show_spinner=False)
def rank_estimates() -> dict[str, str]:
    """Level name -> its estimated rank ("20 kyu (26 kyu to 18 kyu)") from the
    calibration table of ``models/LEVELS.md``; empty when the file is not there."""
    try:
        text = LEVELS_MD.read_text(encoding="utf-8")
    except OSError:
        return {}
    names, found = set(level_names()), {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in names:
            found[cells[0]] = cells[4]
    return found


def level_help() -> str:
    estimates = rank_estimates()
    if not estimates:
        return "Weakest first. Your level follows your results: win and it steps up, lose and it steps down."
    return ("Weakest first; the names are targets. Measured on 9x9 against GNU Go (models/LEVELS.md), "
            "each level plays like about:\n\n" + "\n".join(f"- {n}: {estimates[n]}" for n in level_names()
                                                       if n in estimates)
            + "\n\nYour level follows your results: win and it steps up, lose and it steps down.")


def on_name() -> None:
    """Another name typed: offer that player's level."""
    st.session_state[LEVEL] = suggested_level(current(), st.session_state.get(NAME) or "guest")


def new_game_settings(services: Services) -> dict[str, Any] | None:
    """Draw the form; the choices (``PlayGame.new``'s keywords) once it is submitted."""
    st.subheader("New game")
    if NAME not in st.session_state:
        st.session_state[NAME] = st.session_state.get(LAST_NAME) or signed_in_name()
    if LEVEL not in st.session_state:
        st.session_state[LEVEL] = suggested_level(services, st.session_state[NAME])
    name = (st.text_input("Your name", max_chars=64, key=NAME, on_change=on_name) or "").strip() or "guest"
    st.caption(f"Suggested opponent for {name}: **{suggested_level(services, name)}** (from your results; "
               "choose another below if you like)")
    with st.form("play_new"):
        c1, c2, c3 = st.columns(3)
        level = c1.selectbox("Opponent", level_names(), key=LEVEL, help=level_help())
        colour = c2.radio("You play", ["Black", "White"], horizontal=True)
        size = c3.selectbox("Board size", SIZES, key="play_size", help="The sizes the engine's model plays.")
        c4, c5 = st.columns(2)
        komi = c4.number_input("Komi", value=7.0, step=0.5, min_value=-50.0, max_value=50.0)
        handicap = c5.selectbox("Handicap stones (black)", [0, 2, 3, 4, 5, 6, 7, 8, 9])
        started = st.form_submit_button("Start the game", type="primary")
    if not started:
        return None
    return dict(size=size, komi=float(komi), handicap=handicap, human=colour[0], level=level, player_name=name)


__all__ = ["LAST_NAME", "LEVEL", "SIZES", "new_game_settings", "rank_estimates", "signed_in_name",
           "suggested_level"]
