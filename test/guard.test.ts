// The browser guard through the app: foreign Host values (DNS rebinding), cross-site writes and sockets, the
// optional token, and the body limits. Each attack is one that reached the service before the guard existed.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineFunction } from "../functions/fn.ts";
import { routes } from "../functions/index.ts";
import { configFile } from "../lib/config/config.ts";
import type { Services } from "../lib/context.ts";
import { createApp } from "../runtime/app.ts";
import { jsonDepth } from "../runtime/body.ts";
import { guardOptions } from "../runtime/guard-options.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let root: string;
let stops: boolean[];

beforeEach(async () => {
  env = await makeTestEnv();
  root = path.join(env.dir, "shows");
  await mkdir(path.join(root, "show", "ep01"), { recursive: true });
  await writeFile(path.join(root, "show", "ep01", "notes.txt"), "inside");
  await mkdir(path.dirname(configFile(env.services)), { recursive: true });
  await writeFile(
    configFile(env.services),
    JSON.stringify({ roots: [root], review_copy: false, version: 1 }),
  );
  stops = [];
});
afterEach(() => env.cleanup());

function app(extraEnv: Record<string, string> = {}, listen = "127.0.0.1") {
  const services: Services = {
    ...env.services,
    env: { ...env.services.env, ...extraEnv },
    server: { host: listen, port: 8190, stop: (restart) => stops.push(restart) },
  };
  return createApp(services, routes, { guard: guardOptions(services.env, listen) });
}

const json = { "content-type": "application/json" };
// What the Node adapter hands the app for a caller on this machine (server/stop answers only those).
const local = { incoming: { socket: { remoteAddress: "127.0.0.1" } } };

describe("Host allow-list", () => {
  it("refuses a foreign Host (DNS rebinding) on reads and writes, naming the variable to set", async () => {
    const a = app();
    const put = await a.request("http://evil.example:8190/studio/config", {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ roots: ["/"] }),
    });
    expect(put.status).toBe(403);
    const body = (await put.json()) as { error: string };
    expect(body.error).toMatch(/host "evil\.example" is not served here/);
    expect(body.error).toMatch(/STUDIO_ALLOWED_HOSTS=evil\.example/);
    const stored = JSON.parse(await readFile(configFile(env.services), "utf8")) as { roots: string[] };
    expect(stored.roots).toEqual([root]);
    const file = await a.request(
      `http://evil.example:8190/studio/file?ep=${encodeURIComponent(path.join(root, "show", "ep01"))}&path=notes.txt`,
    );
    expect(file.status).toBe(403);
    expect(await file.text()).not.toContain("inside");
  });

  it("checks the Host header itself, not only the address the URL names", async () => {
    const res = await app().request("http://127.0.0.1:8190/studio/config", {
      headers: { host: "evil.example:8190" },
    });
    expect(res.status).toBe(403);
  });

  it("serves loopback names with any port", async () => {
    const a = app();
    for (const host of ["localhost:8190", "127.0.0.1:9000", "[::1]:8190", "localhost"]) {
      const res = await a.request("http://127.0.0.1/studio/config", { headers: { host } });
      expect(res.status, host).toBe(200);
    }
  });

  it("adds the names in STUDIO_ALLOWED_HOSTS, or any with *", async () => {
    const lan = app({ STUDIO_ALLOWED_HOSTS: "studio.lan, Render-Box:8190" });
    expect((await lan.request("http://studio.lan:8190/studio/config")).status).toBe(200);
    expect((await lan.request("http://render-box/studio/config")).status).toBe(200);
    expect((await lan.request("http://other.lan/studio/config")).status).toBe(403);
    expect((await app({ STUDIO_ALLOWED_HOSTS: "*" }).request("http://any.where/studio/config")).status).toBe(
      200,
    );
  });

  it("beyond loopback, also serves the listening address and the machine's names", async () => {
    const a = app({}, "0.0.0.0");
    expect((await a.request(`http://${os.hostname()}:8190/studio/config`)).status).toBe(200);
    expect((await a.request("http://evil.example/studio/config")).status).toBe(403);
    const one = app({}, "192.0.2.7");
    expect((await one.request("http://192.0.2.7:8190/studio/config")).status).toBe(200);
    expect((await one.request("http://192.0.2.8:8190/studio/config")).status).toBe(403);
  });

  it("refuses a malformed Host", async () => {
    const res = await app().request("http://127.0.0.1/studio/config", { headers: { host: "a b" } });
    expect(res.status).toBe(403);
  });
});

describe("Origin check on writes", () => {
  it("refuses an empty-body cross-site POST to server/stop, paid-reset and sdk/install", async () => {
    const a = app();
    for (const p of ["/studio/server/stop", "/studio/jobs/paid-reset", "/studio/sdk/install"]) {
      for (const origin of ["http://evil.example", "null"]) {
        const res = await a.request(`http://127.0.0.1:8190${p}`, { method: "POST", headers: { origin } });
        expect(res.status, `${p} from ${origin}`).toBe(403);
        expect(((await res.json()) as { error: string }).error).toMatch(/STUDIO_ALLOWED_ORIGINS/);
      }
    }
    const noOrigin = await a.request("http://127.0.0.1:8190/studio/server/stop", {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(noOrigin.status).toBe(403);
    expect(stops).toEqual([]);
  });

  it("refuses a form body even when empty, since a page can send one without asking", async () => {
    const res = await app().request(
      "http://127.0.0.1:8190/studio/server/stop",
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
      local,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/Content-Type must be application\/json/);
    expect(stops).toEqual([]);
  });

  it("serves the page's own origin, listed origins, and requests with no Origin (curl, scripts)", async () => {
    const a = app({ STUDIO_ALLOWED_ORIGINS: "https://editor.studio.lan" });
    const put = (headers: Record<string, string>) =>
      a.request("http://127.0.0.1:8190/studio/config", {
        method: "PUT",
        headers: { ...json, ...headers },
        body: JSON.stringify({ roots: [root] }),
      });
    expect((await put({ origin: "http://127.0.0.1:8190", "sec-fetch-site": "same-origin" })).status).toBe(
      200,
    );
    expect((await put({ origin: "https://editor.studio.lan" })).status).toBe(200);
    expect((await put({})).status).toBe(200);
    // Another port on the same machine is another origin.
    expect((await put({ origin: "http://127.0.0.1:3000" })).status).toBe(403);
    expect((await put({ origin: "http://localhost:8190" })).status).toBe(403);
    const stop = await a.request(
      "http://127.0.0.1:8190/studio/server/stop",
      { method: "POST", headers: { origin: "http://127.0.0.1:8190" } },
      local,
    );
    expect(stop.status).toBe(200);
    expect(stops).toEqual([false]);
  });

  it("lets reads through from other origins (a browser cannot read the answer without CORS)", async () => {
    const res = await app().request("http://127.0.0.1:8190/studio/config", {
      headers: { origin: "http://evil.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("STUDIO_TOKEN", () => {
  it("is off by default: no credentials needed", async () => {
    expect((await app().request("http://127.0.0.1/studio/config")).status).toBe(200);
  });

  it("when set, needs the token as a bearer header, a cookie, or ?token= (which sets the cookie)", async () => {
    const a = app({ STUDIO_TOKEN: "s3cret-token" });
    const none = await a.request("http://127.0.0.1/studio/config");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await none.json()) as { error: string }).error).toMatch(/STUDIO_TOKEN/);
    const wrong = await a.request("http://127.0.0.1/studio/config", {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    const bearer = await a.request("http://127.0.0.1/studio/config", {
      headers: { authorization: "Bearer s3cret-token" },
    });
    expect(bearer.status).toBe(200);
    const query = await a.request("http://127.0.0.1/studio/config?token=s3cret-token");
    expect(query.status).toBe(200);
    const cookie = query.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^studio_token=s3cret-token;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await a.request("http://127.0.0.1/studio/config", {
      headers: { cookie: "other=1; studio_token=s3cret-token" },
    });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("set-cookie")).toBeNull();
  });

  it("does not let a token past the Host or Origin checks", async () => {
    const a = app({ STUDIO_TOKEN: "t" });
    const host = await a.request("http://evil.example/studio/config", {
      headers: { authorization: "Bearer t" },
    });
    expect(host.status).toBe(403);
    const origin = await a.request("http://127.0.0.1/studio/server/stop", {
      method: "POST",
      headers: { authorization: "Bearer t", origin: "http://evil.example" },
    });
    expect(origin.status).toBe(403);
  });
});

describe("body limits", () => {
  const put = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
    app().request("http://127.0.0.1/studio/config", {
      method: "PUT",
      headers: { ...json, ...headers },
      body,
    });

  it("answers 413 for a JSON body over 1 MB, early from Content-Length and while reading without it", async () => {
    const big = JSON.stringify({ roots: [root], pad: "x".repeat(1024 * 1024) });
    const declared = await put(big, { "content-length": String(Buffer.byteLength(big)) });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: string }).error).toMatch(/larger than 1024 KB/);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(64 * 1024)));
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await app().request("http://127.0.0.1/studio/config", {
      method: "PUT",
      headers: json,
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("answers 400 for nesting deeper than 64 levels, without walking it", async () => {
    const deep = `{"roots": [], "review_copy": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const res = await put(deep);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("body: nested deeper than 64 levels");
    expect(jsonDepth('{"a": "[[[[[[", "b": [[1]]}')).toBe(3);
    expect(jsonDepth('{"a": "\\"[[[["}')).toBe(1);
  });

  it("lets an upload route take more than 1 MB, and refuses a declared length over 65 MB early", async () => {
    const upload = defineFunction({
      method: "POST",
      path: "/upload-probe",
      summary: "test upload",
      rawBody: true,
      async handler(_input, ctx) {
        return { bytes: (await ctx.request.arrayBuffer()).byteLength };
      },
    });
    const a = createApp(env.services, [upload]);
    const two = new Uint8Array(2 * 1024 * 1024);
    const ok = await a.request("http://127.0.0.1/studio/upload-probe", { method: "POST", body: two });
    expect(await ok.json()).toEqual({ bytes: two.byteLength });
    const big = await a.request("http://127.0.0.1/studio/upload-probe", {
      method: "POST",
      headers: { "content-length": String(66 * 1024 * 1024) },
      body: "x",
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ error: "upload: larger than 64 MB" });
  });

  it("answers 400 for a body that is not UTF-8", async () => {
    const res = await put(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("body: not UTF-8 text");
  });
});
