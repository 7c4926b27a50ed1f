"""The dashboard with the Player page in its navigation, for the tests, whether or not
``dashboard/app.py`` lists it yet: an entry file in a folder of the test's own, with
``views`` linked to ``dashboard/views`` (pages are found relative to the entry file),
that adds the page after Replay when it is missing and runs ``dashboard.app.main``."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENTRY = '''import sys

from dashboard import app

PAGE = ("views/player.py", "Player", ":material/person:", "view")
if not any(p[0] == PAGE[0] for p in app.PAGES):
    at = [p[0] for p in app.PAGES].index("views/replay.py") + 1
    app.PAGES = (*app.PAGES[:at], PAGE, *app.PAGES[at:])
app.main(sys.argv[1:])
'''


def entry_file(folder: Path) -> Path:
    """Write the entry file into ``folder`` (with its ``views`` link); its path."""
    folder.mkdir(parents=True, exist_ok=True)
    views = folder / "views"
    if not views.exists():
        views.symlink_to(REPO / "dashboard" / "views", target_is_directory=True)
    entry = folder / "app_with_player.py"
    entry.write_text(ENTRY)
    return entry
