// JSON text of a reply, the size above which it is gzipped and whether the client takes gzip: shared by every
// platform's reply writer.

export const GZIP_THRESHOLD = 64 * 1024;

/** JSON text of a reply; bigints (seeds) go out as strings, as the contract wants. */
export function toJsonText(body: unknown): string {
  return JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
}

/** Whether an Accept-Encoding header takes gzip (by name or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  });
}
