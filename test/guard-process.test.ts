// The browser guard on a real `node runtime/serve.js`: DNS rebinding, cross-site sockets and stops as a hostile
// page would send them, the optional token, and slow sockets cut off by the connection limits.

import { mkdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import path from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { serverOptions } from "../runtime/limits.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

let env: TestEnv;
let shows: string;

beforeAll(async () => {
  env = await makeTestEnv();
  shows = path.join(env.dir, "shows");
  await mkdir(shows, { recursive: true });
});
afterAll(() => env.cleanup());

interface Raw {
  status: number;
  body: string;
}

/** A request with headers a browser page would send (fetch cannot set Host). */
function raw(url: string, method: string, headers: Record<string, string>, body = ""): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Open a socket; resolves with "open" or the HTTP status that refused the upgrade. */
function socket(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("error", (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

describe("a real server without configuration", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ STUDIO_HOME: env.home, STUDIO_ROOTS: shows, STUDIO_ROLES: "api" });
  });
  afterAll(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
  });

  it("refuses a DNS-rebinding page (foreign Host) on reads, writes and /ws", async () => {
    const port = new URL(server.url).port;
    const host = `evil.example:${port}`;
    const get = await raw(`${server.url}/studio/config`, "GET", { host });
    expect(get.status).toBe(403);
    expect(JSON.parse(get.body).error).toMatch(/STUDIO_ALLOWED_HOSTS/);
    const put = await raw(
      `${server.url}/studio/config`,
      "PUT",
      { host, "content-type": "application/json" },
      JSON.stringify({ roots: ["/"] }),
    );
    expect(put.status).toBe(403);
    expect(await socket(`${server.url.replace("http", "ws")}/ws`, { host })).toBe(403);
    const config = (await fetch(`${server.url}/studio/config`).then((r) => r.json())) as { roots: string[] };
    expect(config.roots).toEqual([shows]);
  });

  it("refuses cross-origin sockets (an evil origin and null) and serves the page's own", async () => {
    const ws = `${server.url.replace("http", "ws")}/ws`;
    expect(await socket(ws, { origin: "http://evil.example" })).toBe(403);
    expect(await socket(ws, { origin: "null" })).toBe(403);
    expect(await socket(ws, { origin: server.url })).toBe("open");
    expect(await socket(ws)).toBe("open");
  });

  it("refuses an empty-body cross-site stop and keeps running", async () => {
    const res = await raw(`${server.url}/studio/server/stop`, "POST", { origin: "http://evil.example" });
    expect(res.status).toBe(403);
    const form = await raw(`${server.url}/studio/server/stop`, "POST", {
      "content-type": "text/plain",
      origin: server.url,
    });
    expect(form.status).toBe(400);
    expect((await fetch(`${server.url}/studio/info`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});

describe("a real server with STUDIO_TOKEN", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      STUDIO_HOME: env.home,
      STUDIO_ROOTS: shows,
      STUDIO_ROLES: "api",
      STUDIO_TOKEN: "tok-123",
    });
  });
  afterAll(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
  });

  it("needs the token on HTTP and /ws; a browser that opened ?token= once carries it as a cookie", async () => {
    expect((await fetch(`${server.url}/studio/config`)).status).toBe(401);
    const opened = await fetch(`${server.url}/studio/config?token=tok-123`);
    expect(opened.status).toBe(200);
    const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0];
    expect(cookie).toBe("studio_token=tok-123");
    expect((await fetch(`${server.url}/studio/config`, { headers: { cookie } })).status).toBe(200);
    const ws = `${server.url.replace("http", "ws")}/ws`;
    expect(await socket(ws)).toBe(401);
    expect(await socket(ws, { cookie, origin: server.url })).toBe("open");
    expect(await socket(`${ws}?token=tok-123`)).toBe("open");
    expect(await socket(ws, { authorization: "Bearer tok-123" })).toBe("open");
  });
});

describe("connection limits", () => {
  it("cuts off sockets that trickle their headers while other requests are served", async () => {
    const app = new Hono().get("/ping", (c) => c.text("pong"));
    const limits = { headersTimeout: 800, requestTimeout: 1500, keepAliveTimeout: 500, checkInterval: 100 };
    const srv = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve(
        { fetch: app.fetch, hostname: "127.0.0.1", port: 0, serverOptions: serverOptions(limits) },
        () => resolve(s),
      );
    });
    const port = (srv.address() as AddressInfo).port;
    try {
      const slow: net.Socket[] = [];
      const closed: Promise<void>[] = [];
      for (let i = 0; i < 300; i++) {
        const s = net.connect(port, "127.0.0.1");
        s.on("error", () => {});
        s.resume();
        s.write("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
        closed.push(new Promise((r) => s.once("close", () => r())));
        slow.push(s);
      }
      const res = await fetch(`http://127.0.0.1:${port}/ping`);
      expect(await res.text()).toBe("pong");
      // Every trickling socket is closed by the server, well before its own end.
      await Promise.all(closed);
      for (const s of slow) expect(s.destroyed).toBe(true);
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });
});
