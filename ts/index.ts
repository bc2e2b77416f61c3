/**
 * stategate for Node (ES module). Loads the wasm core synchronously.
 * @example
 * import { repairMessages } from "stategate";
 * const { messages, report } = repairMessages(history, { provider: "anthropic" });
 */
import * as wasm from "./node/stategate_wasm.js";
import { makeApi } from "./api.js";

export * from "./api.js";

const api = makeApi(wasm);
/** See {@link Api.validateMessages}. */
export const validateMessages = api.validateMessages;
/** See {@link Api.repairMessages}. */
export const repairMessages = api.repairMessages;
/** See {@link Api.convertMessages}. */
export const convertMessages = api.convertMessages;
/** See {@link Api.decodeMessages}. */
export const decodeMessages = api.decodeMessages;
/** See {@link Api.providerOf}. */
export const providerOf = api.providerOf;
/** See {@link Api.readTranscript}. */
export const readTranscript = api.readTranscript;
/** See {@link Api.readStream}. */
export const readStream = api.readStream;
/** See {@link Api.StreamReader}. */
export const StreamReader = api.StreamReader;
/** A stream reader instance. */
export type StreamReader = InstanceType<typeof api.StreamReader>;
/** See {@link Api.StateStore}. */
export const StateStore = api.StateStore;
/** A state store instance. */
export type StateStore = InstanceType<typeof api.StateStore>;
/** See {@link Api.AsyncTasks}. */
export const AsyncTasks = api.AsyncTasks;
/** An async task ledger instance. */
export type AsyncTasks = InstanceType<typeof api.AsyncTasks>;
/** See {@link Api.subagentInput}. */
export const subagentInput = api.subagentInput;
/** See {@link Api.subagentResult}. */
export const subagentResult = api.subagentResult;
/** See {@link Api.projectMessages}. */
export const projectMessages = api.projectMessages;
/** See {@link Api.verifyLog}. */
export const verifyLog = api.verifyLog;
import { FileLog as UnguardedFileLog } from "./file-log.js";
import { guardClass } from "./api.js";
export type { LoadedLog } from "./file-log.js";
/** See {@link UnguardedFileLog}: the Node persistence adapter, every failure a `StategateError`. */
export const FileLog = guardClass(UnguardedFileLog);
/** A file log instance. */
export type FileLog = UnguardedFileLog;
/** @internal Raw wasm exports, for tests. */
export const raw = wasm;
