// GET /studio/backends, the engine pass-throughs and GET /queue, against small HTTP servers on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { configuredBackends, listBackends } from "../lib/backends/list.ts";
import { effectiveSettings } from "../lib/config/settings-store.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import type { NewJob } from "../lib/jobs/types.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Fake {
  url: string;
  seen: { path: string; auth: string | undefined }[];
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port; every request is recorded. */
async function serve(handler: Handler): Promise<Fake> {
  const seen: Fake["seen"] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", auth: req.headers.authorization });
    handler(req, res);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback address nobody listens on: a port that was just free. */
async function refusingUrl(): Promise<string> {
  const fake = await serve(() => {});
  await fake.close();
  return fake.url;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const OBJECT_INFO = {
  KSampler: { input: { required: { seed: ["INT", { default: 0 }] } }, name: "KSampler" },
};
const ENGINE_QUEUE = {
  queue_running: [
    [
      0,
      "p-running",
      { "3": { class_type: "KSampler" } },
      { client_id: "c", api_key_comfy_org: "secret-key" },
      ["9"],
    ],
  ],
  queue_pending: [[1, "p-pending", {}, { client_id: "c" }, ["9"]]],
};

/** A ComfyUI-like engine: /system_stats, /models, /models/{folder}, /object_info/{node}, /queue. */
const engine: Handler = (req, res) => {
  const url = decodeURIComponent(req.url ?? "");
  if (url === "/system_stats") return json(res, 200, { system: { comfyui_version: "0.3.64" }, devices: [] });
  if (url === "/models") return json(res, 200, ["checkpoints", "loras", "vae"]);
  if (url === "/models/checkpoints") return json(res, 200, ["sd15.safetensors", "sub/x.safetensors"]);
  if (url.startsWith("/models/")) {
    res.writeHead(404);
    return res.end();
  }
  if (url === "/object_info/KSampler") return json(res, 200, OBJECT_INFO);
  if (url.startsWith("/object_info/")) return json(res, 200, {});
  if (url === "/queue") return json(res, 200, ENGINE_QUEUE);
  if (url === "/api/v2/health") return json(res, 200, { status: "healthy" });
  if (url.startsWith("/api/v2/jobs")) {
    if (req.headers.authorization !== "Bearer good-key")
      return json(res, 401, { error: { code: "unauthorized" } });
    return json(res, 200, { jobs: [] });
  }
  json(res, 404, { error: "not here" });
};

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let fake: Fake;
let refusing: string;

beforeAll(async () => {
  fake = await serve(engine);
  refusing = await refusingUrl();
});
afterAll(() => fake.close());

async function setup(vars: Record<string, string> = {}): Promise<void> {
  env = await makeTestEnv(vars);
  app = createApp(env.services, functions);
}
afterEach(() => env?.cleanup());

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Answer = { status: number; body: any };

async function call(route: string, init?: RequestInit): Promise<Answer> {
  const res = await app.request(route, init);
  return { status: res.status, body: await res.json() };
}

async function putSettings(body: unknown): Promise<void> {
  const res = await app.request("/studio/settings", {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe("GET /studio/backends", () => {
  it("lists local, router and builtin, asking the local engine for /system_stats", async () => {
    await setup();
    await putSettings({ local_url: fake.url });
    const { status, body } = await call("/studio/backends");
    expect(status).toBe(200);
    expect(body).toEqual({
      backends: [
        { name: "local", kind: "comfyui", where: fake.url, down: null },
        {
          name: "router",
          kind: "router",
          where: "https://cloud.comfy.org",
          down: "no API key is set (settings api_key, or STUDIO_API_KEY)",
        },
        { name: "builtin", kind: "builtin", where: "this process (ffmpeg and sharp)", down: null },
      ],
      api_key: false,
    });
    expect(fake.seen.at(-1)?.path).toBe("/system_stats");
    // A queue route: standalone, no /api/studio alias.
    expect((await call("/api/studio/backends")).status).toBe(404);
  });

  it("says a backend that refuses the connection is down, naming its address", async () => {
    await setup({ STUDIO_ENGINE_URL: refusing });
    const { body } = await call("/studio/backends");
    expect(body.backends[0]).toEqual({
      name: "local",
      kind: "comfyui",
      where: refusing,
      down: `${refusing} refused the connection`,
    });
  });

  it("lists cloud and each deployment with the key as a bearer token; api_key is a boolean", async () => {
    await setup();
    await putSettings({
      local_url: refusing,
      cloud_url: fake.url,
      api_key: "good-key",
      deployments: { wan22_i2v: `${fake.url}/wan`, ltx2: `${fake.url}/ltx` },
    });
    const { body } = await call("/studio/backends");
    expect(body.api_key).toBe(true);
    expect(JSON.stringify(body)).not.toContain("good-key");
    expect(body.backends.map((b: { name: string }) => b.name)).toEqual([
      "local",
      "cloud",
      "deployment:ltx2",
      "deployment:wan22_i2v",
      "router",
      "builtin",
    ]);
    expect(body.backends[1]).toEqual({ name: "cloud", kind: "comfy-cloud", where: fake.url, down: null });
    // The fake answers 404 under /ltx and /wan: the service is there, so the deployment counts as up.
    expect(body.backends[2]).toEqual({
      name: "deployment:ltx2",
      kind: "comfy-deployment",
      where: `${fake.url}/ltx`,
      down: null,
    });
    const cloudCall = fake.seen.find((s) => s.path === "/api/v2/jobs?limit=1");
    expect(cloudCall?.auth).toBe("Bearer good-key");
  });

  it("says the cloud is down when its key is refused or missing", async () => {
    await setup({ STUDIO_LOCAL_URL: refusing });
    await putSettings({ cloud_url: fake.url, api_key: "bad-key" });
    let cloud = (await call("/studio/backends")).body.backends[1];
    expect(cloud.down).toBe(`${fake.url} refused the API key (401)`);
    await putSettings({ api_key: null });
    cloud = (await call("/studio/backends")).body.backends[1];
    expect(cloud).toMatchObject({ name: "cloud", down: expect.stringMatching(/no API key is set/) });
  });

  it("puts the cloud at its usual address when only a key is set", async () => {
    await setup({ COMFY_API_KEY: "k" });
    // Configuration only: a test never reaches out beyond loopback.
    const backends = configuredBackends(await effectiveSettings(env.services));
    expect(backends[1]).toEqual({ name: "cloud", kind: "comfy-cloud", where: "https://cloud.comfy.org" });
  });

  it("asks a comfy-api-proxy for /api/v2/health when local_via is proxy", async () => {
    await setup();
    await putSettings({ local_url: fake.url, local_via: "proxy" });
    const local = (await call("/studio/backends")).body.backends[0];
    expect(local).toEqual({ name: "local", kind: "comfy-api-proxy", where: fake.url, down: null });
    expect(fake.seen.at(-1)?.path).toBe("/api/v2/health");
  });

  it("gives up on a backend that does not answer within 2 s", async () => {
    const silent = await serve(() => {});
    try {
      await setup({ STUDIO_LOCAL_URL: silent.url });
      const started = Date.now();
      const { body } = await call("/studio/backends");
      expect(Date.now() - started).toBeLessThan(4000);
      expect(body.backends[0].down).toBe(`no answer from ${silent.url} within 2 s`);
      // The other backends are not held up by the silent one.
      expect(body.backends.at(-1)).toMatchObject({ name: "builtin", down: null });
    } finally {
      await silent.close();
    }
  }, 10_000);

  it("bounds each probe by the timeout it is given", async () => {
    const silent = await serve(() => {});
    try {
      await setup({ STUDIO_LOCAL_URL: silent.url });
      const answer = await listBackends(env.services, { timeoutMs: 200 });
      expect(answer.backends[0].down).toBe(`no answer from ${silent.url} within 0.2 s`);
    } finally {
      await silent.close();
    }
  });
});

describe("engine pass-throughs", () => {
  it("answers /models, /models/{folder} and /object_info/{node} as the engine does", async () => {
    await setup({ STUDIO_LOCAL_URL: fake.url });
    expect(await call("/models")).toEqual({ status: 200, body: ["checkpoints", "loras", "vae"] });
    expect(await call("/api/models/checkpoints")).toEqual({
      status: 200,
      body: ["sd15.safetensors", "sub/x.safetensors"],
    });
    expect(await call("/object_info/KSampler")).toEqual({ status: 200, body: OBJECT_INFO });
    // An unknown class is {} with 200 on the engine, and so here.
    expect(await call("/object_info/Load%20Image%20(v2)")).toEqual({ status: 200, body: {} });
    expect(fake.seen.at(-1)?.path).toBe("/object_info/Load%20Image%20(v2)");
  });

  it("goes to engine_url when no local_url is set", async () => {
    await setup({ STUDIO_ENGINE_URL: fake.url });
    expect((await call("/models")).status).toBe(200);
  });

  it("answers 404 naming the folder the engine does not have", async () => {
    await setup({ STUDIO_LOCAL_URL: fake.url });
    const { status, body } = await call("/models/nosuch");
    expect(status).toBe(404);
    expect(body).toEqual({ error: `${fake.url} has no model folder "nosuch"` });
  });

  it("answers 503 naming the address when the engine does not answer", async () => {
    await setup({ STUDIO_LOCAL_URL: refusing });
    for (const route of ["/models", "/models/loras", "/object_info/KSampler"]) {
      const { status, body } = await call(route);
      expect(status, route).toBe(503);
      expect(body).toEqual({
        error: `the local backend does not answer: ${refusing} refused the connection`,
      });
    }
  });

  it("answers 502 when the engine's answer is not JSON", async () => {
    const html = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>not an engine</html>");
    });
    try {
      await setup({ STUDIO_LOCAL_URL: html.url });
      const { status, body } = await call("/models");
      expect(status).toBe(502);
      expect(body.error).toBe(`${html.url} did not answer JSON to /models`);
    } finally {
      await html.close();
    }
  });
});

describe("GET /queue", () => {
  let store: StudioJobStore;
  const job = (title: string, lane = "local"): NewJob => ({
    kind: "render",
    lane,
    title,
    info: { ep: "/shows/s/ep01", pass: "proxy", shot: title, take: 1, target: "animatic", backend: lane },
    payload: {},
  });

  afterEach(async () => {
    await store?.close();
  });

  /** A running job the engine already lists (p-running), a queued job, and a finished one. */
  async function jobs() {
    store = await env.services.jobs();
    const running = await store.add(job("sh010"));
    const claimed = await store.claim("test-worker", 60_000, ["local"]);
    expect(claimed?.id).toBe(running.id);
    await store.update(running.id, "test-worker", { backend_prompt_id: "p-running" });
    const waiting = await store.add(job("sh020"));
    const ended = await store.add(job("sh030", "builtin"));
    await store.cancel(ended.id);
    return { running, waiting, ended };
  }

  it("lists the engine's queue, then the service's jobs numbered after it, without the engine's key", async () => {
    await setup({ STUDIO_LOCAL_URL: fake.url });
    const { running, waiting } = await jobs();
    const { status, body } = await call("/queue");
    expect(status).toBe(200);
    expect(JSON.stringify(body)).not.toContain("secret-key");
    expect(body.backend).toBe(fake.url);
    expect(body.backend_down).toBeNull();
    // The running job is the engine's p-running: listed once, as the engine has it.
    expect(body.queue_running).toEqual([
      [0, "p-running", { "3": { class_type: "KSampler" } }, { client_id: "c" }, ["9"]],
    ]);
    expect(body.queue_pending).toHaveLength(2);
    expect(body.queue_pending[0]).toEqual(ENGINE_QUEUE.queue_pending[0]);
    const [n, id, graph, extra, outputs] = body.queue_pending[1];
    expect([n, id, graph, outputs]).toEqual([2, waiting.id, {}, []]);
    expect(extra.studio_job).toMatchObject({
      id: waiting.id,
      status: "queued",
      lane: "local",
      title: "sh020",
    });
    expect(body.studio_jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual(
      expect.arrayContaining([
        [running.id, "running"],
        [waiting.id, "queued"],
      ]),
    );
    expect(body.studio_jobs).toHaveLength(2);
    expect((await call("/api/queue")).body).toEqual(body);
  });

  it("lists only the service's jobs, with the reason, when the engine does not answer", async () => {
    await setup({ STUDIO_LOCAL_URL: refusing });
    const { running, waiting } = await jobs();
    const { status, body } = await call("/queue");
    expect(status).toBe(200);
    expect(body.backend_down).toBe(`${refusing} refused the connection`);
    expect(body.queue_running.map((item: unknown[]) => item.slice(0, 3))).toEqual([[0, running.id, {}]]);
    expect(body.queue_pending.map((item: unknown[]) => item.slice(0, 3))).toEqual([[1, waiting.id, {}]]);
    expect(body.studio_jobs).toHaveLength(2);
  });

  it("treats an answer without the queue lists as down", async () => {
    const odd = await serve((_req, res) => json(res, 200, { hello: "world" }));
    try {
      await setup({ STUDIO_LOCAL_URL: odd.url });
      store = await env.services.jobs();
      const { body } = await call("/queue");
      expect(body).toEqual({
        queue_running: [],
        queue_pending: [],
        backend: odd.url,
        backend_down: `${odd.url} answered /queue without queue_running and queue_pending`,
        studio_jobs: [],
      });
    } finally {
      await odd.close();
    }
  });
});
