"""Fixtures for every test.

Streamlit's ``AppTest`` runs a page as ``__main__`` and leaves ``sys.modules["__main__"]``
pointing at it (for ``AppTest.from_function`` a temporary file that is gone afterwards).
A process pool started with ``spawn`` later in the same run (self-play, engine games)
re-runs ``__main__`` in each child, which then dies before doing any work. So the real
``__main__`` is put back after every test."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _keep_main_module() -> Iterator[None]:
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main
