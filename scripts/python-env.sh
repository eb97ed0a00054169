#!/usr/bin/env bash
# A virtual environment in .venv with the ftlsim Python package built from
# this checkout (maturin) and what its tests and notebook need.
# Then: . .venv/bin/activate && python -c "import ftlsim"
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null || { echo "$PYTHON not found: install Python 3.9 or newer" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
    if ! "$PYTHON" -m venv .venv 2>/dev/null; then
        # Debian's Python keeps venv in a package of its own.
        if command -v apt-get >/dev/null; then
            apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        fi
        rm -rf .venv
        "$PYTHON" -m venv .venv
    fi
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "maturin>=1.5,<2" pytest numpy pandas tqdm matplotlib \
    "dask[distributed]" nbclient nbformat ipykernel
# Ray for the Ray executor's test (about a minute and 250 MB here). Its wheels
# lag new Python versions: without one the test skips, and says why.
python -m pip install --quiet "ray>=2.9" || echo "python-env.sh: ray did not install; its tests will skip" >&2
# Builds the extension with cargo (release) into the workspace's target/.
python -m pip install --quiet --force-reinstall --no-deps ./crates/ftlsim-py
