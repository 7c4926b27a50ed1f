"""The dashboard's pages (``live``, ``games``, ``replay``, ``play``, ``system``), each a file
that ``st.navigation`` runs, and the small parts they share (``page_context``,
``click_board``, ``game_board``). A page file renders only when run as a page
(``__name__ == "__main__"``); imported, it is a plain module whose functions tests use.
"""
