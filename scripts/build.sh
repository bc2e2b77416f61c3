#!/usr/bin/env bash
# Builds the npm package into pkg/ once: the release wasm (optimised by wasm-opt from the npm
# package binaryen, never Debian's: TOOLCHAIN.md trap 1) with Node and web glue, plus the
# TypeScript façade. Prints the wasm size (raw and gzip).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh

rm -rf pkg
wasm-pack build --release --target nodejs --out-dir pkg/node --out-name stategate_wasm --no-pack
# The web glue from the same optimised module: no second cargo build or wasm-opt run.
wasm-bindgen --target web --out-dir pkg/web --out-name stategate_wasm "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/stategate.wasm"
wasm-opt -O3 pkg/web/stategate_wasm_bg.wasm -o pkg/web/stategate_wasm_bg.wasm
rm -f pkg/node/.gitignore pkg/node/package.json

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
  "description": "State-governance core for LLM agents: message formats, provider validation, tool-call repair (Rust, WebAssembly).",
  "license": "MIT",
  "type": "module",
  "main": "./index.js",
  "types": "./index.d.ts",
  "exports": {
    ".": { "types": "./index.d.ts", "browser": "./web.js", "default": "./index.js" },
    "./web": { "types": "./web.d.ts", "default": "./web.js" }
  },
  "files": ["*.js", "*.d.ts", "node/", "web/"]
}
JSON
# The Node glue is CommonJS inside an ES-module package.
echo '{"type": "commonjs"}' > pkg/node/package.json
raw=$(stat -c %s pkg/node/stategate_wasm_bg.wasm)
gz=$(gzip -9 -c pkg/node/stategate_wasm_bg.wasm | wc -c)
echo "build: pkg/ ready; wasm ${raw} bytes raw, ${gz} bytes gzip"
