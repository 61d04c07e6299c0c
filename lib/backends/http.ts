// One bounded HTTP call to a backend, with failures turned into a reason a person can read.
import { errorField } from "../store/json-guards.ts";

export const PROBE_TIMEOUT_MS = 2000;

/** The backend did not answer; `reason` names the address ("http://127.0.0.1:8188 refused the connection"). */
export class BackendUnreachable extends Error {
  readonly address: string;
  constructor(address: string, reason: string) {
    super(reason);
    this.name = "BackendUnreachable";
    this.address = address;
  }
}

export interface BackendAnswer {
  status: number;
  contentType: string;
  /** The body as text; empty for HEAD or when `discardBody` is set. */
  text: string;
}

export interface CallOptions {
  method?: "GET" | "HEAD";
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Read and drop the body (probes). */
  discardBody?: boolean;
  signal?: AbortSignal;
}

/**
 * GET (or HEAD) `base + route` within `timeoutMs` (body included). Any HTTP status is an answer; no connection,
 * no answer in time or a broken transfer throws BackendUnreachable.
 */
export async function callBackend(
  base: string,
  route: string,
  opts: CallOptions = {},
): Promise<BackendAnswer> {
  const { request } = await import("undici");
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  try {
    // undici's request never follows a redirect, so a key is never sent on to another host.
    const res = await request(base + route, {
      method: opts.method ?? "GET",
      headers: { accept: "application/json", ...opts.headers },
      signal,
    });
    const type = res.headers["content-type"];
    const contentType = (Array.isArray(type) ? type[0] : type) ?? "";
    let text = "";
    if (opts.method === "HEAD" || opts.discardBody) await res.body.dump();
    else text = await res.body.text();
    return { status: res.statusCode, contentType, text };
  } catch (err) {
    if (timeout.aborted) {
      throw new BackendUnreachable(base, `no answer from ${base} within ${seconds(timeoutMs)}`);
    }
    if (opts.signal?.aborted) throw err;
    throw new BackendUnreachable(base, failureReason(base, err));
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Why a connection to `base` failed, from a Node or undici error. */
export function failureReason(base: string, err: unknown): string {
  const code = errorCode(err);
  switch (code) {
    case "ECONNREFUSED":
      return `${base} refused the connection`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${hostOf(base)} is not a known host name (${base})`;
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "EPIPE":
      return `${base} closed the connection before answering`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${base} cannot be reached (${code})`;
    case "UND_ERR_CONNECT_TIMEOUT":
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return `no answer from ${base} in time`;
    default: {
      const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
      return `${base} cannot be reached: ${code ?? message}`;
    }
  }
}

// The code may sit on the error, on its cause, or on the first of several attempts (happy eyeballs).
function errorCode(err: unknown): string | undefined {
  if (!err || typeof err !== "object") return undefined;
  const code = errorField(err, "code");
  if (typeof code === "string" && code !== "UND_ERR") return code;
  const errors = errorField(err, "errors");
  if (Array.isArray(errors) && errors.length) return errorCode(errors[0]);
  const cause = errorField(err, "cause");
  if (cause) return errorCode(cause);
  return typeof code === "string" ? code : undefined;
}

function hostOf(base: string): string {
  try {
    return new URL(base).hostname;
  } catch {
    return base;
  }
}
