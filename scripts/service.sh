# The shared part of the scripts that run a private server for a command
# (scripts/agent-server.sh, scripts/postgres.sh): sourced, never run. The sourcing script sets
# SERVICE (its log prefix) and START_ATTEMPTS, and defines `install`, `prepare` (runs once, after
# the traps are set), `start_server` (returns 0 when ready, 3 when its port was taken meanwhile),
# `cleanup` (the EXIT trap: stops the server, whatever happened) and `export_url` (exports the
# variable CMD reads); then it calls `service_main "$@"`.
#
#   <script> install          install what the server needs (idempotent)
#   <script> run -- CMD ...   install, start the server (retrying a taken port), run CMD with the
#                             server's address exported, always stop the server; exits with CMD's
#                             status

log() { printf '%s: %s\n' "$SERVICE" "$*" >&2; }
die() { log "$*"; exit 1; }
usage() {
  echo "usage: $0 install | $0 run -- CMD [ARGS...]" >&2
  exit 2
}

now_ms() { date +%s%3N; }

free_port() {
  "${PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

CMD_PID=

# On INT or TERM: stop CMD (with TERM: as a background job of this script it ignores INT), give it
# ~3 s, then leave; the EXIT trap stops the server.
on_signal() { # exit status
  if [ -n "$CMD_PID" ] && kill -0 "$CMD_PID" 2>/dev/null; then
    kill -TERM "$CMD_PID" 2>/dev/null || true
    local i
    for i in $(seq 30); do
      kill -0 "$CMD_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$CMD_PID" 2>/dev/null || true
  fi
  exit "$1"
}

service_run() {
  [ $# -gt 0 ] || usage
  install
  trap cleanup EXIT
  trap 'on_signal 130' INT
  trap 'on_signal 143' TERM
  prepare

  local attempt status
  for attempt in $(seq "$START_ATTEMPTS"); do
    status=0
    start_server || status=$?
    [ "$status" -eq 3 ] || break
    [ "$attempt" -lt "$START_ATTEMPTS" ] || die "no free port after $START_ATTEMPTS attempts"
  done

  export_url
  # In the background so that a TERM or INT to this script is handled at once; stdin stays CMD's.
  status=0
  "$@" <&0 &
  CMD_PID=$!
  wait "$CMD_PID" || status=$?
  CMD_PID=
  exit "$status"
}

service_main() {
  case ${1:-} in
    install)
      [ $# -eq 1 ] || usage
      install
      ;;
    run)
      shift
      [ "${1:-}" = "--" ] && shift
      service_run "$@"
      ;;
    *) usage ;;
  esac
}
