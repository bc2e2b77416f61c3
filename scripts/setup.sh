#!/usr/bin/env bash
# Installs, idempotently, every tool the build and the tests need on a fresh machine of this kind
# (Debian 12, rustup toolchain, Node 20, npm). A second run only checks and returns in seconds.
# Facts behind each step: docs/TOOLCHAIN.md (traps 1-7).
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
[ -n "$WASM_BINDGEN_VERSION" ] || { echo "setup: cannot read the pinned wasm-bindgen version from Cargo.toml" >&2; exit 1; }

log() { printf 'setup: %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

# 1. The wasm32 target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
# The lints `make test` runs first (cargo fmt --check, cargo clippy).
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    log "adding the $component component"
    rustup component add "$component"
  fi
done

# 2. Cargo-installed tools (no binary downloads reach this machine).
cargo_tool() { # name version binary [--locked]
  local name=$1 version=$2 bin=$3 locked=${4:-}
  if ! "$bin" --version 2>/dev/null | grep -q "$version"; then
    log "installing $name $version with cargo"
    cargo install $locked "$name" --version "$version"
  fi
}
cargo_tool wasm-pack "$WASM_PACK_VERSION" wasm-pack --locked
# wasm-bindgen-cli must equal the crate's wasm-bindgen; --locked fails for this version (trap 2).
cargo_tool wasm-bindgen-cli "$WASM_BINDGEN_VERSION" wasm-bindgen
cargo_tool geckodriver "$GECKODRIVER_VERSION" geckodriver --locked

# 3. Browsers and chromedriver from Debian (never Debian's binaryen: trap 1).
need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
command -v firefox-esr >/dev/null || need_apt+=(firefox-esr)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]} with apt"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if dpkg -s binaryen >/dev/null 2>&1; then
  echo "setup: Debian's binaryen is installed; its wasm-opt 108 breaks wasm-bindgen output (docs/TOOLCHAIN.md trap 1). Remove it: apt-get remove binaryen" >&2
  exit 1
fi

# 4. npm dev dependencies (binaryen's JS wasm-opt, typescript, peers for differential tests, playwright-core).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

log "ready (wasm-bindgen $WASM_BINDGEN_VERSION, wasm-pack $WASM_PACK_VERSION)"
