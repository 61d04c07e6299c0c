// Mounted in ComfyUI (STUDIO_MOUNTED_COMFY): the `local` backend defaults to that ComfyUI while the settings still
// win, GET /studio/config says `mounted`, a bad address stops the server at start, and a job carries its engine id.
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import backendsGet from "../functions/backends/get.ts";
import configGet from "../functions/config/get.ts";
import jobsGet from "../functions/jobs/get.ts";
import settingsGet from "../functions/settings/get.ts";
import { engineAddress } from "../lib/backends/list.ts";
import { type Config, DEFAULT_ENGINE } from "../lib/config/config.ts";
import { checkMounted, mountedComfy } from "../lib/config/mounted.ts";
import { effectiveSettings } from "../lib/config/settings-store.ts";
import { localAddress } from "../lib/engines/registry.ts";
import type { JobKind } from "../lib/jobs/types.ts";
import { callFunction } from "./support/call.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";
import { startServer } from "./support/server.ts";

let env: TestEnv;
let comfy: Server;
let comfyUrl: string;

beforeEach(async () => {
  env = await makeTestEnv();
  // A ComfyUI stand-in that answers the backends probe.
  comfy = createServer((req, res) => {
    res.writeHead(req.url === "/system_stats" ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify({ system: { comfyui_version: "0.3.60" } }));
  });
  await new Promise<void>((resolve) => comfy.listen(0, "127.0.0.1", resolve));
  comfyUrl = `http://127.0.0.1:${(comfy.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => comfy.close(() => resolve()));
  await env.cleanup();
});

const config = async (): Promise<Config> => (await callFunction(configGet, undefined, env.services)).body;

async function writeSettingsFile(body: Record<string, unknown>): Promise<void> {
  const dir = path.join(env.home, "default", "studio");
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "settings.json"), JSON.stringify(body));
}

describe("GET /studio/config when mounted", () => {
  it("answers mounted null and the default engine when the service stands alone", async () => {
    expect(await config()).toMatchObject({ mounted: null, engine: DEFAULT_ENGINE });
  });

  it("answers the ComfyUI it runs in, which is also the engine address", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = `${comfyUrl}/`;
    expect(await config()).toMatchObject({ mounted: { comfy: comfyUrl }, engine: comfyUrl });
  });

  it("keeps the engine the settings name, still saying where it is mounted", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = comfyUrl;
    await writeSettingsFile({ local_url: "http://gpu-box:8188" });
    expect(await config()).toMatchObject({ mounted: { comfy: comfyUrl }, engine: "http://gpu-box:8188" });
  });

  it("names it in the summary of the API document", () => {
    expect(configGet.summary).toContain("mounted");
  });
});

describe("the local backend when mounted", () => {
  it("is the mounted ComfyUI, probed there and answering", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = comfyUrl;
    const { body } = await callFunction(backendsGet, undefined, env.services);
    const local = body.backends.find((b: { name: string }) => b.name === "local");
    expect(local).toEqual({ name: "local", kind: "comfyui", where: comfyUrl, down: null });
    expect(await localAddress(env.services)).toBe(comfyUrl);
  });

  it("gives way to local_url and engine_url from the settings file or the environment", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = comfyUrl;
    await writeSettingsFile({ engine_url: "http://other:9000" });
    expect(await localAddress(env.services)).toBe("http://other:9000");
    env.services.env.STUDIO_LOCAL_URL = "http://env-box:8188";
    expect(await localAddress(env.services)).toBe("http://env-box:8188");
  });

  it("is the engine behind a Comfy API v2 proxy when the settings name no engine_url", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = comfyUrl;
    await writeSettingsFile({ local_url: "http://127.0.0.1:8189", local_via: "proxy" });
    const s = await effectiveSettings(env.services);
    expect(engineAddress(s)).toBe(comfyUrl);
  });

  it("is not a setting: GET /studio/settings neither lists it nor says the environment set local_url", async () => {
    env.services.env.STUDIO_MOUNTED_COMFY = comfyUrl;
    const { body } = await callFunction(settingsGet, undefined, env.services);
    expect(body.settings.local_url).toBeNull();
    expect(body.settings).not.toHaveProperty("mounted");
    expect(body.from_env).toEqual({});
  });
});

describe("STUDIO_MOUNTED_COMFY values", () => {
  it.each([
    ["comfy.local:8188", "must be an http:// or https:// address"],
    ["ftp://127.0.0.1:8188", "must be an http:// or https:// address"],
    ["http://user:secret@127.0.0.1:8188", "must not hold a user name or password"],
    ["http://127.0.0.1:8188/?x=1", "without ?query"],
  ])("refuses %s at start, saying why, and does not take it as an address", (value, why) => {
    const env = { STUDIO_MOUNTED_COMFY: value };
    expect(() => checkMounted(env)).toThrow(why);
    expect(() => checkMounted(env)).toThrow("STUDIO_MOUNTED_COMFY");
    expect(mountedComfy(env)).toBeNull();
  });

  it("takes unset and blank as not mounted, and a base path as given", () => {
    expect(() => checkMounted({})).not.toThrow();
    expect(() => checkMounted({ STUDIO_MOUNTED_COMFY: "  " })).not.toThrow();
    expect(mountedComfy({ STUDIO_MOUNTED_COMFY: "  " })).toBeNull();
    expect(mountedComfy({ STUDIO_MOUNTED_COMFY: " https://box.lan/comfy/ " })).toBe("https://box.lan/comfy");
  });

  it("stops a server with a bad address before it listens, exit code 2, saying so", async () => {
    const started = startServer({
      STUDIO_HOME: env.home,
      STUDIO_MOUNTED_COMFY: "localhost:8188",
      STUDIO_LOG: "warn",
    });
    const err = await started.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited with 2 before listening/);
    expect(err?.message).toContain(
      'STUDIO_MOUNTED_COMFY: "localhost:8188" must be an http:// or https:// address',
    );
  }, 30_000);
});

describe("GET /studio/jobs and backend_prompt_id", () => {
  it("shows the engine's id of a job's work once the worker has it, null before", async () => {
    const store = new MemoryJobStore();
    const mine = await makeTestEnv({}, { jobStore: store });
    try {
      const job = await store.add({
        kind: "render" as JobKind,
        lane: "local",
        title: "s01",
        info: {},
        payload: {},
      });
      const before = (await callFunction(jobsGet, undefined, mine.services)).body;
      expect(before.jobs[0]).toMatchObject({ id: job.id, backend_prompt_id: null });
      const claimed = await store.claim("w1", 10_000);
      expect(claimed?.id).toBe(job.id);
      await store.update(job.id, "w1", { backend_prompt_id: "prompt-7" });
      const after = (await callFunction(jobsGet, undefined, mine.services)).body;
      expect(after.jobs[0]).toMatchObject({ id: job.id, status: "running", backend_prompt_id: "prompt-7" });
    } finally {
      await mine.cleanup();
    }
  });
});
