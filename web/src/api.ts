// The page's one way to call the service: JSON in and out under /studio/, and an ApiError that carries the
// service's own message (shown as the service wrote it) with the status and the whole answer.
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | null | undefined>;

export function studioUrl(path: string, query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return `/studio/${path.replace(/^\//, "")}${s ? `?${s}` : ""}`;
}

/** A file of an episode as the service streams it (`GET /studio/file`), for `<video>` and `<img>`. */
export function fileUrl(ep: string, rel: string): string {
  return studioUrl("file", { ep, path: rel });
}

/** A sized thumbnail of a picture or the first frame of a clip (`GET /studio/thumb`). */
export function thumbUrl(ep: string, rel: string, width = 256): string {
  return studioUrl("thumb", { ep, path: rel, w: width });
}

async function call<T>(
  method: string,
  path: string,
  query: Query,
  body: unknown,
  signal?: AbortSignal,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(studioUrl(path, query), {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError("the service does not answer (is it running?)", 0, null);
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!res.ok) {
    const message =
      parsed && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string"
        ? (parsed as { error: string }).error
        : `${method} ${path}: ${res.status} ${res.statusText}`;
    throw new ApiError(message, res.status, parsed);
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string, query: Query = {}, signal?: AbortSignal) =>
    call<T>("GET", path, query, undefined, signal),
  post: <T>(path: string, body: unknown = {}, signal?: AbortSignal) =>
    call<T>("POST", path, {}, body, signal),
  put: <T>(path: string, body: unknown, signal?: AbortSignal) => call<T>("PUT", path, {}, body, signal),
  del: <T>(path: string, body: unknown = {}, query: Query = {}) => call<T>("DELETE", path, query, body),
};

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
