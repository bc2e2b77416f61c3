// Node tests of the release package (pkg/, optimised with wasm-opt): loading it at all catches a
// broken optimiser (TOOLCHAIN.md trap 1).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { validateMessages, repairMessages, convertMessages, readTranscript, decodeMessages, isStategateError } from "../../pkg/index.js";

const fixture = (name) => readFileSync(new URL(`../fixtures/transcripts/${name}`, import.meta.url), "utf8");
const call = (id, name, args = "{}") => ({ id, type: "function", function: { name, arguments: args } });
const PROVIDERS = ["openai", "anthropic", "gemini"];
const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];

test("rejected call: error result right after the assistant message, before the real one; idempotent", () => {
  const input = [
    { role: "user", content: "go" },
    { role: "assistant", content: null, tool_calls: [call("c1", "gated"), call("c2", "free")] },
    { role: "tool", tool_call_id: "c2", content: "ok" },
  ];
  const { messages, report } = repairMessages(input, { reasons: { c1: "rejected" } });
  assert.equal(messages.length, 4);
  assert.equal(messages[2].tool_call_id, "c1");
  assert.match(messages[2].content, /rejected/);
  assert.equal(messages[3], input[2], "c2's result is the caller's own object");
  assert.equal(messages[0], input[0]);
  assert.deepEqual(report, [{ kind: "rejected", action: "inserted", index: 1, toolCallId: "c1" }]);
  const again = repairMessages(messages, { reasons: { c1: "rejected" } });
  assert.deepEqual(again.report, []);
  assert.deepEqual(again.messages, messages);
  for (const provider of PROVIDERS) assert.deepEqual(validateMessages(messages, { provider }), [], provider);
});

test("LangChain dicts: the placeholder is a LangChain tool message with status error", () => {
  const input = [
    { type: "human", content: "q", id: "h1" },
    { type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "search", args: {} }, { id: "c2", name: "bad", args: {} }] },
    { type: "ai", content: "You interrupted me — what next?", id: "a2" },
  ];
  const { messages } = repairMessages(input);
  assert.deepEqual(messages.map((m) => m.type), ["human", "ai", "tool", "tool", "ai"]);
  assert.equal(messages[2].status, "error");
  assert.equal(messages[2].tool_call_id, "c1");
  assert.equal(messages[4], input[2]);
});

test("Anthropic: empty text block dropped, tool_use kept; results merged into the next message", () => {
  const input = [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "" }, { type: "tool_use", id: "t1", name: "f", input: {} }, { type: "tool_use", id: "t2", name: "g", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "two" }] },
  ];
  const before = validateMessages(input, { provider: "anthropic" }).map((v) => v.rule).sort();
  assert.deepEqual(before, ["EMPTY_TEXT_BLOCK", "MISSING_TOOL_RESULT"]);
  const { messages, report } = repairMessages(input, { provider: "anthropic" });
  assert.deepEqual(messages[1].content, [{ type: "tool_use", id: "t1", name: "f", input: {} }, { type: "tool_use", id: "t2", name: "g", input: {} }]);
  assert.deepEqual(messages[2].content.map((b) => b.tool_use_id), ["t1", "t2"]);
  assert.equal(messages[2].content[0].is_error, true);
  assert.deepEqual(report.map((f) => f.kind).sort(), ["empty_text", "missing_result"]);
  assert.deepEqual(validateMessages(messages, { provider: "anthropic" }), []);
});

test("tool content for text-only providers: [] becomes \"[]\", text parts one per line (never run together), media is a violation", () => {
  const base = [{ type: "human", content: "x" }, { type: "ai", content: "", tool_calls: [{ id: "a", name: "f", args: {} }, { id: "b", name: "f", args: {} }] }];
  const input = [...base, { type: "tool", tool_call_id: "a", content: [] }, { type: "tool", tool_call_id: "b", content: [{ type: "text", text: "x" }, { type: "text", text: "y" }] }];
  assert.deepEqual(validateMessages(input, { provider: "openai" }).map((v) => [v.rule, v.index]), [["TOOL_CONTENT_NOT_TEXT", 2]]);
  const { messages } = repairMessages(input, { provider: "openai" });
  assert.equal(messages[2].content, "[]");
  assert.equal(messages[3].content, "x\ny");
  const media = [...base.slice(0, 1), { type: "ai", content: "", tool_calls: [{ id: "a", name: "f", args: {} }] }, { type: "tool", tool_call_id: "a", content: [{ type: "image", url: "https://x/y.png" }] }];
  assert.deepEqual(validateMessages(media, { provider: "openai" }).map((v) => v.rule), ["NON_TEXT_TOOL_RESULT"]);
  assert.deepEqual(validateMessages(media, { provider: "anthropic" }), []);
});

test("every shared fixture loads; the 200 tau-bench runs have 0 OpenAI violations", () => {
  const tau = readTranscript(fixture("taubench-gpt4o-airline-historical.json"));
  assert.equal(tau.kind, "tau-bench");
  assert.equal(tau.runs.length, 200);
  assert.equal(tau.runs.reduce((n, r) => n + r.length, 0), 5308);
  for (const run of tau.runs) assert.deepEqual(validateMessages(run, { provider: "openai" }), []);
  const expected = { "claudecode-coverage-test-fix.jsonl": "claude-code", "sweagent-marshmallow-1867-fc.traj": "swe-agent", "openhands-basic-gui-mode.json": "open-hands" };
  for (const [file, kind] of Object.entries(expected)) {
    const t = readTranscript(fixture(file));
    assert.equal(t.kind, kind);
    assert.ok(t.runs[0].length > 5, file);
  }
});

test("fixtures in every format: skeleton path equals JSON path, repair output validates for each provider", () => {
  const runs = ["claudecode-coverage-test-fix.jsonl", "sweagent-marshmallow-1867-fc.traj", "openhands-basic-gui-mode.json"].map((f) => readTranscript(fixture(f)).runs[0]);
  runs.push(...readTranscript(fixture("taubench-gpt4o-airline-historical.json")).runs.slice(0, 20));
  for (const run of runs) {
    // cut each run in the middle of a tool batch to make dangling calls
    const cut = run.slice(0, run.findLastIndex((m) => m.tool_calls?.length) + 1);
    for (const to of FORMATS) {
      const messages = convertMessages(cut, { to });
      for (const provider of PROVIDERS) {
        const viaObjects = validateMessages(messages, { provider });
        assert.deepEqual(viaObjects, validateMessages(JSON.stringify(messages), { provider }), `${to}/${provider}`);
        const repaired = repairMessages(messages, { provider });
        assert.deepEqual(JSON.parse(JSON.stringify(repaired)), repairMessages(JSON.stringify(messages), { provider }), `${to}/${provider}`);
        assert.deepEqual(validateMessages(repaired.messages, { provider }), [], `${to}/${provider}`);
        assert.deepEqual(repairMessages(repaired.messages, { provider }).report, [], `idempotent ${to}/${provider}`);
      }
    }
  }
});

test("round trip: decoding and encoding to the same format keeps unmodelled fields", () => {
  const swe = JSON.parse(fixture("sweagent-marshmallow-1867-fc.traj")).history.filter((m) => m.role !== "tool");
  assert.deepEqual(convertMessages(swe, { to: "openai" }), swe);
  const tau = JSON.parse(fixture("taubench-gpt4o-airline-historical.json"))[0].traj;
  assert.deepEqual(convertMessages(tau, { to: "openai" }), tau);
  const lc = [{ content: "ok", additional_kwargs: { x: 1 }, response_metadata: {}, type: "ai", name: null, id: "a1", tool_calls: [{ name: "t", args: { x: 1 }, id: "c1", type: "tool_call" }], usage_metadata: null }];
  assert.deepEqual(convertMessages(lc, { to: "langchain" }), lc);
});

test("bad input: typed errors naming the code and the message index, never a crash", () => {
  const cases = [
    [[{ role: "user", content: "a" }, "not an object"], "INVALID_MESSAGE", 1],
    [[{ role: "wizard", content: "a" }], "UNKNOWN_ROLE", 0],
    [[{ role: "user", content: "a" }, { role: "tool", content: "r" }], "MISSING_TOOL_CALL_ID", 1],
    [[{ type: "ai", content: "", tool_calls: [{ name: "f", args: {} }] }], "INVALID_TOOL_CALL", 0],
  ];
  for (const [input, code, index] of cases) {
    for (const run of [() => validateMessages(input, { provider: "openai" }), () => repairMessages(input), () => convertMessages(input, { to: "gemini" })]) {
      assert.throws(run, (e) => e instanceof Error && e.code === code && e.details.index === index, `${code}`);
    }
  }
  assert.throws(() => validateMessages("[{", { provider: "openai" }), (e) => e.code === "INVALID_JSON");
  assert.throws(() => validateMessages({}, { provider: "openai" }), (e) => e.code === "INVALID_MESSAGE");
  assert.throws(() => validateMessages([], { provider: "mistral" }), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => convertMessages([], { to: "xml" }), (e) => e.code === "INVALID_OPTION");
  // arguments that are not JSON: an invalid call, repaired with its own reason
  const bad = [{ role: "user", content: "x" }, { role: "assistant", content: "", tool_calls: [call("c1", "f", "{bad")] }];
  const { messages, report } = repairMessages(bad);
  assert.equal(report[0].kind, "invalid_args");
  assert.match(messages[2].content, /malformed/);
  assert.doesNotMatch(messages[2].content, /cancel/);
  // 10 MB content and 100,000 messages: valid results
  const big = [{ role: "user", content: "x".repeat(10 * 1024 * 1024) }];
  assert.deepEqual(validateMessages(big, { provider: "anthropic" }), []);
  assert.equal(repairMessages(big).messages[0], big[0]);
  const many = [];
  for (let i = 0; i < 50_000; i++) many.push({ role: "user", content: `q${i}` }, { role: "assistant", content: `a${i}` });
  assert.deepEqual(validateMessages(many, { provider: "openai" }), []);
  assert.equal(repairMessages(many).messages.length, 100_000);
  // the module still works after all of the above
  assert.equal(decodeMessages([{ role: "user", content: "still alive" }])[0].content, "still alive");
});

test("a format option forces one reading: no detection, a message of another format refused with its index", () => {
  const plain = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];
  assert.deepEqual(decodeMessages(plain).map((m) => m.origin), ["openai", "openai"], "detected: the dominant default");
  assert.deepEqual(decodeMessages(plain, { format: "ai-sdk" }).map((m) => m.origin), ["ai-sdk", "ai-sdk"]);
  assert.deepEqual(convertMessages(plain, { to: "langchain", from: "anthropic" }).map((m) => m.type), ["human", "ai"]);
  assert.throws(() => decodeMessages([...plain, { type: "human", content: "x" }], { format: "openai" }), (e) => isStategateError(e) && e.details.index === 2);
  assert.throws(() => convertMessages(plain, { to: "openai", from: "chat" }), (e) => e.code === "INVALID_OPTION");
});

test("a Gemini part holding two kinds of data is refused naming them, not read as one (its text was lost converting)", () => {
  const history = [
    { role: "user", parts: [{ text: "hi" }] },
    { role: "model", parts: [{ text: "calling", functionCall: { name: "f", args: { a: 1 } } }] },
  ];
  for (const run of [() => convertMessages(history, { to: "openai" }), () => decodeMessages(history), () => validateMessages(history, { provider: "gemini" })]) {
    assert.throws(run, (e) => {
      assert.equal(e.code, "INVALID_MESSAGE");
      assert.equal(e.details.index, 1);
      assert.equal(e.details.field, "parts");
      assert.match(e.message, /part 0: a Gemini part holds one kind of data \(`Part.data` is a oneof\), and this one has `text` and `functionCall`/);
      return true;
    });
  }
  // Split into one part each, both reach the other format.
  const split = [history[0], { role: "model", parts: [{ text: "calling" }, { functionCall: { name: "f", args: { a: 1 } } }] }];
  const [, assistant] = convertMessages(split, { to: "openai" });
  assert.deepEqual([assistant.content, assistant.tool_calls[0].function.arguments], [[{ type: "text", text: "calling" }], '{"a":1}']);
});

test("an OpenAI call's function field beyond name and arguments is refused in both forms (it was dropped from every output)", () => {
  const history = [
    { role: "user", content: "x" },
    { role: "assistant", content: null, tool_calls: [call("c1", "f")] },
    { role: "tool", tool_call_id: "c1", content: "ok" },
  ];
  history[1].tool_calls[0].function.strict = true;
  for (const input of [history, JSON.stringify(history)]) {
    for (const run of [() => convertMessages(input, { to: "openai" }), () => repairMessages(input, { provider: "openai" }), () => validateMessages(input, { provider: "openai" })]) {
      assert.throws(run, (e) => {
        assert.equal(e.code, "INVALID_TOOL_CALL");
        assert.deepEqual([e.details.index, e.details.field], [1, "tool_calls"]);
        assert.match(e.message, /tool call 'c1': an OpenAI call's `function` is \{name, arguments\}; its `strict` is not read/);
        return true;
      });
    }
  }
  history[1].tool_calls[0].function.strict = null;
  assert.equal(convertMessages(history, { to: "openai" })[1].tool_calls[0].function.name, "f");
});
