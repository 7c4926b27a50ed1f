"""The dashboard's pages (``live``, ``games``, ``replay``, ``play``, ``system``, ``users``),
each a file that ``st.navigation`` runs, and the parts they share: ``page_context`` (the
services of a run), ``login`` (the sign-in gate and the role checks before a write),
``game_board`` (board, win-rate bar, candidates), ``click_board`` (the clickable board),
``game_analysis`` (asking the workers about stored positions) and ``play_game`` (a game
against the engine and its bus messages). A page file renders only when run as a page
(``__name__ == "__main__"``); imported, it is a plain module whose functions tests use.
"""
