#!/usr/bin/env bash
# Runs a real Agent Protocol server (the LangGraph in-memory server from PyPI, offline on 127.0.0.1)
# for the async task ledger's integration tests, serving the four LLM-free graphs of
# tests/agent-server/ (echo, slow, fail, ask). Facts and traps: docs/AGENT_PROTOCOL_SERVER.md.
#
#   scripts/agent-server.sh install          venv .venv-agent-server/ from tests/agent-server/requirements.txt;
#                                            a second run with the same requirements returns at once
#   scripts/agent-server.sh run -- CMD ...   install, start the server on a free port, wait until it
#                                            serves all four graphs, run CMD with
#                                            STATEGATE_AGENT_SERVER_URL=http://127.0.0.1:PORT, then always
#                                            stop the server; exits with CMD's status. CMD runs in
#                                            the repo root (paths in it are relative to the root),
#                                            whatever the caller's cwd
#
# The server inherits this script's environment, so e.g. BG_JOB_TIMEOUT_SECS=3 (forces run status
# `timeout`) reaches it. PYTHON picks the interpreter for the venv (default python3, 3.11+ needed);
# AGENT_SERVER_READY_TIMEOUT_SECS (default 60) bounds the wait for readiness.
# Its log is test-results/agent-server.log.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

VENV=$ROOT/.venv-agent-server
PROJECT=$ROOT/tests/agent-server
REQUIREMENTS=$PROJECT/requirements.txt
STAMP=$VENV/.requirements.sha256
STATE_DIR=$PROJECT/.langgraph_api # the in-memory server pickles its state here (trap 3)
LOG=$ROOT/test-results/agent-server.log
PYTHON=${PYTHON:-python3}
READY_TIMEOUT_SECS=${AGENT_SERVER_READY_TIMEOUT_SECS:-60}
START_ATTEMPTS=3

SERVICE=agent-server
# shellcheck source=scripts/service.sh
. "$ROOT/scripts/service.sh"

# What the stamp must hold for the venv to be current: the requirements' hash and the interpreter.
wanted_stamp() {
  printf '%s %s\n' "$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)" "$("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
}

install() {
  local wanted
  wanted=$(wanted_stamp)
  if [ -x "$VENV/bin/langgraph" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ]; then
    return 0
  fi
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PYTHON is $("$PYTHON" --version 2>&1); the LangGraph server needs Python 3.11 or newer (set PYTHON)"
  # A fresh venv each time the pins change, so it holds exactly the frozen list and nothing left over.
  log "creating $VENV from tests/agent-server/requirements.txt (about 30 s)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$REQUIREMENTS"
  "$VENV/bin/pip" check --disable-pip-version-check >/dev/null || die "pip check failed in $VENV"
  echo "$wanted" >"$STAMP" # written last: an interrupted install is redone next time
  log "installed $("$VENV/bin/pip" freeze --disable-pip-version-check | grep -E '^langgraph(-cli|-api|-runtime-inmem)?==' | tr '\n' ' ')"
}


# Exits 0 once GET /ok is 200 and POST /assistants/search lists every graph of langgraph.json.
probe() { # url
  "$VENV/bin/python" - "$1" "$PROJECT/langgraph.json" <<'EOF'
import json, sys, urllib.request
url, config = sys.argv[1], sys.argv[2]
try:
    with urllib.request.urlopen(url + "/ok", timeout=2) as r:
        if r.status != 200:
            sys.exit(1)
    for graph_id in json.load(open(config))["graphs"]:
        body = json.dumps({"graph_id": graph_id, "limit": 10}).encode()
        req = urllib.request.Request(url + "/assistants/search", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=2) as r:
            if not any(a.get("graph_id") == graph_id for a in json.load(r)):
                sys.exit(1)
except Exception:
    sys.exit(1)
EOF
}

SERVER_PID=
SERVER_PGID=

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  local target=$SERVER_PID
  [ -n "$SERVER_PGID" ] && target=-$SERVER_PGID
  if kill -0 -- "$target" 2>/dev/null; then
    kill -TERM -- "$target" 2>/dev/null || true
    local i
    for i in $(seq 30); do # ~3 s
      kill -0 -- "$target" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 -- "$target" 2>/dev/null; then
      log "server did not stop on TERM within 3 s; sending KILL"
      kill -KILL -- "$target" 2>/dev/null || true
    fi
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID= SERVER_PGID=
}

cleanup() {
  stop_server
  rm -rf "$STATE_DIR"
}

# Starts the server on a free port; returns 0 when ready, 3 when the port was taken meanwhile.
start_server() {
  PORT=$(free_port)
  URL=http://127.0.0.1:$PORT
  : >"$LOG"
  # setsid: its own process group, stopped whole by stop_server (trap 5). The first two variables
  # stop its only outbound calls; no LangSmith key reaches it.
  (
    cd "$PROJECT"
    exec setsid env -u LANGSMITH_API_KEY -u LANGCHAIN_API_KEY -u LANGCHAIN_TRACING_V2 \
      LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true LANGSMITH_TRACING=false \
      PYTHONDONTWRITEBYTECODE=1 \
      "$VENV/bin/langgraph" dev --host 127.0.0.1 --port "$PORT" --no-browser --no-reload \
      --n-jobs-per-worker 10
  ) </dev/null >>"$LOG" 2>&1 &
  SERVER_PID=$!
  SERVER_PGID=$(ps -o pgid= -p "$SERVER_PID" 2>/dev/null | tr -d ' ' || true)
  # Only signal a group that the server leads, never ours.
  [ "$SERVER_PGID" = "$SERVER_PID" ] || SERVER_PGID=

  local started=$SECONDS started_ms
  started_ms=$(now_ms)
  while :; do
    if grep -q "already in use" "$LOG"; then # trap 2: it would move to another port
      log "port $PORT was taken: $(grep -m1 "already in use" "$LOG")"
      stop_server
      return 3
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      log "the server exited before it was ready; last lines of $LOG:"
      tail -n 40 "$LOG" >&2
      SERVER_PID= SERVER_PGID=
      exit 1
    fi
    if probe "$URL"; then
      log "ready at $URL in $(( $(now_ms) - started_ms )) ms (pid $SERVER_PID, log test-results/agent-server.log)"
      return 0
    fi
    if [ $((SECONDS - started)) -ge "$READY_TIMEOUT_SECS" ]; then
      log "not ready after ${READY_TIMEOUT_SECS} s (GET /ok = 200 and every graph in POST /assistants/search); last lines of $LOG:"
      tail -n 40 "$LOG" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# service.sh: before the first start, and what CMD reads.
prepare() {
  mkdir -p "$(dirname "$LOG")"
  rm -rf "$STATE_DIR"
}
export_url() { export STATEGATE_AGENT_SERVER_URL=$URL; }

service_main "$@"
