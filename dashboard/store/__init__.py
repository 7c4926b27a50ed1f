"""The history store of the dashboard: SQLAlchemy models, Alembic migrations, queries.

Start with ``Store.open(url)`` (``dashboard.store.repository``); wire messages are
applied by ``dashboard.ingest``.
"""

from dashboard.store.games import GameFilter, UnknownGame
from dashboard.store.players import PlayerError
from dashboard.store.analyses import PositionKey
from dashboard.store.repository import Store
from dashboard.store.sgf_io import SgfImportError

__all__ = ["GameFilter", "PlayerError", "PositionKey", "SgfImportError", "Store", "UnknownGame"]
