// Calls a route's handler directly, the way the runtime calls it for a request from this machine, without the app.

import { expect } from "vitest";
import type { StudioFunction } from "../../functions/fn.ts";
import type { Services } from "../../lib/context.ts";
import { answerRequest } from "../../runtime/app.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
export type Answer = { status: number; body: any };

export type Input = Record<string, unknown>;

/**
 * Run `fn` on `input` as a loopback request would carry it: GET and DELETE get it as a query string (so every
 * value arrives as text, `undefined` left out), POST and PUT as a JSON body. `params` fills the route's path
 * parameters. The answer is `{status, body}` as the runtime writes it: a handler's data, Reply or JsonText as
 * JSON, a refusal as its `{error}` body; a file or other reply keeps its text.
 */
export async function callFunction(
  fn: StudioFunction,
  input: Input | undefined,
  services: Services,
  opts: { params?: Record<string, string> } = {},
): Promise<Answer> {
  const params = opts.params ?? {};
  const route = fn.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
  const url = new URL(`http://127.0.0.1/studio${route}`);
  let init: RequestInit = { method: fn.method };
  if (fn.method === "GET" || fn.method === "DELETE") {
    for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  } else if (input !== undefined) {
    init = { ...init, headers: { "content-type": "application/json" }, body: JSON.stringify(input) };
  }
  const request = new Request(url, init);
  const call = { request, remoteAddress: "127.0.0.1", params, label: `${fn.method} ${fn.path}` };
  const res = await answerRequest(fn, services, call);
  const text = await res.text();
  const json = res.headers.get("content-type")?.startsWith("application/json");
  return { status: res.status, body: json ? JSON.parse(text) : text };
}

/** A refusal with `status` and a flat `{error}` body holding a message; returns the message. */
export function refused(answer: Answer, status: number): string {
  expect(answer.status).toBe(status);
  expect(Object.keys(answer.body)).toEqual(["error"]);
  expect(typeof answer.body.error).toBe("string");
  return answer.body.error;
}

/** Every refusal is a flat `{error}` body, plus the extra keys named. */
export function refusal(
  answer: Answer,
  status: number,
  message: RegExp | string,
  extra: string[] = [],
): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(Object.keys(answer.body).sort()).toEqual(["error", ...extra].sort());
  if (typeof message === "string") expect(answer.body.error).toBe(message);
  else expect(answer.body.error).toMatch(message);
}
