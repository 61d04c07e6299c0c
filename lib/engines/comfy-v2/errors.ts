// Readable reasons from Comfy API v2 answers: the error envelope (`{"error": {code, message, details}}`) named for
// a person (refused key, credits, rate limits, refused workflow) and a job's execution failure.

import { isObject, trimmedId } from "../../store/json-guards.ts";
import { faultLine, nodeFaults } from "../comfyui/errors.ts";
import { ComfyDownError } from "../comfyui/http.ts";

export interface Envelope {
  code: string | null;
  message: string | null;
  details: Record<string, unknown> | null;
}

/** The envelope of an answer body (text or parsed), loosely; all null when it is not one. */
export function readEnvelope(body: unknown): Envelope {
  let b = body;
  if (typeof b === "string") {
    try {
      b = b.trim() ? JSON.parse(b) : null;
    } catch {
      b = null;
    }
  }
  const e = isObject(b) && isObject(b.error) ? b.error : null;
  if (!e) return { code: null, message: isObject(b) ? trimmedId(b.message) : null, details: null };
  return {
    code: trimmedId(e.code),
    message: trimmedId(e.message),
    details: isObject(e.details) ? e.details : null,
  };
}

/** Seconds from a `Retry-After` header (delta seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(header: unknown, now = Date.now()): number | null {
  const v = Array.isArray(header) ? header[0] : header;
  if (typeof v !== "string" || v.trim() === "") return null;
  const n = Number(v.trim());
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** The backend answered an error status: `code` from the envelope, the message already phrased for a person. */
export class ComfyV2Error extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly details: Record<string, unknown> | null;
  /** Seconds the server asked to wait (429). */
  readonly retryAfter: number | null;
  constructor(message: string, status: number, env: Envelope, retryAfter: number | null) {
    super(message);
    this.name = "ComfyV2Error";
    this.status = status;
    this.code = env.code;
    this.details = env.details;
    this.retryAfter = retryAfter;
  }
}

/** The backend could not be reached at all; still a ComfyDownError so callers treat it like a down ComfyUI. */
export class ComfyV2DownError extends ComfyDownError {
  constructor(label: string, address: string, code: string, reason: string) {
    super(address, code, reason);
    this.name = "ComfyV2DownError";
    this.message = `${label} at ${address} is unreachable (${reason})`;
  }
}

/** The sentence for an error answer: who refused, why, and what to do. */
export function describeFailure(
  label: string,
  what: string,
  status: number,
  body: unknown,
  retryAfter: number | null,
): string {
  const env = readEnvelope(body);
  const said = env.message ?? (typeof body === "string" ? body.trim().slice(0, 300) : "");
  const tail = `${env.code ? ` (${status} ${env.code})` : ` (${status})`}${said ? `: ${said}` : ""}`;
  const wait = retryAfter !== null ? `; retry in ${retryAfter} s` : "";
  if (status === 401)
    return `${label}: the API key was refused${tail} — check api_key in the settings (keys come from platform.comfy.org)`;
  if (status === 403 && env.code === "forbidden_origin")
    return `${label} refused the request's origin${tail}`;
  if (status === 403) return `${label}: the API key was refused for this${tail} — the key lacks access to it`;
  if (status === 402) return `${label}: out of credits${tail} — add credits or upgrade the plan`;
  if (status === 429) {
    if (env.code === "queue_full") return `${label}: the queue is full${tail}${wait}`;
    if (env.code === "deployment_not_ready") return `${label}: the deployment is not ready yet${tail}${wait}`;
    if (env.code === "too_many_streams") return `${label}: too many event streams open${tail}${wait}`;
    return `${label}: rate limited${tail}${wait}`;
  }
  if (env.code === "invalid_workflow" || env.code === "missing_asset") {
    const faults = nodeFaults(env.details?.node_errors);
    const missing = Array.isArray(env.details?.missing_ids) ? env.details.missing_ids.join(", ") : "";
    const head = `${label} refused the workflow${tail}`;
    if (faults.length > 0) return `${head}; ${faults.map(faultLine).join("; ")}`;
    if (missing) return `${head}; missing assets ${missing}`;
    return head;
  }
  if (env.code === "workflow_format_ui")
    return `${label} refused the workflow: it is in the editor's UI format; only the API format runs${tail}`;
  if (env.code === "deployment_stopped") return `${label}: the deployment is stopped${tail}`;
  if (status === 503 || env.code === "upstream_unreachable")
    return `${label}: its ComfyUI is unreachable${tail}`;
  return `${label}: ${what} failed${tail}`;
}

/** A job's `error` object (`{code, message, node_id, class_type, traceback}`) as one line. */
export function jobFailure(error: unknown): string {
  const e = isObject(error) ? error : {};
  const cls = trimmedId(e.class_type);
  const node = trimmedId(e.node_id);
  const traceback = Array.isArray(e.traceback)
    ? e.traceback.filter((x): x is string => typeof x === "string")
    : typeof e.traceback === "string"
      ? e.traceback.split("\n")
      : [];
  let message = trimmedId(e.message)?.split("\n")[0]?.trim() ?? "";
  if (!message)
    message =
      traceback
        .filter((l) => l.trim() !== "")
        .at(-1)
        ?.trim() ?? "";
  const where = cls || node ? `${cls ?? "node"}${node ? ` #${node}` : ""} failed` : "the job failed";
  const code = trimmedId(e.code);
  return `${where}: ${message || "no message"}${code && code !== "node_execution_error" ? ` (${code})` : ""}`;
}
