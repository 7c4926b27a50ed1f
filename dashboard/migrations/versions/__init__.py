"""Alembic revision scripts, oldest first: 0001_initial, ..."""
