#!/usr/bin/env bash
# Builds the npm package into pkg/ once: the release wasm (optimised by wasm-opt from the npm
# package binaryen, never Debian's: TOOLCHAIN.md trap 1) with Node and web glue, plus the
# TypeScript façade. Prints the wasm size (raw and gzip).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh

rm -rf pkg
# One release build (opt-level 3, lto; Cargo.toml), then ES-module glue for Node and for the web
# (the glue imports JS snippets as ES modules, so Node's glue must be an ES module too).
cargo build --lib --release --target wasm32-unknown-unknown
wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/stategate.wasm"
wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node --out-name stategate_wasm "$wasm"
wasm-bindgen --target web --out-dir pkg/web --out-name stategate_wasm "$wasm"
for dir in node web; do
  wasm-opt -O3 "pkg/$dir/stategate_wasm_bg.wasm" -o "pkg/$dir/stategate_wasm_bg.wasm"
done

# The façade compiles next to the glue it imports.
cp ts/*.ts ts/tsconfig.json pkg/
(cd pkg && tsc -p .)
rm -f pkg/tsconfig.json
for f in pkg/*.ts; do case "$f" in *.d.ts) ;; *) rm "$f" ;; esac; done
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
cat > pkg/package.json <<JSON
{
  "name": "stategate",
  "version": "$version",
  "description": "State-governance core for LLM agents: message formats and repair, a governed state store with a hash-chained event log, model views, async and sync subagents (Rust, WebAssembly).",
  "license": "MIT",
  "type": "module",
  "main": "./index.js",
  "types": "./index.d.ts",
  "exports": {
    ".": { "browser": { "types": "./web.d.ts", "default": "./web.js" }, "types": "./index.d.ts", "default": "./index.js" },
    "./web": { "types": "./web.d.ts", "default": "./web.js" }
  },
  "files": ["*.js", "*.d.ts", "node/", "web/"]
}
JSON
raw=$(stat -c %s pkg/node/stategate_wasm_bg.wasm)
gz=$(gzip -9 -c pkg/node/stategate_wasm_bg.wasm | wc -c)
echo "build: pkg/ ready; wasm ${raw} bytes raw, ${gz} bytes gzip"
