/**
 * The errors of the package: the {@link StategateError} class every call throws, and the guards
 * that turn anything else thrown across the wasm boundary into one. Imports nothing of the wasm
 * glue, so the Node-only `FileLog` subpath (and its CommonJS bundle) can share it.
 */
import type { ErrorCode, ErrorDetails } from "./stategate_wasm.js";

/**
 * The error every stategate call throws: a JS `Error` named `"StategateError"` with a stable
 * `code` (the {@link ErrorCode} union, generated from Rust's `ErrorCode`; docs/errors.md lists
 * them all) and `details` saying where it happened: `index` (input message), `field`, `channel`
 * (state channel), `command` (index in a batch), `authors` (both writers of a
 * `CONCURRENT_WRITE`). Details never carry state values.
 *
 * `e instanceof StategateError` is true for every stategate error, including those the wasm
 * core raises and those of another copy of the package (the CommonJS and ES module entries each
 * have their own): it is the same test as {@link isStategateError}.
 * @example
 * try { store.apply(cmd) } catch (e) { if (e instanceof StategateError && e.code === "VERSION_CONFLICT") retry() }
 */
export class StategateError extends Error {
  /** Stable machine-readable code, e.g. `"VERSION_CONFLICT"`. */
  code: ErrorCode;
  /** Where it happened (never state values). */
  details: ErrorDetails;

  /** An error with `code`, `message` (shown as `CODE: message`) and `details`. Never throws. */
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(`${describe(code)}: ${describe(message)}`);
    this.name = "StategateError";
    this.code = typeof code === "string" ? code : "INVALID_OPTION";
    this.details = details !== null && typeof details === "object" ? details : {};
  }

  /** `instanceof` is {@link isStategateError}: true for the core's errors too. */
  static [Symbol.hasInstance](e: unknown): boolean {
    return isStategateError(e);
  }
}

/** A new {@link StategateError} (`new StategateError(code, message, details)`). Never throws. */
export function stategateError(code: ErrorCode, message: string, details: ErrorDetails = {}): StategateError {
  return new StategateError(code, message, details);
}

/** The codes of the loaded core (`errorCodes()`), once a module is bound. */
let knownCodes: ReadonlySet<string> | undefined;

/** Records the loaded core's codes, so {@link isStategateError} refuses look-alikes. @internal */
export function setKnownCodes(codes: readonly string[]): void {
  knownCodes ??= new Set(codes);
}

/**
 * True for an error thrown by stategate: an `Error` named `StategateError` whose `code` is one of
 * the core's {@link ErrorCode}s and whose `details` is an object. Never throws.
 */
export function isStategateError(e: unknown): e is StategateError {
  try {
    if (!(e instanceof Error) || e.name !== "StategateError") return false;
    const { code, details } = e as StategateError;
    return typeof code === "string" && (knownCodes === undefined || knownCodes.has(code)) && typeof details === "object" && details !== null;
  } catch {
    return false;
  }
}

/** What a thrown value says, without anything that could throw again. */
export function describe(e: unknown): string {
  try {
    if (typeof e === "string") return e;
    if (e instanceof Error) {
      const m = e.message;
      return typeof m === "string" ? m : "an error without a message";
    }
    return String(e);
  } catch {
    return "a value that cannot be described";
  }
}

/** `e` as a {@link StategateError}: itself when it is one, else `INVALID_OPTION` naming `what`. */
export function typed(what: string, e: unknown): StategateError {
  return isStategateError(e) ? e : stategateError("INVALID_OPTION", `${what}: ${describe(e)}`);
}

/**
 * Runs a call into the core; anything thrown that is not already a {@link StategateError} —
 * wasm-bindgen's own checks of its arguments (a plain object where a `StateStore` belongs),
 * a call after `free()`, an engine error — becomes one with a code, so every failure is typed.
 * `before` runs first (the binding's "is the wasm loaded" check). @internal
 */
export function guarded<A extends unknown[], R>(what: string, f: (...args: A) => R, before?: () => void): (...args: A) => R {
  return (...args: A): R => {
    try {
      before?.();
      return f(...args);
    } catch (e) {
      throw typed(what, e);
    }
  };
}

/** Objects whose `free()` was called (so a later call is `FREED`, not a raw wasm-bindgen error). */
const freed = new WeakSet<object>();

/**
 * Every method, getter and static function of a class, guarded as {@link guarded}; a call on an
 * object after its `free()` (or `[Symbol.dispose]()`) is `FREED`; the methods named in `async`
 * return a rejected Promise instead of throwing. Returns the class behind a Proxy whose
 * constructor is guarded too (`new AsyncTasks({})` is a typed error); instances, `instanceof` and
 * statics are the class's own. `before` runs before every call and construction (the binding's
 * "is the wasm loaded" check). @internal (used by the binding and `FileLog`)
 */
export function guardClass<C extends { prototype: object; name: string }>(cls: C, async: readonly string[] = [], before?: () => void): C {
  const name = cls.name;
  const isInstance = (v: unknown): v is object => typeof v === "object" && v !== null && v instanceof (cls as unknown as new () => object);
  // `receiver`: the methods of instances check that `this` is one (a method called on an object
  // of another wasm class would read that object's memory as its own).
  const wrapAll = (target: Record<string, unknown>, skip: string[], receiver: boolean) => {
    for (const key of Object.getOwnPropertyNames(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key);
      // `__`-prefixed members are wasm-bindgen's own plumbing (free() calls them).
      if (skip.includes(key) || key.startsWith("__") || !d || !d.configurable) continue;
      const what = `${name}.${key}`;
      const settle = async.includes(key) ? (e: StategateError) => Promise.reject(e) : (e: StategateError) => { throw e; };
      const wrap = (f: (...a: unknown[]) => unknown) =>
        function (this: unknown, ...a: unknown[]) {
          if (receiver && !isInstance(this)) return settle(stategateError("INVALID_OPTION", `${what}: called on something that is not a ${name}`));
          if (receiver && freed.has(this as object)) return settle(stategateError("FREED", `${what}: this object was freed with free(); create a new one`));
          try {
            before?.();
            return f.apply(this, a);
          } catch (e) {
            return settle(typed(what, e));
          }
        };
      if (typeof d.value === "function") Object.defineProperty(target, key, { ...d, value: wrap(d.value as (...a: unknown[]) => unknown) });
      else if (typeof d.get === "function") Object.defineProperty(target, key, { ...d, get: wrap(d.get) });
    }
  };
  const proto = cls.prototype as Record<string | symbol, unknown>;
  const free = proto.free as ((this: object) => void) | undefined;
  wrapAll(proto as Record<string, unknown>, ["constructor", "free"], true);
  wrapAll(cls as unknown as Record<string, unknown>, ["length", "name", "prototype"], false);
  if (typeof free === "function") {
    const once = function (this: unknown) {
      if (!isInstance(this)) {
        throw stategateError("INVALID_OPTION", `${name}.free: called on something that is not a ${name}`);
      }
      if (freed.has(this)) return;
      // Marked first: wasm-bindgen detaches the object before Rust may refuse (freed from inside
      // one of its own callbacks), and a detached object is gone either way.
      freed.add(this);
      try {
        free.call(this);
      } catch (e) {
        // Refused by wasm-bindgen while the object is in use (freed from inside one of its own
        // callbacks): it is detached all the same (its memory is not reclaimed).
        throw isStategateError(e) ? e : stategateError("BUSY", `${name}.free: the ${name} is in the middle of a call (freed from inside its own callback); it can no longer be used: ${describe(e)}`);
      }
    };
    Object.defineProperty(proto, "free", { configurable: true, writable: true, value: once });
    const dispose = (Symbol as unknown as { dispose?: symbol }).dispose;
    if (typeof dispose === "symbol" && dispose in proto) Object.defineProperty(proto, dispose, { configurable: true, writable: true, value: once });
  }
  return new Proxy(cls, {
    apply() {
      throw stategateError("INVALID_OPTION", `${name} is a class: call it with new`);
    },
    construct(target, args, newTarget) {
      try {
        before?.();
        return Reflect.construct(target as unknown as new (...a: unknown[]) => object, args, newTarget);
      } catch (e) {
        throw typed(`new ${name}`, e);
      }
    },
  });
}

