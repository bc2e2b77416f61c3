// The workload of benches/postgres.bench.mjs and its writers: real conversation messages, and
// the LangGraph checkpoint chain a thread of them makes.
//
// The messages are the user and assistant turns with text of the 200 tau-bench airline runs in
// tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json (2,870 of them, median 172
// bytes of JSON as `{role, content}`), in order, repeated to reach the count asked for.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { readTranscript } from "../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let turns;

/** The first `n` messages of the workload, `{role: "user" | "assistant", content}`. */
export function workload(n) {
  turns ??= readTranscript(fs.readFileSync(path.join(ROOT, "tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json"), "utf8"))
    .runs.flat()
    .filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content.length > 0)
    .map((m) => ({ role: m.role, content: m.content }));
  return Array.from({ length: n }, (_, i) => turns[i % turns.length]);
}

/** The message as LangChain's `HumanMessage` / `AIMessage` (what a LangGraph messages state holds). */
export const lcMessage = (m) => (m.role === "user" ? new HumanMessage(m.content) : new AIMessage(m.content));

/**
 * A LangGraph thread persisted by a `PostgresSaver`, one checkpoint per step as the Pregel loop
 * writes it: the checkpoint's `messages` channel is the whole list (a new channel version each
 * step: `put` stores its value as a blob), its parent the previous checkpoint.
 */
export class Checkpoints {
  constructor(saver, threadId) {
    this.saver = saver;
    this.threadId = threadId;
    this.messages = [];
    this.step = -1;
    this.parent = undefined;
  }

  /** Appends `messages` and puts the step's checkpoint; resolves once it is committed. */
  async append(messages) {
    this.messages = this.messages.concat(messages);
    this.step++;
    const version = this.step + 1;
    const checkpoint = {
      v: 4,
      id: uuid6(this.step),
      ts: new Date().toISOString(),
      channel_values: { messages: this.messages },
      channel_versions: { messages: version },
      versions_seen: {},
    };
    const config = { configurable: { thread_id: this.threadId, checkpoint_ns: "", ...(this.parent && { checkpoint_id: this.parent }) } };
    const next = await this.saver.put(config, checkpoint, { source: "loop", step: this.step, parents: {} }, { messages: version });
    this.parent = next.configurable.checkpoint_id;
  }
}
