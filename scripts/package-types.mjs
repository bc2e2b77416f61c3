// Makes pkg/'s declaration files what a consumer's `tsc --strict` checks with `lib: ["es2022"]`
// alone (no DOM library, no @types/node, no esnext.disposable) and gives CommonJS its own copies:
//
// - the wasm-bindgen glues' declarations (the whole module's and the message gate's) lose their loader section (`InitInput`, `initSync`,
//   `__wbg_init`: DOM and WebAssembly types; the package's own `load` / `loadSync` replace them)
//   and the `[Symbol.dispose]()` members (`free()` is the same call, typed everywhere);
// - `wasm.d.ts` types the `stategate/wasm` subpath (the wasm file's URL, as bundlers give it);
// - every `X.d.ts` gets an `X.d.cts` twin whose relative imports name `.cjs` files, the types of
//   the CommonJS entries (`require("stategate")`, `.cts` files under node16 / nodenext).
//
// Run by scripts/build.sh after tsc; the pack test (tests/pack/) checks the result.
import fs from "node:fs";
import path from "node:path";

const dir = "pkg";
// Both glues: the whole module's and the message gate's (`stategate/messages`, in messages/).
for (const [sub, name] of [["", "stategate_wasm"], ["messages", "stategate_messages"]]) {
  const glue = path.join(dir, sub, `${name}.d.ts`);
  let text = fs.readFileSync(glue, "utf8");
  const loader = text.indexOf("export type InitInput");
  if (loader < 0) throw new Error(`package-types: ${glue}'s loader section (InitInput) was not found: did wasm-bindgen change?`);
  text = text.slice(0, loader).replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, "");
  for (const name of [/\bRequestInfo\b/, /(?<![\w.])Response\b/, /\bWebAssembly\./, /Symbol\.dispose/]) {
    if (name.test(text)) throw new Error(`package-types: ${glue} still uses ${name}`);
  }
  fs.writeFileSync(glue, text);
  fs.rmSync(path.join(dir, sub, `${name}_bg.wasm.d.ts`), { force: true });
}

fs.writeFileSync(
  path.join(dir, "wasm.d.ts"),
  `/** \`stategate/wasm\` (\`stategate/messages/wasm\`): the package's wasm file (the message gate's),
 * as your bundler imports it (esbuild's \`--loader:.wasm=file\` gives its URL). Pass it to \`load\`
 * from \`"stategate/web"\` (\`"stategate/messages/web"\`). */
declare const wasmUrl: string;
export default wasmUrl;
`,
);

for (const file of fs.readdirSync(dir, { recursive: true })) {
  if (!file.endsWith(".d.ts") || file === "wasm.d.ts") continue;
  const source = fs.readFileSync(path.join(dir, file), "utf8");
  const cjs = source.replace(/((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.js\2/g, "$1$2$3.cjs$2");
  fs.writeFileSync(path.join(dir, file.replace(/\.d\.ts$/, ".d.cts")), cjs);
}
