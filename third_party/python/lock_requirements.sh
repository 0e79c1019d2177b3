#!/usr/bin/env bash
# Regenerates requirements_lock.txt (hash-locked, CPython 3.11, linux x86_64) from
# requirements.in. The CPU torch wheel is not on PyPI: it is found through ETARM_WHEELS
# (default: bazelw's staged copy under ~/.cache/etarm/wheels).
set -euo pipefail
cd "$(dirname "$0")/../.."
WHEELS=${ETARM_WHEELS:-${ETARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/etarm}/wheels}
PYTHON=${ETARM_PYTHON:-python3.11}
VENV=$(mktemp -d)
trap 'rm -rf "$VENV"' EXIT
"$PYTHON" -m venv "$VENV"
PIP_CONFIG_FILE=/dev/null "$VENV/bin/pip" install -q --disable-pip-version-check pip-tools==7.6.2
PIP_CONFIG_FILE=/dev/null "$VENV/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras \
  --no-emit-find-links --find-links "$WHEELS" \
  --output-file requirements_lock.txt requirements.in
echo "wrote requirements_lock.txt"
