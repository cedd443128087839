#!/usr/bin/env bash
# Test setup for the consent page's browser tests (test_oauth_proxy_browser.py, next to this file):
# makes Debian's Chromium available at /usr/bin/chromium, installing the `chromium` package with
# apt-get when it is missing (as root, or through sudo). Idempotent and quiet; prints the browser's path.
# The tests find it there (or at MCP_TEST_CHROMIUM); under CI=true they fail, not skip, without it.
set -euo pipefail
CHROMIUM=${MCP_TEST_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  command -v apt-get >/dev/null 2>&1 || { echo "fetch_chromium: apt-get is needed to install chromium" >&2; exit 1; }
  SUDO=
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "fetch_chromium: root or sudo is needed to install chromium" >&2; exit 1; }
    SUDO="sudo -n"
  fi
  export DEBIAN_FRONTEND=noninteractive
  # The package lists of a fresh machine may be empty or stale: refresh them once, then install.
  $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 \
    || { $SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
  [ -x "$CHROMIUM" ] || { echo "fetch_chromium: chromium installed but $CHROMIUM is missing" >&2; exit 1; }
fi
echo "$CHROMIUM"
