#!/usr/bin/env bash
# Runs a real PostgreSQL for the tests and benchmarks of `stategate/postgres-log`: a private
# cluster in a temporary directory, on a free loopback port, stopped and deleted afterwards.
#
#   scripts/postgres.sh install          Debian's `postgresql` with apt when no server binaries are
#                                        found under /usr/lib/postgresql/*/bin; returns at once
#                                        when they are
#   scripts/postgres.sh run -- CMD ...   install, initdb a cluster in a temporary directory, start
#                                        it on 127.0.0.1:PORT (a free port), create the database
#                                        `stategate`, run CMD with
#                                        STATEGATE_PG_URL=postgres://postgres@127.0.0.1:PORT/stategate,
#                                        then always stop the server and delete the directory;
#                                        exits with CMD's status. CMD runs in the repo root (paths
#                                        in it are relative to the root), whatever the caller's cwd
#
# Traps: initdb and postgres refuse to run as root, so as root they run as the `postgres` system
# user the Debian package creates (`runuser -u postgres --`), in a directory it owns; as anyone
# else they run as the caller. Authentication is `trust`, for the Unix socket in the temporary
# directory and for 127.0.0.1 only (the server listens nowhere else): a cluster for tests, never
# for data. `fsync` and `synchronous_commit` stay on (the defaults), so a commit the tests see
# acknowledged is on disk; only settings that cost nothing in safety are changed (no WAL
# senders, `wal_level=minimal`, no autovacuum of the few tables). POSTGRES_READY_TIMEOUT_SECS
# (default 30) bounds the wait for readiness. The server's log is copied to
# test-results/postgres.log when it stops.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

LOG_COPY=$ROOT/test-results/postgres.log
READY_TIMEOUT_SECS=${POSTGRES_READY_TIMEOUT_SECS:-30}
START_ATTEMPTS=3
DATABASE=stategate

SERVICE=postgres
# shellcheck source=scripts/service.sh
. "$ROOT/scripts/service.sh"

# The newest server's bin directory (Debian installs each major under /usr/lib/postgresql/N/bin).
bin_dir() {
  local d best=
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] || continue
    best=$d
  done
  # /usr/lib/postgresql/9.6 sorts after 15: take the highest major, not the last in glob order.
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] || continue
    if [ "$(basename "$(dirname "$d")" | cut -d. -f1)" -gt "$(basename "$(dirname "$best")" | cut -d. -f1)" ]; then best=$d; fi
  done
  [ -n "$best" ] && echo "$best"
}

install() {
  if bin_dir >/dev/null; then return 0; fi
  [ "$(id -u)" = 0 ] || die "no PostgreSQL server under /usr/lib/postgresql/*/bin, and installing it needs root (apt-get install -y postgresql)"
  log "installing Debian's postgresql with apt"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  bin_dir >/dev/null || die "apt installed postgresql but no server binaries are under /usr/lib/postgresql/*/bin"
  # The package starts its own cluster (port 5432) as a service; the tests never use it.
}


BIN=
TMP=
AS=()
STARTED=

# As root, the server's tools run as `postgres`; otherwise as the caller.
as_owner() { "${AS[@]}" "$@"; }

stop_server() {
  [ -n "$STARTED" ] || return 0
  STARTED=
  # fast: roll back open transactions and stop at once (a shutdown checkpoint, a few ms here);
  # immediate if that did not finish in 10 s.
  as_owner "$BIN/pg_ctl" -D "$TMP/data" -m fast -w -t 10 stop >/dev/null 2>&1 \
    || { log "the server did not stop in 10 s; stopping it immediately"; as_owner "$BIN/pg_ctl" -D "$TMP/data" -m immediate -w -t 10 stop >/dev/null 2>&1 || true; }
}

cleanup() {
  stop_server
  if [ -n "$TMP" ] && [ -d "$TMP" ]; then
    mkdir -p "$(dirname "$LOG_COPY")"
    [ -f "$TMP/postgres.log" ] && cp "$TMP/postgres.log" "$LOG_COPY" || true
    rm -rf "$TMP"
  fi
  TMP=
}

# A fresh cluster in $TMP/data: trust for the socket in $TMP and 127.0.0.1 only.
init_cluster() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/stategate-pg.XXXXXX")
  if [ "$(id -u)" = 0 ]; then
    id -u postgres >/dev/null 2>&1 || die "running as root, and there is no postgres system user to run the server as (the Debian package creates it)"
    AS=(runuser -u postgres --)
    chown postgres: "$TMP"
  fi
  as_owner "$BIN/initdb" -D "$TMP/data" --username=postgres --auth=trust --encoding=UTF8 --locale=C >"$TMP/initdb.log" 2>&1 \
    || { cat "$TMP/initdb.log" >&2; die "initdb failed"; }
  as_owner sh -c "cat >'$TMP/data/pg_hba.conf'" <<'EOF'
# scripts/postgres.sh: a throwaway test cluster, reachable only on its socket and 127.0.0.1.
local   all   all                  trust
host    all   all   127.0.0.1/32   trust
EOF
}

# Starts the server on a free port; returns 0 when ready, 3 when the port was taken meanwhile.
start_server() {
  PORT=$(free_port)
  local started_ms
  started_ms=$(now_ms)
  as_owner sh -c ": >'$TMP/postgres.log'"
  if ! as_owner "$BIN/pg_ctl" -D "$TMP/data" -l "$TMP/postgres.log" -w -t "$READY_TIMEOUT_SECS" -s \
    -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$TMP -c max_connections=200 -c fsync=on -c synchronous_commit=on -c wal_level=minimal -c max_wal_senders=0 -c autovacuum=off" \
    start >/dev/null 2>&1; then
    if grep -q "could not bind\|Address already in use" "$TMP/postgres.log"; then
      log "port $PORT was taken: $(grep -m1 "could not bind\|Address already in use" "$TMP/postgres.log")"
      as_owner "$BIN/pg_ctl" -D "$TMP/data" -m immediate -w stop >/dev/null 2>&1 || true
      return 3
    fi
    log "the server did not start within ${READY_TIMEOUT_SECS} s; last lines of its log:"
    tail -n 40 "$TMP/postgres.log" >&2
    exit 1
  fi
  STARTED=1
  as_owner "$BIN/psql" -X -q -h "$TMP" -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE $DATABASE" >/dev/null
  log "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') ready on 127.0.0.1:$PORT in $(( $(now_ms) - started_ms )) ms (data in $TMP, log test-results/postgres.log)"
}

# service.sh: before the first start (the server's binaries, a fresh cluster), and what CMD reads.
prepare() {
  BIN=$(bin_dir)
  init_cluster
}
export_url() { export STATEGATE_PG_URL=postgres://postgres@127.0.0.1:$PORT/$DATABASE; }

service_main "$@"
