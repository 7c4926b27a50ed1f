"""bench_lcb's budget count on a short game of real searches (the shipped model)."""

from __future__ import annotations

from bench.bench_lcb import SHIPPED, spend
from gobuddy.ai.lcb import LcbConfig


def test_the_budget_count_of_each_choice():
    for choice in (LcbConfig(), None):
        out = spend(choice, SHIPPED, visits=48, games=1, seed=0)
        assert out.searches > 20 and len(out.saved) == out.searches
        assert 0 <= out.settled <= out.searches
        assert all(0.0 <= s < 1.0 for s in out.saved)
        assert sum(s > 0 for s in out.saved) <= out.settled, "only an early stop leaves budget unspent"
        if choice is None:
            assert out.differs == 0
