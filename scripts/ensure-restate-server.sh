#!/usr/bin/env bash
# Prints the path of the restate-server binary that the distributed test and bench start
# (`attractor worker` itself needs only the SDK; a team runs its own Restate server).
# Installs @restatedev/restate-server (a ~216 MB single binary: too big for every `npm ci`) from the
# npm registry once, into a cache directory outside node_modules, as ensure-node24.sh does Node 24.
set -euo pipefail

VERSION="1.7.12"
PREFIX="${ATTRACTOR_RESTATE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor/restate-server-$VERSION}"
PACKAGE="@restatedev/restate-server-$(node -p 'process.platform')-$(node -p 'process.arch')"
BIN="$PREFIX/node_modules/$PACKAGE/bin/restate-server"

if [ ! -x "$BIN" ]; then
  mkdir -p "$(dirname "$PREFIX")"
  # Installed aside and renamed into place: a concurrent caller never sees half an install.
  stage="$(mktemp -d "$PREFIX.staging-XXXXXX")"
  trap 'rm -rf "$stage"' EXIT
  npm install --prefix "$stage" --no-audit --no-fund --no-save --loglevel=error "$PACKAGE@$VERSION" >&2
  mv -T "$stage" "$PREFIX" 2>/dev/null || [ -x "$BIN" ]
fi
echo "$BIN"
