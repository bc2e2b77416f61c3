#!/usr/bin/env bash
# Fuzzes the core (issue 14): every cargo-fuzz target in fuzz/ for FUZZ_SECONDS (or $1) seconds
# each, one after the other (the machine has 2 cores), then prints per target the executions,
# exec/s and crashes. Exits non-zero if any target crashed, timed out or ran out of memory.
#
#   bash scripts/fuzz.sh [SECONDS]           # default 60 s per target (make fuzz)
#   FUZZ_TARGETS="store replay" bash scripts/fuzz.sh 120
#   FUZZ_MAX_LEN=65536 bash scripts/fuzz.sh  # longer inputs (default 16384 bytes)
#   STATEGATE_FUZZ_STRICT=1 ...              # also assert the undocumented properties (fuzz/src/lib.rs)
#   STATEGATE_FUZZ_ALLOW=EmptyMessage ...    # ignore known invariant gaps (fuzz/src/lib.rs)
#   FUZZ_FORK=1 ...                          # go on after a crash (libFuzzer -fork=1), to collect several
#   FUZZ_SEED=1 ...                          # libFuzzer's -seed: the same inputs in the same order
#   FUZZ_SMOKE=1 FUZZ_SEED=1 ...             # make test's smoke: a fixed number of runs per target
#                                            # (smoke_runs_of) from the committed seeds alone, in a
#                                            # fresh corpus, FUZZ_SECONDS only as a safety cap
#
# Installs what it needs, idempotently: cargo-fuzz (pinned, from crates.io) and the nightly
# toolchain it needs. Crashers go to fuzz/artifacts/<target>/, the growing corpora to
# fuzz/corpus/<target>/, logs to fuzz/logs/ (all ignored by git); the committed seeds are
# fuzz/seeds/ (regenerate with `cargo run --release --manifest-path fuzz/Cargo.toml --example seedgen`).
# Reproduce a crasher: cargo +nightly fuzz run -s none <target> fuzz/artifacts/<target>/<file>
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export RUST_BACKTRACE=${RUST_BACKTRACE:-1}  # a panic prints its location (no sanitizer to do it)

CARGO_FUZZ_VERSION=0.13.1
SECONDS_EACH=${1:-${FUZZ_SECONDS:-60}}
MAX_LEN=${FUZZ_MAX_LEN:-16384}
TARGETS=${FUZZ_TARGETS:-decode validate_repair project store replay transcript}

# The seed corpora of each target (the first corpus directory, fuzz/corpus/<target>, is the one
# libFuzzer writes to; these are only read).
seeds_of() {
  case $1 in
    decode) echo fuzz/seeds/messages ;;
    validate_repair) echo fuzz/seeds/messages fuzz/seeds/repair ;;
    project) echo fuzz/seeds/messages fuzz/seeds/project ;;
    store) echo fuzz/seeds/store ;;
    replay) echo fuzz/seeds/replay ;;
    transcript) echo fuzz/seeds/transcript fuzz/seeds/messages ;;
    *) echo "unknown fuzz target '$1'" >&2; exit 2 ;;
  esac
}

# The smoke's runs per target: about 5 s of each on the 2-core machine (exec/s differ 50-fold
# between targets). A number of runs, not a time, so every machine runs the same inputs.
smoke_runs_of() {
  case $1 in
    decode | validate_repair | transcript) echo 80000 ;;
    project) echo 25000 ;;
    store) echo 2500 ;;
    replay) echo 35000 ;;
  esac
}

if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
if [ ! -d fuzz/seeds/messages ]; then
  cargo run --quiet --release --manifest-path fuzz/Cargo.toml --example seedgen
fi

# -s none: the core has no unsafe code, so AddressSanitizer only slows it down; panics, overflow
# checks and debug assertions stay on (cargo fuzz's default release build keeps them).
build_start=$(date +%s)
cargo +nightly fuzz build -s none
echo "fuzz build: $(( $(date +%s) - build_start )) s"

mkdir -p fuzz/logs
extra=()
# A fixed seed makes a run replay the same inputs in the same order (a slower machine only runs a
# prefix of them): `make test` smokes with one, so its outcome depends on the change alone.
if [ -n "${FUZZ_SEED:-}" ]; then
  extra+=(-seed="$FUZZ_SEED")
fi
if [ "${FUZZ_FORK:-0}" = 1 ]; then
  extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
failed=0
summary=()
for t in $TARGETS; do
  read -r -a seeds <<<"$(seeds_of "$t")"
  corpus="fuzz/corpus/$t"
  runs=()
  if [ "${FUZZ_SMOKE:-0}" = 1 ]; then
    # A fresh corpus: what an earlier local run found must not change which inputs the smoke tries.
    corpus=$(mktemp -d)
    runs=(-runs="$(smoke_runs_of "$t")")
  fi
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  before=$(find "fuzz/artifacts/$t" -type f | sort)
  log="fuzz/logs/$t.log"
  printf '\n== fuzz %s: %s\n' "$t" "${runs[*]:-$SECONDS_EACH s}"
  rc=0
  cargo +nightly fuzz run -s none "$t" "$corpus" "${seeds[@]}" -- \
    -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -rss_limit_mb=2048 -timeout=10 \
    -dict=fuzz/json.dict -print_final_stats=1 "${runs[@]}" "${extra[@]}" >"$log" 2>&1 || rc=$?
  [ "${FUZZ_SMOKE:-0}" != 1 ] || rm -rf "$corpus"
  stat() { grep -Eo "stat::$1: *[0-9]+" "$log" | grep -Eo '[0-9]+$' | tail -1 || true; }
  execs=$(stat number_of_executed_units)
  rate=$(stat average_exec_per_sec)
  if [ "${FUZZ_FORK:-0}" = 1 ]; then # the parent's stats are zeros: use its last "#N: cov: ..." line
    execs=$(grep -Eo '^#[0-9]+: cov' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
    [ -z "$execs" ] || rate=$(( execs / (SECONDS_EACH > 0 ? SECONDS_EACH : 1) ))
  fi
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  new=$(comm -13 <(printf '%s\n' "$before") <(find "fuzz/artifacts/$t" -type f | sort) | sed '/^$/d')
  crashes=$(printf '%s' "$new" | grep -c . || true)
  line=$(printf '%-16s %10s execs %7s exec/s  cov %6s  crashes %s' "$t" "${execs:-0}" "${rate:-0}" "${cov:-?}" "$crashes")
  echo "$line"
  summary+=("$line")
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
    failed=1
    echo "FAILED: $t (exit $rc); its log is $log:" >&2
    grep -E -A1 "panicked at|has overflowed its stack|ERROR: libFuzzer|SUMMARY: libFuzzer" "$log" | cut -c1-400 | head -12 >&2 || tail -20 "$log" >&2
    [ -z "$new" ] || printf '  crasher: %s\n' $new >&2
  fi
done

if [ "${FUZZ_SMOKE:-0}" = 1 ]; then limit="the smoke's fixed runs, at most $SECONDS_EACH s"; else limit="$SECONDS_EACH s"; fi
printf '\n== fuzz summary (%s per target, -max_len=%s)\n' "$limit" "$MAX_LEN"
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "fuzzing found crashes: see fuzz/artifacts/ and fuzz/logs/" >&2
  exit 1
fi
