#!/usr/bin/env bash
# Usage: npm-cached-binary.sh PREFIX PACKAGE@VERSION BIN_PATH_IN_PREFIX
# Prints PREFIX/BIN_PATH_IN_PREFIX, installing PACKAGE@VERSION from the npm registry into PREFIX first
# when the binary is not there yet: the tools too big or too intrusive for package.json (Node 24,
# restate-server) live in a cache directory outside node_modules.
set -euo pipefail

PREFIX="$1"
SPEC="$2"
BIN="$PREFIX/$3"

if [ ! -x "$BIN" ]; then
  mkdir -p "$(dirname "$PREFIX")"
  # Installed aside and renamed into place: a concurrent caller never sees half an install.
  stage="$(mktemp -d "$PREFIX.staging-XXXXXX")"
  trap 'rm -rf "$stage"' EXIT
  npm install --prefix "$stage" --no-audit --no-fund --no-save --loglevel=error "$SPEC" >&2
  mv -T "$stage" "$PREFIX" 2>/dev/null || [ -x "$BIN" ]
fi
echo "$BIN"
