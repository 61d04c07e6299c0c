// Reply writers for a platform with only the web APIs (a per-function deployment): JSON, gzipped over 64 KB with
// the standard CompressionStream when the client accepts it. Files are a studio host's to serve.
import type { FileReply } from "../functions/fn.ts";
import { StudioError } from "../lib/errors.ts";
import { acceptsGzip, GZIP_THRESHOLD, toJsonText } from "./json-text.ts";
import type { Responder } from "./router.ts";

async function jsonText(
  status: number,
  text: string,
  acceptEncoding: string | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  const out: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...headers };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > GZIP_THRESHOLD) {
    out.vary = "Accept-Encoding";
    if (acceptsGzip(acceptEncoding)) {
      out["content-encoding"] = "gzip";
      const zipped = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
      return new Response(await new Response(zipped).arrayBuffer(), { status, headers: out });
    }
  }
  return new Response(bytes, { status, headers: out });
}

export const WEB_RESPONDER: Responder = {
  json: (status, body, acceptEncoding, headers) =>
    jsonText(status, toJsonText(body), acceptEncoding, headers),
  jsonText,
  async file(reply: FileReply) {
    throw new StudioError(
      501,
      `${reply.path.split(/[\\/]/).pop()} is a file: files are served by a studio host`,
    );
  },
};
