// Server-sent events of the Comfy API v2 job stream (`event:` / `data:` frames, `:` comments, no ids): a pure
// incremental parser fed with text chunks.

export interface SseFrame {
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

export interface SseParser {
  /** Feed a chunk; answers the frames it completed. */
  push(chunk: string): SseFrame[];
}

export function createSseParser(): SseParser {
  let buffer = "";
  let event = "";
  let data: string[] = [];
  return {
    push(chunk) {
      buffer += chunk;
      const out: SseFrame[] = [];
      for (;;) {
        const nl = buffer.search(/\r\n|\r|\n/);
        if (nl < 0) break;
        const eol = buffer.startsWith("\r\n", nl) ? 2 : 1;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + eol);
        if (line === "") {
          if (data.length > 0 || event !== "") out.push({ event: event || "message", data: data.join("\n") });
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
      return out;
    },
  };
}
