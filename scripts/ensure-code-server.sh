#!/usr/bin/env bash
# Installs code-server (a real VS Code build) for the e2e suite, once: into a cache directory
# outside node_modules, under the Node 24 of scripts/ensure-node24.sh (code-server needs Node 24;
# its native modules need libkrb5-dev). Skips when already installed.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${ATTRACTOR_CODE_SERVER_PREFIX:-/opt/attractor-code-server}"
VERSION="${ATTRACTOR_CODE_SERVER_VERSION:-4.139}"

if [ -x "$PREFIX/bin/code-server" ]; then
  echo "code-server present: $PREFIX/bin/code-server"
  exit 0
fi
NODE24_BIN="$(dirname "$(scripts/ensure-node24.sh)")"
if ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends libkrb5-dev >/dev/null
fi
mkdir -p "$PREFIX"
PATH="$NODE24_BIN:$PATH" "$NODE24_BIN/node" "$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js" \
  i -g --prefix "$PREFIX" --no-audit --no-fund "code-server@$VERSION" --allow-scripts=code-server,argon2
"$PREFIX/bin/code-server" --version
