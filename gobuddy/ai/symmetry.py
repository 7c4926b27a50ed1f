"""The 8 symmetries of a square board, on planes and on flat point vectors.

Symmetry ``k`` (0..7) rotates by ``k % 4`` quarter turns (``np.rot90`` on the last two
axes) and then, for ``k >= 4``, mirrors left-right; ``k = 0`` is the identity. This is the
numbering ``training.position_shards`` uses for augmentation.

For flat vectors (policy with pass last, ownership without) the transform is a gather
with a precomputed permutation: ``forward(v, size, k)[q] == v[perm[q]]``; ``inverse``
undoes it, so a policy computed on transformed planes is mapped back to the original
board with ``inverse``. Pass (index ``size*size``) is fixed by every symmetry.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

COUNT = 8


def apply_planes(x: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` applied to the last two axes of ``x`` (a view when possible)."""
    if not 0 <= k < COUNT:
        raise ValueError(f"symmetry must be 0..7, got {k}")
    y = np.rot90(x, k % 4, axes=(-2, -1))
    return np.flip(y, axis=-1) if k >= 4 else y


@lru_cache(maxsize=None)
def permutation(size: int, k: int, with_pass: bool = True) -> np.ndarray:
    """Gather indices of symmetry ``k`` for flat vectors (``size*size`` [+1 for pass])."""
    n = size * size
    perm = np.ascontiguousarray(apply_planes(np.arange(n).reshape(size, size), k)).ravel()
    if with_pass:
        perm = np.append(perm, n)
    perm.setflags(write=False)
    return perm


@lru_cache(maxsize=None)
def inverse_permutation(size: int, k: int, with_pass: bool = True) -> np.ndarray:
    """Gather indices that undo ``permutation(size, k, with_pass)``."""
    inv = np.argsort(permutation(size, k, with_pass))
    inv.setflags(write=False)
    return inv


def _has_pass(v: np.ndarray, size: int) -> bool:
    last = v.shape[-1]
    if last not in (size * size, size * size + 1):
        raise ValueError(f"a flat vector on {size}x{size} has {size * size} or {size * size + 1} entries, got {last}")
    return last == size * size + 1


def forward(v: np.ndarray, size: int, k: int) -> np.ndarray:
    """Symmetry ``k`` on flat vectors (last axis: points, optionally then pass)."""
    return v[..., permutation(size, k, _has_pass(v, size))]


def inverse(v: np.ndarray, size: int, k: int) -> np.ndarray:
    """Undo symmetry ``k`` on flat vectors (last axis: points, optionally then pass)."""
    return v[..., inverse_permutation(size, k, _has_pass(v, size))]
