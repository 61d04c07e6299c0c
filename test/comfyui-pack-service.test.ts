// The service's side of running inside ComfyUI through the node pack: the client id the pack passes
// (STUDIO_COMFY_CLIENT_ID) is checked and used by the engine of the mounted ComfyUI only, on its real socket to a
// loopback server; and the editor page may be framed by its own origin only when mounted.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { functions } from "../functions/index.ts";
import { mountedClientId, mountedClientIdProblem } from "../lib/config/mounted.ts";
import { createEngines } from "../lib/engines/registry.ts";
import { createApp } from "../runtime/app.ts";
import type { PageSource } from "../runtime/page.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { startServer } from "./support/server.ts";

const ID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const COMFY = "http://127.0.0.1:8188";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function testEnv(env: Record<string, string>): Promise<TestEnv> {
  const t = await makeTestEnv(env);
  cleanups.push(() => t.cleanup());
  return t;
}

describe("STUDIO_COMFY_CLIENT_ID", () => {
  it("is used when mounted and it is 32 hex digits or a UUID", () => {
    expect(mountedClientId({ STUDIO_MOUNTED_COMFY: COMFY, STUDIO_COMFY_CLIENT_ID: ID })).toBe(ID);
    const uuid = "0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0";
    expect(mountedClientId({ STUDIO_MOUNTED_COMFY: COMFY, STUDIO_COMFY_CLIENT_ID: ` ${uuid} ` })).toBe(uuid);
    expect(mountedClientIdProblem({ STUDIO_MOUNTED_COMFY: COMFY, STUDIO_COMFY_CLIENT_ID: ID })).toBeNull();
    expect(mountedClientIdProblem({})).toBeNull();
    expect(mountedClientId({ STUDIO_MOUNTED_COMFY: COMFY })).toBeNull();
  });

  it.each([
    ["page1", /is not 32 hex digits or a UUID; ignored/],
    [`${ID}0`, /is not 32 hex digits or a UUID/],
    ["../../x", /is not 32 hex digits or a UUID/],
    [`${ID.slice(0, 31)}&clientId=x`, /is not 32 hex digits or a UUID/],
  ])("ignores %j with a warning", (value, why) => {
    const env = { STUDIO_MOUNTED_COMFY: COMFY, STUDIO_COMFY_CLIENT_ID: value };
    expect(mountedClientId(env)).toBeNull();
    expect(mountedClientIdProblem(env)).toMatch(why);
  });

  it("a server given an unusable one says so at start, and runs", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "studio-client-id-"));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const server = await startServer({
      STUDIO_HOME: home,
      STUDIO_MOUNTED_COMFY: COMFY,
      STUDIO_COMFY_CLIENT_ID: "page1",
    });
    cleanups.push(async () => {
      server.child.kill("SIGTERM");
      await server.exited;
    });
    expect(server.output()).toMatch(
      /STUDIO_COMFY_CLIENT_ID: "page1" is not 32 hex digits or a UUID; ignored/,
    );
    const config = (await (await fetch(`${server.url}/studio/config`)).json()) as { mounted: unknown };
    expect(config.mounted).toEqual({ comfy: COMFY });
  });

  it("is ignored with a warning when the service is not mounted", () => {
    const env = { STUDIO_COMFY_CLIENT_ID: ID };
    expect(mountedClientId(env)).toBeNull();
    expect(mountedClientIdProblem(env)).toMatch(/set without STUDIO_MOUNTED_COMFY; ignored/);
  });
});

describe("the engine of the mounted ComfyUI", () => {
  /** A websocket server on loopback standing in for ComfyUI's /api/ws: answers the URLs it was asked. */
  async function socketServer(): Promise<{ url: string; asked: string[] }> {
    const asked: string[] = [];
    const server: Server = createServer((_req, res) => res.writeHead(404).end());
    const wss = new WebSocketServer({ server });
    wss.on("connection", (_ws, req) => asked.push(req.url ?? ""));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => server.close(r));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
  }

  it("queues under the pack's client id on its socket; other ComfyUIs get ids of their own", async () => {
    const comfy = await socketServer();
    const t = await testEnv({ STUDIO_MOUNTED_COMFY: `${comfy.url}/`, STUDIO_COMFY_CLIENT_ID: ID });
    const engines = createEngines(t.services);
    cleanups.push(() => engines.close());
    const mounted = engines.comfyAt(comfy.url);
    expect(mounted.clientId).toBe(ID);
    const release = mounted.socket.hold();
    await mounted.socket.ready(5_000);
    release();
    expect(comfy.asked).toEqual([`/api/ws?clientId=${ID}`]);
    const other = engines.comfyAt("http://127.0.0.1:9");
    expect(other.clientId).toMatch(/^[0-9a-f]{32}$/);
    expect(other.clientId).not.toBe(ID);
  });

  it("draws its own id when the pack's is unusable", async () => {
    const t = await testEnv({ STUDIO_MOUNTED_COMFY: COMFY, STUDIO_COMFY_CLIENT_ID: "page1" });
    const engines = createEngines(t.services);
    cleanups.push(() => engines.close());
    const engine = engines.comfyAt(COMFY);
    expect(engine.clientId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the editor page in a frame", () => {
  const page: PageSource = {
    load: async () => ({
      html: "<!doctype html><html><head></head><body></body></html>",
      assets: new Map(),
      from: "test",
    }),
  };
  const policyOf = async (env: Record<string, string>) => {
    const t = await testEnv(env);
    const app = createApp(t.services, functions, { page });
    const res = await app.request("/studio/", { headers: { host: "127.0.0.1:8190" } });
    expect(res.status).toBe(200);
    return res.headers.get("content-security-policy") ?? "";
  };

  it("is refused everywhere when the service runs on its own", async () => {
    const policy = await policyOf({});
    expect(policy).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
    expect(policy).toMatch(/default-src 'self'/);
  });

  it("is allowed in a frame of its own origin only (ComfyUI's) when mounted", async () => {
    const policy = await policyOf({ STUDIO_MOUNTED_COMFY: COMFY });
    expect(policy).toMatch(/(^|; )frame-ancestors 'self'(;|$)/);
    expect(policy).not.toMatch(/'none'.*frame|frame-ancestors [^;]*\*/);
  });
});
