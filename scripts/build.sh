#!/usr/bin/env bash
# Builds the npm package into pkg/ once: the release wasm (optimised by wasm-opt from the npm
# package binaryen, never Debian's: TOOLCHAIN.md trap 1), ONE copy of it with one ES-module glue
# (wasm-bindgen's `web` target) that every `stategate` entry point shares, the message gate's
# smaller module for the `stategate/messages` entries (pkg/messages/), the TypeScript façade and
# adapters, CommonJS bundles of the Node entries (esbuild), declaration files that check without
# the DOM library, README, LICENSE and the docs (docs/*.md, BENCHMARKS.md). Prints the wasm size and the tarball's size and files.
# docs/package.md says which runtime gets which entry.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh

rm -rf pkg
mkdir -p pkg
# One release build (opt-level 3, lto; Cargo.toml) and one glue: the `web` target's glue loads
# the wasm from a URL (`init`) or from bytes / a compiled module (`initSync`), so Node, browsers,
# bundlers and workerd share it (the glue imports JS snippets as ES modules: no CommonJS glue).
# STATEGATE_PREBUILT_WASM=<cargo's stategate.wasm> skips cargo (a second work tree that changes
# only TypeScript: its Rust is the same); STATEGATE_PREBUILT_MESSAGES_WASM likewise for the
# message gate's module.
if [ -n "${STATEGATE_PREBUILT_WASM:-}" ]; then
  wasm=$STATEGATE_PREBUILT_WASM
else
  cargo build --lib --release --target wasm32-unknown-unknown
  wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/stategate.wasm"
fi
wasm-bindgen --target web --out-dir pkg --out-name stategate_wasm "$wasm"
# The producers and target-features sections say only which tools built the module (no engine
# reads them): left out, ~230 B of each module (issue 17, row 5).
wasm_opt=(wasm-opt -O3 --strip-producers --strip-target-features)
"${wasm_opt[@]}" pkg/stategate_wasm_bg.wasm -o pkg/stategate_wasm_bg.wasm
# The message gate's module (`stategate/messages`): the same crate without its `store` feature —
# decode, convert, validate, repair only — with its own glue in pkg/messages/ (its JS snippets
# differ from the whole module's), named apart from the whole module's files (a bundle that
# copies both, or an error that names one, cannot mix them up). Its own target directory, so switching features does not
# rebuild either module every time.
if [ -n "${STATEGATE_PREBUILT_MESSAGES_WASM:-}" ]; then
  messages_wasm=$STATEGATE_PREBUILT_MESSAGES_WASM
else
  messages_target="${CARGO_TARGET_DIR:-target}/messages"
  cargo build --lib --release --target wasm32-unknown-unknown --no-default-features --target-dir "$messages_target"
  messages_wasm="$messages_target/wasm32-unknown-unknown/release/stategate.wasm"
fi
wasm-bindgen --target web --out-dir pkg/messages --out-name stategate_messages "$messages_wasm"
"${wasm_opt[@]}" pkg/messages/stategate_messages_bg.wasm -o pkg/messages/stategate_messages_bg.wasm

# The adapters present in ts/ become subpaths (`stategate/<name>`), and so does the PostgreSQL
# log (Node only; its peer `pg`, like the adapters' frameworks, is optional).
adapters=()
for name in ai-sdk langchain openai-agents postgres-log; do
  [ ! -f "ts/$name.ts" ] || adapters+=("$name")
done
# The manifest first: the adapters import "stategate" itself, resolved through its exports.
node scripts/package-manifest.mjs "${adapters[@]}"

# The façade compiles next to the glue it imports.
cp ts/*.ts ts/tsconfig.json pkg/
(cd pkg && tsc -p .)
rm -f pkg/tsconfig.json
for f in pkg/*.ts; do case "$f" in *.d.ts) ;; *) rm "$f" ;; esac; done
node scripts/package-types.mjs

# CommonJS: the Node entry bundled with the glue (reading the same wasm file beside it), and
# each Node-side subpath (file-log, sse, the adapters); bare imports ("stategate", "ai", ...)
# stay requires.
cjs() { # entry (pkg/<entry>.js -> pkg/<entry>.cjs)
  esbuild "pkg/$1.js" --bundle --platform=node --format=cjs --packages=external --log-level=warning \
    --define:import.meta.url=__stategate_import_meta_url \
    --banner:js='const __stategate_import_meta_url = require("node:url").pathToFileURL(__filename).href;' \
    --outfile="pkg/$1.cjs"
}
for entry in index messages file-log sse "${adapters[@]}"; do cjs "$entry"; done

cp LICENSE pkg/
# README.md, BENCHMARKS.md and docs/*.md (with docs/'s small images) at their repository paths,
# so their relative links work in the installed package; links to what is not shipped
# (examples/, tests/, the screenshot) become "in the repository: <path>".
node scripts/package-docs.mjs
for f in stategate_wasm_bg.wasm messages/stategate_messages_bg.wasm; do
  echo "build: pkg/$f: $(stat -c %s "pkg/$f") bytes raw, $(gzip -9 -c "pkg/$f" | wc -c) bytes gzip"
done
echo "build: pkg/ ready"
# The tarball npm would publish: its size and every file in it.
(cd pkg && npm pack --dry-run --json 2>/dev/null) | node -e '
  const [p] = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log(`build: tarball ${p.filename}: ${p.size} bytes packed, ${p.unpackedSize} unpacked, ${p.entryCount} files`);
  for (const f of p.files) console.log(`  ${String(f.size).padStart(9)}  ${f.path}`);
'
