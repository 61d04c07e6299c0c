// The local engine's own read routes (/models, /models/{folder}, /object_info/{node}) passed through as they are.
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import { BackendUnreachable, callBackend } from "./http.ts";
import { engineAddress } from "./list.ts";

/** Node catalogues can be large and a newer engine scans its assets first: longer than a probe, still bounded. */
export const PASS_TIMEOUT_MS = 15_000;

export interface PassOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * GET `route` from the local engine: the JSON text it answered, unchanged (a catalogue of megabytes is never
 * parsed). 503 when the engine does not answer, 404 when it has no such thing (`missing` says what), 502 for any
 * other answer that is not a JSON 200.
 */
export async function passThrough(
  services: Pick<Services, "home" | "env" | "caches">,
  route: string,
  missing: string,
  opts: PassOptions = {},
): Promise<string> {
  const address = engineAddress(await effectiveSettings(services));
  let res: Awaited<ReturnType<typeof callBackend>>;
  try {
    res = await callBackend(address, route, {
      timeoutMs: opts.timeoutMs ?? PASS_TIMEOUT_MS,
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof BackendUnreachable) {
      throw new StudioError(503, `the local backend does not answer: ${err.message}`);
    }
    throw err;
  }
  if (res.status === 200 && isJson(res.text, res.contentType)) return res.text;
  if (res.status === 200) throw new StudioError(502, `${address} did not answer JSON to ${route}`);
  if (res.status === 404) throw new StudioError(404, `${address} has no ${missing}`);
  throw new StudioError(502, `${address} answered ${res.status} to ${route}`);
}

// A JSON content type is trusted (a catalogue of megabytes goes out unparsed); anything else must parse.
function isJson(text: string, contentType: string): boolean {
  if (!text.trim()) return false;
  if (/\bjson\b/i.test(contentType)) return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
