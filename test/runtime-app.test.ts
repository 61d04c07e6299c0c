// The runtime through app.request: mounting under both prefixes, errors, 404/405, JSON rules, gzip, files.

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineFunction, FileReply } from "../functions/fn.ts";
import { StudioError } from "../lib/errors.ts";
import { createApp, isLoopback } from "../runtime/app.ts";
import { parseRange } from "../runtime/respond.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

const echo = defineFunction({
  method: "POST",
  path: "/echo",
  summary: "echo",
  input: z.object({ ep: z.string(), n: z.number().int().optional() }).strict(),
  handler: (input) => ({ got: input }),
});
const query = defineFunction({
  method: "GET",
  path: "/query",
  summary: "query",
  input: z.object({ ep: z.string().min(1) }),
  handler: (input) => ({ ep: input.ep, seed: 6290346879385008131n }),
});
const fails = defineFunction({
  method: "GET",
  path: "/fails",
  summary: "fails",
  handler: () => {
    throw new StudioError(409, "the take is not queued", { hash: "abc" });
  },
});
const crashes = defineFunction({
  method: "GET",
  path: "/crashes",
  summary: "crashes",
  handler: () => {
    throw new Error("secret detail\nsecond line");
  },
});
const big = defineFunction({
  method: "GET",
  path: "/big",
  summary: "big",
  handler: () => ({ items: Array.from({ length: 5000 }, (_, i) => ({ i, text: "x".repeat(20) })) }),
});
const param = defineFunction({
  method: "POST",
  path: "/jobs/:action",
  summary: "param",
  input: z.object({ action: z.enum(["cancel", "retry"]), id: z.string() }),
  handler: (input) => input,
});
let fileDir = "";
const file = defineFunction({
  method: "GET",
  path: "/file",
  summary: "file",
  handler: () => new FileReply(path.join(fileDir, "clip.mp4")),
});
const local = defineFunction({
  method: "POST",
  path: "/local",
  summary: "local only",
  localOnly: true,
  handler: () => ({ ok: true }),
});

let env: TestEnv;
let app: ReturnType<typeof createApp>;
const errors: string[] = [];

beforeAll(async () => {
  env = await makeTestEnv();
  fileDir = env.dir;
  await mkdir(fileDir, { recursive: true });
  await writeFile(path.join(fileDir, "clip.mp4"), Buffer.from("0123456789"));
  const services = { ...env.services, log: { ...env.services.log, error: (m: string) => errors.push(m) } };
  app = createApp(services, [echo, query, fails, crashes, big, param, file, local]);
});
afterAll(() => env.cleanup());

const post = (p: string, body: string, type = "application/json") =>
  app.request(p, { method: "POST", body, headers: { "content-type": type } });

describe("runtime app", () => {
  it("mounts every route under /studio and /api/studio", async () => {
    for (const prefix of ["/studio", "/api/studio"]) {
      const res = await app.request(`${prefix}/query?ep=/x`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ep: "/x", seed: "6290346879385008131" });
    }
  });

  it("validates bodies and names the field", async () => {
    const ok = await post("/studio/echo", JSON.stringify({ ep: "/e", n: 2 }));
    expect(await ok.json()).toEqual({ got: { ep: "/e", n: 2 } });
    const missing = await post("/studio/echo", JSON.stringify({ n: 2 }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "ep: required" });
    const wrong = await post("/studio/echo", JSON.stringify({ ep: "/e", n: "two" }));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/^n: /);
    const extra = await post("/studio/echo", JSON.stringify({ ep: "/e", zz: 1 }));
    expect(extra.status).toBe(400);
    expect(((await extra.json()) as { error: string }).error).toContain("zz");
  });

  it("refuses malformed JSON and a wrong content type with 400", async () => {
    const bad = await post("/studio/echo", "{not json");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/malformed JSON/);
    const type = await post("/studio/echo", JSON.stringify({ ep: "/e" }), "text/plain");
    expect(type.status).toBe(400);
    expect(((await type.json()) as { error: string }).error).toMatch(/Content-Type/);
  });

  it("answers an unknown route 404 and a wrong method 405, both as JSON", async () => {
    const nf = await app.request("/studio/nope");
    expect(nf.status).toBe(404);
    expect(Object.keys((await nf.json()) as object)).toEqual(["error"]);
    const wm = await app.request("/studio/echo");
    expect(wm.status).toBe(405);
    expect(wm.headers.get("allow")).toBe("POST");
    expect(((await wm.json()) as { error: string }).error).toMatch(/GET is not allowed/);
  });

  it("flattens StudioError extras into the body", async () => {
    const res = await app.request("/studio/fails");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: "the take is not queued", hash: "abc" });
  });

  it("answers an unexpected exception 500 with one line and logs it", async () => {
    const res = await app.request("/studio/crashes");
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain("secret detail");
    expect(body.error).not.toContain("second line");
    expect(errors.some((e) => e.includes("/studio/crashes"))).toBe(true);
  });

  it("gzips replies over 64 KB only when the client accepts gzip", async () => {
    const plain = await app.request("/studio/big");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(64 * 1024);
    const zipped = await app.request("/studio/big", { headers: { "accept-encoding": "gzip, deflate" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const bytes = Buffer.from(await zipped.arrayBuffer());
    expect(gunzipSync(bytes).toString("utf8")).toBe(text);
    const small = await app.request("/studio/query?ep=/x", { headers: { "accept-encoding": "gzip" } });
    expect(small.headers.get("content-encoding")).toBeNull();
  });

  it("passes path parameters into the input", async () => {
    const res = await post("/studio/jobs/cancel", JSON.stringify({ id: "j1" }));
    expect(await res.json()).toEqual({ action: "cancel", id: "j1" });
    const bad = await post("/studio/jobs/explode", JSON.stringify({ id: "j1" }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^action: /);
  });

  it("streams files with Range, ETag and HEAD", async () => {
    const whole = await app.request("/studio/file");
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("cache-control")).toBe("no-cache");
    expect(await whole.text()).toBe("0123456789");
    const part = await app.request("/studio/file", { headers: { range: "bytes=2-4" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 2-4/10");
    expect(await part.text()).toBe("234");
    const etag = whole.headers.get("etag") ?? "";
    const again = await app.request("/studio/file", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const head = await app.request("/studio/file", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("10");
    const past = await app.request("/studio/file", { headers: { range: "bytes=50-" } });
    expect(past.status).toBe(416);
  });

  it("refuses local-only routes to callers that are not on this machine", async () => {
    const res = await app.request(
      "/studio/local",
      { method: "POST" },
      {
        incoming: { socket: { remoteAddress: "10.1.2.3" } },
      },
    );
    expect(res.status).toBe(403);
    expect(Object.keys((await res.json()) as object)).toEqual(["error"]);
    const ok = await app.request(
      "/studio/local",
      { method: "POST" },
      {
        incoming: { socket: { remoteAddress: "::ffff:127.0.0.1" } },
      },
    );
    expect(ok.status).toBe(200);
  });
});

describe("helpers", () => {
  it("parses byte ranges", () => {
    expect(parseRange("bytes=0-", 10)).toEqual([0, 9]);
    expect(parseRange("bytes=-3", 10)).toEqual([7, 9]);
    expect(parseRange("bytes=5-100", 10)).toEqual([5, 9]);
    expect(parseRange("bytes=10-", 10)).toBe("unsatisfiable");
    expect(parseRange("bytes=0-1,3-4", 10)).toBeNull();
  });
  it("knows loopback addresses", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("127.9.8.7")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("192.168.1.2")).toBe(false);
    expect(isLoopback(undefined)).toBe(false);
  });
});
