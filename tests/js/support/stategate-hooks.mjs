// Module resolution hooks (registered by stategate-resolve.mjs): `import … from "stategate"` and
// every `"stategate/…"` subpath resolve to the built package in pkg/ through its own
// package.json `exports`, as they would from node_modules after `npm i stategate` — so the
// README's, the docs' and examples/' code runs as a user writes it, unedited.

import fs from "node:fs";

const PKG_ENTRY = new URL("../../../pkg/package.json", import.meta.url).href;
const pkgFile = (name) => new URL(`../../../pkg/${name}`, import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "stategate" || specifier.startsWith("stategate/")) {
    // A package may import itself by name from inside its own scope (Node's self-reference),
    // which applies its `exports` map and conditions exactly as an installed copy's.
    try {
      return await nextResolve(specifier, { ...context, parentURL: PKG_ENTRY });
    } catch (e) {
      // The one transition allowed: a package built before `FileLog` got its own subpath
      // exported it from the root (and kept pkg/file-log.js unexported). Anything else fails.
      if (specifier !== "stategate/file-log" || e?.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e;
      const file = fs.existsSync(pkgFile("file-log.js")) ? pkgFile("file-log.js") : pkgFile("index.js");
      return { url: file.href, format: "module", shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}
