// StudioError: the one way a handler says "this request failed" with a status and a message for a person.

/** How much of a caller's value a message shows before it says how long the rest is. */
const SHOWN_CHARS = 80;
/** A run of characters without a space longer than this is an echoed value, not prose: it is cut. */
const LONG_RUN = 200;
/** No message is longer than this: a person cannot read more, and an echoed value could be megabytes. */
const MAX_MESSAGE = 1000;

/** A caller's value as a message quotes it: JSON, cut to its first 80 characters plus its length when longer. */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    if (value.length <= SHOWN_CHARS) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, SHOWN_CHARS))}… (${value.length} characters)`;
  }
  const text = sketch(value, 0);
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}…`;
}

// A bounded picture of any value: never recurses past a few levels, so deep nesting cannot overflow the stack.
function sketch(value: unknown, depth: number): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, SHOWN_CHARS));
  if (typeof value === "bigint") return String(value);
  if (value === null || typeof value !== "object") return String(JSON.stringify(value) ?? value);
  if (depth >= 3) return Array.isArray(value) ? "[…]" : "{…}";
  if (Array.isArray(value)) {
    const items = value.slice(0, 8).map((v) => sketch(v, depth + 1));
    return `[${items.join(",")}${value.length > 8 ? ",…" : ""}]`;
  }
  const keys = Object.keys(value);
  const parts = keys
    .slice(0, 8)
    .map((k) => `${JSON.stringify(k.slice(0, SHOWN_CHARS))}:${sketch(Reflect.get(value, k), depth + 1)}`);
  return `{${parts.join(",")}${keys.length > 8 ? ",…" : ""}}`;
}

// Every message passes here, so a value a handler echoed whole comes out cut wherever it was put.
function readable(message: string): string {
  const cut = message.replace(
    new RegExp(`\\S{${LONG_RUN + 1},}`, "g"),
    (run) => `${run.slice(0, SHOWN_CHARS)}… (${run.length} characters)`,
  );
  return cut.length <= MAX_MESSAGE ? cut : `${cut.slice(0, MAX_MESSAGE)}… (${cut.length} characters)`;
}

export class StudioError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, message: string, extra?: Record<string, unknown>) {
    super(readable(message));
    this.name = "StudioError";
    this.status = status;
    this.extra = extra;
  }

  /** The flat JSON body: `{"error": message, ...extra}`. */
  body(): Record<string, unknown> {
    return { error: this.message, ...(this.extra ?? {}) };
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new StudioError(400, message, extra);
export const forbidden = (message: string) => new StudioError(403, message);
export const notFound = (message: string) => new StudioError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new StudioError(409, message, extra);
export const notImplemented = (message: string) => new StudioError(501, message);
