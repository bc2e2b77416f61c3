// Module resolution hooks (registered by stategate-resolve.mjs): `import … from "stategate"` and
// every `"stategate/…"` subpath resolve to the built package in pkg/ through its own
// package.json `exports`, as they would from node_modules after `npm i stategate` — so the
// README's, the docs' and examples/' code runs as a user writes it, unedited.

const PKG_ENTRY = new URL("../../../pkg/package.json", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "stategate" || specifier.startsWith("stategate/")) {
    // A package may import itself by name from inside its own scope (Node's self-reference),
    // which applies its `exports` map and conditions exactly as an installed copy's.
    return nextResolve(specifier, { ...context, parentURL: PKG_ENTRY });
  }
  return nextResolve(specifier, context);
}
