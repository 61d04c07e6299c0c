// What the browser end-to-end tests share besides the browser and the server: calling the server's API as JSON, and
// waiting for a condition the page or the service reaches in its own time.
/** JSON calls to a started server's `/studio/` routes (`base` read at each call: the server starts in beforeAll). */
export function serverApi(base: () => string) {
  return async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base()}/studio/${route}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(answer)}`);
    return answer as T;
  };
}

export interface PollDefaults {
  /** How long to wait before failing (default 60 s). */
  ms?: number;
  /** The pause between checks (default 100 ms). */
  everyMs?: number;
}

/**
 * An `until(what, check, ms?)`: calls `check` until it answers something truthy and returns that; a check that
 * throws is tried again, and its last error is named when the time runs out.
 */
export function poller(defaults: PollDefaults = {}) {
  const everyMs = defaults.everyMs ?? 100;
  return async function until<T>(
    what: string,
    check: () => Promise<T | null | undefined | false>,
    ms = defaults.ms ?? 60_000,
  ): Promise<T> {
    const end = Date.now() + ms;
    let last: unknown;
    for (;;) {
      try {
        const v = await check();
        if (v) return v;
      } catch (err) {
        last = err;
      }
      if (Date.now() > end)
        throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
}

/** Wait up to 60 s, checking every 100 ms. */
export const until = poller();
