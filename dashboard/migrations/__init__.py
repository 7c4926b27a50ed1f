"""Alembic migrations of the history store (a package so that an install ships them)."""
