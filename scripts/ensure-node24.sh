#!/usr/bin/env bash
# Prints the path of a Node 24 binary for the tools that need it (code-server, dot-language-support
# in the language-server bench); the tests, the CLI and the extension run on the system Node.
# Installs Node 24 from the npm registry once (node-<platform>-<arch>@24, the binary package that
# `node@24` would fetch in its install script), into a cache directory outside node_modules: a dev
# dependency on `node` would put it first on the PATH of every npm script.
set -euo pipefail

PREFIX="${ATTRACTOR_NODE24_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor/node24}"
PACKAGE="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
exec "$(dirname "$0")/npm-cached-binary.sh" "$PREFIX" "$PACKAGE@24" "node_modules/$PACKAGE/bin/node"
