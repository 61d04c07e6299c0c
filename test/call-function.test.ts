// callFunction answers what the app answers for the same request: data, refusals of the schema and of the handler,
// path parameters, and plain-text query values.
import { describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { createApp } from "../runtime/app.ts";
import { callFunction } from "./support/call.ts";
import { routeFor, SCRIPT, useStudio } from "./support/studio-episode.ts";

const studio = useStudio();

/** The app's answer to `method route` with `input` as a query or a JSON body. */
async function viaApp(
  method: "GET" | "POST" | "PUT" | "DELETE",
  route: string,
  input: Record<string, unknown>,
) {
  const app = createApp(studio.env.services, functions);
  const query = new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)]));
  const res =
    method === "GET" || method === "DELETE"
      ? await app.request(`/studio${route}?${query}`, { method })
      : await app.request(`/studio${route}`, {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
        });
  return { status: res.status, body: await res.json() };
}

async function both(
  method: "GET" | "POST" | "PUT" | "DELETE",
  route: string,
  input: Record<string, unknown>,
) {
  const { fn, params } = routeFor(method, route);
  const direct = await callFunction(fn, input, studio.env.services, { params });
  expect(direct, `${method} ${route}`).toEqual(await viaApp(method, route, input));
  return direct;
}

describe("callFunction", () => {
  it("answers a handler's data, a schema refusal and a handler refusal as the app does", async () => {
    const ep = await studio.episode(SCRIPT);
    await studio.take(ep, "proxy", "sh010", 1);
    expect((await both("GET", "/episode", { ep, pass: "proxy" })).status).toBe(200);
    expect((await both("GET", "/episode", { ep, pass: "FINAL" })).status).toBe(400);
    expect((await both("GET", "/episode", { ep: "relative/ep01" })).status).toBe(400);
    expect((await both("GET", "/shot", { ep, shot: "sh999" })).status).toBe(404);
    expect((await both("PUT", "/pick", { ep, pass: "proxy", shot: "sh010", take: 1 })).status).toBe(200);
    expect((await both("PUT", "/pick", { ep, pass: "proxy", shot: "sh010", take: "one" })).status).toBe(400);
  });

  it("carries query values as text and fills path parameters", async () => {
    const ep = await studio.episode(SCRIPT);
    // `take` arrives as "1", as it would in a URL.
    expect((await both("GET", "/shot", { ep, shot: "sh010", take: 1 })).status).not.toBe(500);
    expect((await both("POST", "/jobs/pause", { lane: "builtin", paused: true })).status).toBe(200);
    expect((await both("POST", "/jobs/nosuch", {})).status).toBe(400);
  });
});
