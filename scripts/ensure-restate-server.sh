#!/usr/bin/env bash
# Prints the path of the restate-server binary that the distributed test and bench start
# (`attractor worker` itself needs only the SDK; a team runs its own Restate server).
# Installs @restatedev/restate-server (a ~216 MB single binary: too big for every `npm ci`) from the
# npm registry once, into a cache directory outside node_modules, as ensure-node24.sh does Node 24.
set -euo pipefail

VERSION="1.7.12"
PREFIX="${ATTRACTOR_RESTATE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor/restate-server-$VERSION}"
PACKAGE="@restatedev/restate-server-$(node -p 'process.platform')-$(node -p 'process.arch')"
exec "$(dirname "$0")/npm-cached-binary.sh" "$PREFIX" "$PACKAGE@$VERSION" "node_modules/$PACKAGE/bin/restate-server"
