// Serves the repository root as static files on loopback, so the demo page (www/) can load the
// built package (pkg/) and the bundled transcripts (tests/fixtures/transcripts/) as plain ES
// modules and fetches. No dependencies. Usage:
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]     (then open http://127.0.0.1:8080/www/)
// The browser test imports `serve` and starts it on a free port (`port: 0`).
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".md": "text/plain; charset=utf-8", // shown in the tab rather than downloaded
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".ts": "text/plain; charset=utf-8",
};

/** The repository root (this file lives in scripts/). */
export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/**
 * Starts the server. Resolves with `{url, port, close}` once it listens; `close()` resolves once
 * every connection is closed. Only GET and HEAD; paths cannot leave `root`.
 */
export function serve({ root = ROOT, host = "127.0.0.1", port = 8080, log = false } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    const send = (status, text) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : text);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n");
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    } catch {
      return send(400, "bad request\n");
    }
    if (path.includes("\0")) return send(400, "bad request\n");
    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) return send(403, "forbidden\n");
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        if (!path.endsWith("/")) {
          res.writeHead(301, { location: path + "/" });
          return res.end();
        }
        file = join(file, "index.html");
        info = await stat(file);
      }
      res.writeHead(200, {
        "content-type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
        "content-length": info.size,
        "cache-control": "no-store",
      });
      if (req.method === "HEAD") return res.end();
      createReadStream(file).on("error", () => res.destroy()).pipe(res);
    } catch {
      send(404, "not found\n");
    } finally {
      if (log) console.log(`${req.method} ${path} ${res.statusCode}`);
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolvePromise({
        port: actual,
        url: `http://${host}:${actual}/`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.lastIndexOf(name);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
  };
  const { url } = await serve({ host: opt("--host", "127.0.0.1"), port: Number(opt("--port", 8080)), log: args.includes("--log") });
  console.log(`stategate demo: ${url}www/   (serving ${ROOT}; Ctrl-C stops)`);
}
