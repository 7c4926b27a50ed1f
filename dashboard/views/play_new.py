"""The Play page's new-game form: who plays, against which level, on which board.

| choice   | offered                                                               |
|----------|-----------------------------------------------------------------------|
| name     | the signed-in user's name, "guest" when nobody is signed in; editable   |
| opponent | preselected: "your level", the name's place on the adaptive ladder of   |
|          | the size chosen (``Store.suggested_level``, the weakest for a newcomer; |
|          | one ladder per size), shown for the name in the box (per size when they |
|          | differ); or any level of ``gobuddy.ai.levels``, weakest first,          |
|          | their ranks on each size offered in the help (``levels_file``)          |
| size     | the dashboard's ``--play-sizes`` (``DashboardConfig.play_sizes``: 9x9  |
|          | and 13x13 by default, where the levels are calibrated), 9x9 first      |
| colour   | black or white                                                        |
| handicap | 0, or 2 to 9 fixed stones for black                                   |
| komi     | left empty: the usual one for the handicap (``default_komi``: 7 without |
|          | handicap stones, 0.5 with them); a komi the user typed stays            |

All of it is one form, so that typing a name and pressing Start is one step (a box
outside the form would run the page when it loses focus, and Streamlit drops a click
that lands during that run). So "your level" is resolved when the form is submitted,
for the name typed then; the label shows it for the name the box holds before typing.
``new_game_settings`` returns the choices (the keywords of ``PlayGame.new``).

Not done here: starting and publishing the game (``views/play``), storing a level
chosen by hand (the ladder steps from the level played: ``dashboard.ladder``).
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from dashboard.ladder import MAIN_SIZE
from dashboard.rank_estimate import estimated_rank_cell, level_rows, levels_file
from dashboard.views.login import IDENTITY
from dashboard.views.page_context import Services
from gobuddy.ai.levels import level_names

NAME = "play_name"  # the name box
LEVEL = "play_level"  # the opponent box (preselected for the name)
LAST_NAME = "play_last_name"  # the name of the last game: the box's value next time
SUGGESTED = "suggested"  # the opponent box's first choice: the level on the ladder of the name played under
KOMI = "play_komi"  # the komi box: empty means "the usual komi for the handicap"
EVEN_KOMI, HANDICAP_KOMI = 7.0, 0.5  # with handicap stones white gets no compensation beyond the tie-break


def signed_in_name() -> str:
    """The signed-in user's name, or "guest" when nobody is signed in."""
    identity = st.session_state.get(IDENTITY)
    return identity.name if identity is not None and identity.signed_in and identity.name else "guest"


def default_komi(handicap: int) -> float:
    """The usual komi for ``handicap`` stones: 7 in an even game, 0.5 with 2 or more."""
    return HANDICAP_KOMI if handicap >= 2 else EVEN_KOMI


def suggested_level(services: Services, name: str, size: int) -> str:
    """The level to offer ``name`` for a game of ``size``: their place on that size's
    adaptive ladder, the weakest for a newcomer (or when the database cannot say)."""
    try:
        level = services.store.suggested_level(name.strip() or "guest", size=size)
    except SQLAlchemyError:
        level = None
    return level if level in level_names() else level_names()[0]


@st.cache_data(show_spinner=False)
def rank_estimates(size: int = MAIN_SIZE) -> dict[str, str]:
    """Level name -> its estimated rank ("20 kyu (26 kyu to 18 kyu)") from the
    calibration table of the levels on ``size`` (``rank_estimate.levels_file``: 9x9's is
    ``models/LEVELS.md``); empty when that report is not there."""
    names = set(level_names())
    return {row["level"]: estimated_rank_cell(row) for row in level_rows(levels_file(size)) if row["level"] in names}


def level_help(sizes: tuple[int, ...]) -> str:
    """The opponent box's help: the levels' measured ranks on each size offered (a list
    for one size, a table with a column a size for several: the help box is short), and
    for a size whose calibration is not there, that they are not measured on it."""
    ladder = "Your level follows your results: win and it steps up, lose and it steps down."
    measured = {n: rank_estimates(n) for n in sizes}
    measured = {n: estimates for n, estimates in measured.items() if estimates}
    unmeasured = [f"{n}x{n}" for n in sizes if n not in measured]
    parts = []
    if len(measured) == 1:
        (n, estimates), = measured.items()
        parts.append(f"Measured on {n}x{n} against GNU Go ({_report(n)}), each level plays like about:\n\n"
                     + "\n".join(f"- {name}: {estimates[name]}" for name in level_names() if name in estimates))
    elif measured:
        rows = [f"| {name} | " + " | ".join(_short(estimates.get(name, "")) for estimates in measured.values()) + " |"
                for name in level_names()]
        parts.append("Measured against GNU Go on each size (" + ", ".join(_report(n) for n in measured)
                     + "), each level plays like about (the 95% range in brackets):\n\n"
                     + "| level | " + " | ".join(f"{n}x{n}" for n in measured) + " |\n"
                     + "|---" * (1 + len(measured)) + "|\n" + "\n".join(rows))
    if unmeasured:
        parts.append(f"On {', '.join(unmeasured)} the levels play the same way, but their ranks there are not "
                     "measured yet.")
    return ("Weakest first; the names are targets. " if measured else "Weakest first. ") + "\n\n".join(
        parts + [ladder])


def _report(size: int) -> str:
    return f"{levels_file(size).parent.name}/{levels_file(size).name}"


def _short(cell: str) -> str:
    """An estimated-rank cell made short for a table: "24 kyu (28 kyu to 22 kyu)" ->
    "24 kyu (28–22)" when both ends are kyu (or both dan); anything else as it is."""
    m = re.fullmatch(r"(\d+ (kyu|dan)) \((\d+) (kyu|dan) to (\d+) (kyu|dan)\)", cell.strip())
    if m and m.group(2) == m.group(4) == m.group(6):
        return f"{m.group(1)} ({m.group(3)}–{m.group(5)})"
    return cell


def new_game_settings(services: Services) -> dict[str, Any] | None:
    """Draw the form; the choices (``PlayGame.new``'s keywords) once it is submitted."""
    st.subheader("New game")
    if NAME not in st.session_state:
        st.session_state[NAME] = st.session_state.get(LAST_NAME) or signed_in_name()
    shown = st.session_state[NAME].strip() or "guest"
    sizes = services.config.play_sizes
    previews = {n: suggested_level(services, shown, n) for n in sizes}
    preview = " · ".join(f"{level} on {n}x{n}" for n, level in previews.items()) if len(
        set(previews.values())) > 1 else previews[sizes[0]]
    with st.form("play_new"):
        c1, c2, c3 = st.columns(3)
        typed = c1.text_input("Your name", max_chars=64, key=NAME)
        level = c2.selectbox("Opponent", [SUGGESTED, *level_names()], key=LEVEL, help=level_help(sizes),
                             format_func=lambda o: f"Your level ({shown}: {preview})" if o == SUGGESTED else o)
        size = c3.selectbox("Board size", sizes, key="play_size", format_func=lambda n: f"{n}x{n}",
                            help="The sizes this dashboard offers (--play-sizes).")
        c4, c5, c6 = st.columns(3)
        colour = c4.radio("You play", ["Black", "White"], horizontal=True)
        # Empty by default, decided when the form is submitted: a widget in a form cannot
        # follow another one while the user chooses (no rerun before the submit).
        komi = c5.number_input("Komi", value=None, step=0.5, min_value=-50.0, max_value=50.0, key=KOMI,
                               placeholder=f"{EVEN_KOMI:g}, or {HANDICAP_KOMI:g} with handicap")
        handicap = c6.selectbox("Handicap stones (black)", [0, 2, 3, 4, 5, 6, 7, 8, 9], key="play_handicap")
        started = st.form_submit_button("Start the game", type="primary")
    if not started:
        return None
    name = (typed or "").strip() or "guest"
    if level == SUGGESTED:  # the level on the ladder of the name the game is played under, at its size
        level = suggested_level(services, name, size)
    komi = default_komi(handicap) if komi is None else float(komi)
    return dict(size=size, komi=komi, handicap=handicap, human=colour[0], level=level, player_name=name)


__all__ = ["KOMI", "LAST_NAME", "LEVEL", "default_komi", "SUGGESTED", "new_game_settings", "rank_estimates", "signed_in_name",
           "suggested_level"]
