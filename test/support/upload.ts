// Calls an upload route's handler with a body the test builds itself (JSON text, or a multipart form with a file
// part), the way the runtime hands a loopback request to it.
import type { StudioFunction } from "../../functions/fn.ts";
import type { Services } from "../../lib/context.ts";
import { answerRequest } from "../../runtime/app.ts";
import type { Answer } from "./call.ts";

/** POST `body` as it is (a FormData sets its own multipart Content-Type) to `fn`; answers `{status, body}`. */
export async function postBody(
  fn: StudioFunction,
  services: Services,
  body: RequestInit["body"],
  headers: Record<string, string> = {},
): Promise<Answer> {
  const request = new Request(`http://127.0.0.1/studio${fn.path}`, {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);
  const res = await answerRequest(fn, services, {
    request,
    remoteAddress: "127.0.0.1",
    params: {},
    label: "test",
  });
  return { status: res.status, body: await res.json() };
}

/** A form of text fields and, when given, a `file` part with its name. */
export function uploadForm(fields: Record<string, string>, file?: { name: string; data: Buffer }): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append("file", new Blob([new Uint8Array(file.data)]), file.name);
  return f;
}
