"""The 8 board symmetries on planes and flat vectors."""

from __future__ import annotations

import numpy as np
import pytest

from gobuddy.ai import symmetry


def test_the_eight_symmetries_are_distinct_and_keep_pass_last():
    perms = {tuple(symmetry.permutation(5, k)) for k in range(8)}
    assert len(perms) == 8
    for k in range(8):
        assert symmetry.permutation(5, k)[-1] == 25
        assert symmetry.permutation(5, k, with_pass=False).shape == (25,)


@pytest.mark.parametrize("k", range(8))
def test_flat_forward_matches_planes_and_inverse_undoes_it(k):
    rng = np.random.default_rng(k)
    v = rng.standard_normal((3, 26))
    moved = symmetry.forward(v, 5, k)
    assert np.array_equal(moved[:, :25].reshape(3, 5, 5), symmetry.apply_planes(v[:, :25].reshape(3, 5, 5), k))
    assert np.array_equal(moved[:, 25], v[:, 25])
    assert np.array_equal(symmetry.inverse(moved, 5, k), v)
    own = rng.standard_normal(25)
    assert np.array_equal(symmetry.inverse(symmetry.forward(own, 5, k), 5, k), own)


@pytest.mark.parametrize("k, corner", [(0, 0), (1, 20), (2, 24), (3, 4), (4, 4), (5, 24), (6, 20), (7, 0)])
def test_where_the_top_left_corner_goes(k, corner):
    """Table: the stone on A5 (flat 0) of a 5x5 board after symmetry k."""
    board = np.zeros((5, 5))
    board[0, 0] = 1
    assert int(np.flatnonzero(symmetry.apply_planes(board, k))[0]) == corner


def test_refuses_bad_arguments():
    with pytest.raises(ValueError, match="symmetry must be 0..7"):
        symmetry.apply_planes(np.zeros((5, 5)), 8)
    with pytest.raises(ValueError, match="25 or 26 entries, got 24"):
        symmetry.forward(np.zeros(24), 5, 1)
