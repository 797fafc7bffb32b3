#!/usr/bin/env bash
# Installs what the dashboard's browser test needs: Debian's Chromium at /usr/bin/chromium
# (driven by playwright-core, a devDependency; `npx playwright install` downloads a browser build
# of its own, which this project does not use). Idempotent: does nothing when Chromium is there.
# Needs root (or sudo) and apt; `npm run setup:browser` runs it.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "setup-browser: $("$CHROMIUM" --version 2>/dev/null || echo chromium) already installed at $CHROMIUM"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: $CHROMIUM is missing and apt-get is not available; install Chromium by hand" >&2
  echo "  (or set DYNATWIN_SKIP_BROWSER=1 to skip the browser test)" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup-browser: installing Chromium needs root; run: apt-get install -y chromium" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup-browser: installing Debian's chromium"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null

if [ ! -x "$CHROMIUM" ]; then
  echo "setup-browser: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
echo "setup-browser: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed at $CHROMIUM"
