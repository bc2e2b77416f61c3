// Compile-time check of the published types: a consumer as a user would write it.
import { repairMessages, validateMessages, convertMessages, readTranscript, type Violation, type Fix, type RepairResult } from "../../pkg/index.js";

const history = [{ role: "user", content: "hi" }];
const violations: Violation[] = validateMessages(history, { provider: "anthropic" });
const rule: string = violations[0]?.rule ?? "";
const repaired: RepairResult<{ role: string; content: string }> = repairMessages(history, { provider: "openai", reasons: { c1: "rejected" } });
const fixes: Fix[] = repaired.report;
const kind: string | undefined = fixes[0]?.kind;
const converted: unknown[] = convertMessages(history, { to: "ai-sdk" });
const runs: unknown[][] = readTranscript("[]").runs;
// @ts-expect-error: an unknown provider is a type error
validateMessages(history, { provider: "mistral" });
// @ts-expect-error: an unknown format is a type error
convertMessages(history, { to: "xml" });
export { rule, kind, converted, runs };
