// `node --import ./tests/js/support/stategate-resolve.mjs program.mjs`, or an import of this
// file first: from then on "stategate" and "stategate/…" resolve to the built package in pkg/
// (see stategate-hooks.mjs). Used by the tests that run the docs' code and examples/.
import { register } from "node:module";

register(new URL("./stategate-hooks.mjs", import.meta.url));
