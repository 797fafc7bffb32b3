#!/usr/bin/env bash
# Installs what the tests' PostgreSQL pass needs: PostgreSQL's server programs (initdb, pg_ctl,
# postgres) from Debian's postgresql package, and the `postgres` OS user it makes (the tests run
# the cluster as that user when they run as root). The tests start a private cluster of their own
# in a temporary directory (test/support/postgres.ts); nothing here starts or configures one, and
# Debian's own cluster, if the package made one, is left alone. Idempotent: does nothing when
# initdb is there. Needs root (or sudo) and apt; `npm run setup:postgres` runs it.
set -euo pipefail

find_initdb() {
  local bindir
  bindir="$(pg_config --bindir 2>/dev/null || true)"
  if [ -n "$bindir" ] && [ -x "$bindir/initdb" ]; then echo "$bindir/initdb"; return 0; fi
  # Debian's layout: /usr/lib/postgresql/<version>/bin, the newest first.
  local candidate
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ]; then echo "$candidate/initdb"; return 0; fi
  done
  return 1
}

if initdb="$(find_initdb)"; then
  echo "setup-postgres: $("$initdb" --version 2>/dev/null || echo initdb) already installed at $initdb"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-postgres: PostgreSQL's initdb is missing and apt-get is not available; install PostgreSQL's server by hand" >&2
  echo "  (or set DYNATWIN_SKIP_POSTGRES=1 to skip the tests' PostgreSQL pass)" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup-postgres: installing PostgreSQL needs root; run: apt-get install -y postgresql" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup-postgres: installing Debian's postgresql"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null

if ! initdb="$(find_initdb)"; then
  echo "setup-postgres: apt-get finished but initdb is still missing" >&2
  exit 1
fi
echo "setup-postgres: $("$initdb" --version 2>/dev/null || echo initdb) installed at $initdb"
