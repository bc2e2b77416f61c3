/**
 * `stategate/sse`: Server-Sent Events for live followers (docs/follow.md), Node only (ES module,
 * and CommonJS as `sse.cjs`). {@link SseHub} serves one server store's run to any number of
 * followers — browsers reading it with `followEventSource` from `"stategate"` — sending only
 * what may leave the server: `exportForTransport()` and `transportEvents()` (private channels
 * never go out).
 *
 * It imports no `node:` module (its request and response types are the members of `node:http`'s
 * it uses, so the declarations need no `@types/node`): the caller's server hands each request to
 * `hub.handle(req, res)`.
 * @example
 * import http from "node:http";
 * import { StateStore } from "stategate";
 * import { SseHub } from "stategate/sse";
 * let hub;
 * const store = new StateStore({ runId: "r1", onEvents: () => hub.notify() });
 * hub = new SseHub(store);
 * http.createServer((req, res) => (req.url.startsWith("/events") ? hub.handle(req, res) : res.writeHead(404).end())).listen(8080);
 */
import { SseHub as UnguardedSseHub } from "./sse-hub.js";
import { guardClass } from "./errors.js";

export type { SseConnect, SseHubOptions, SseRequest, SseResponse } from "./sse-hub.js";
/** See {@link UnguardedSseHub}: every failure is a `StategateError` (`INVALID_OPTION`, `BUSY`, `FREED` of the store). */
export const SseHub = guardClass(UnguardedSseHub);
/** A hub instance. */
export type SseHub = UnguardedSseHub;
