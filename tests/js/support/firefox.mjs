// Headless Firefox through geckodriver (W3C WebDriver over HTTP), shared by the browser tests
// (www.test.mjs, indexeddb.test.mjs).
//
// Env: FIREFOX_PATH (default /usr/bin/firefox-esr), GECKODRIVER (default: geckodriver on PATH or
// in ~/.cargo/bin; scripts/setup.sh installs both).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** The Firefox binary the tests drive. */
export const FIREFOX = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";
/** The geckodriver binary, or undefined when there is none. */
export const GECKODRIVER =
  process.env.GECKODRIVER ??
  [...(process.env.PATH ?? "").split(delimiter), join(homedir(), ".cargo", "bin")].map((d) => join(d, "geckodriver")).find((p) => existsSync(p));
/** Why Firefox cannot run here (a `describe` skip reason), or false when it can. */
export const NO_FIREFOX = !existsSync(FIREFOX) ? `no Firefox at ${FIREFOX}` : !GECKODRIVER ? "no geckodriver (scripts/setup.sh installs it)" : false;

/**
 * Starts geckodriver on a free loopback port and opens one headless Firefox session.
 * `args`: Firefox's command-line arguments (`-headless` and any window size).
 * Returns `{ wd(method, path, body?), session, close() }`: `wd` sends one WebDriver command and
 * returns its `value` (throwing with the driver's error); `session` is the session id;
 * `close()` ends the session and the driver.
 */
export async function startFirefox(args = ["-headless"]) {
  const driver = spawn(GECKODRIVER, ["--port", "0", "--host", "127.0.0.1"], { stdio: ["ignore", "pipe", "pipe"] });
  const base = await new Promise((resolve, reject) => {
    let out = "";
    const onData = (d) => {
      out += d;
      const m = /Listening on (127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(`http://${m[1]}`);
    };
    driver.stdout.on("data", onData);
    driver.stderr.on("data", onData);
    driver.once("exit", (code) => reject(new Error(`geckodriver exited (${code}): ${out}`)));
  });
  async function wd(method, path, body) {
    const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
    return json.value;
  }
  let session;
  try {
    session = (await wd("POST", "/session", { capabilities: { alwaysMatch: { browserName: "firefox", "moz:firefoxOptions": { binary: FIREFOX, args } } } })).sessionId;
  } catch (e) {
    driver.kill();
    throw e;
  }
  return {
    wd,
    session,
    async close() {
      await wd("DELETE", `/session/${session}`).catch(() => {});
      driver.kill();
    },
  };
}
