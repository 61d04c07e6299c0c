// GET/PUT /studio/settings and POST /studio/sdk/install through the app: defaults, each field, env, file.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { readSettings, settingsFile } from "../lib/config/settings.ts";
import { hfToken } from "../lib/features/token.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let app: ReturnType<typeof createApp>;

async function setup(vars: Record<string, string> = {}): Promise<void> {
  env = await makeTestEnv(vars);
  app = createApp(env.services, functions);
}
afterEach(() => env?.cleanup());

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Answer = { status: number; body: any };

async function get(prefix = "/studio"): Promise<Answer> {
  const res = await app.request(`${prefix}/settings`);
  return { status: res.status, body: await res.json() };
}

async function put(body: unknown, prefix = "/studio"): Promise<Answer> {
  const res = await app.request(`${prefix}/settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A PUT that must be refused with 400 whose message starts with `field`. */
async function refused(body: unknown, field: string): Promise<string> {
  const { status, body: answer } = await put(body);
  expect(status, JSON.stringify(answer)).toBe(400);
  expect(Object.keys(answer)).toEqual(["error"]);
  expect(answer.error).toMatch(new RegExp(`^${field.replace(/\./g, "\\.")}\\b`));
  return answer.error;
}

const stored = async () => JSON.parse(await readFile(settingsFile(env.services), "utf8"));

const SDK = { status: "ready", error: null, command: null, python: null };
const DEFAULTS = {
  local_url: null,
  engine_url: null,
  cloud_url: null,
  api_key: null,
  hf_token: null,
  deployments: {},
  path: null,
  paid_limit: null,
  enabled_drafts: [],
  target_limits: {},
  local_via: null,
  default_targets: {},
  detected_targets: {},
  sdk: SDK,
};

describe("GET /studio/settings", () => {
  it("answers every field with its default, the file and no env when nothing is set", async () => {
    await setup();
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body).toEqual({
      settings: DEFAULTS,
      file: path.join(env.home, "default", "studio", "settings.json"),
      from_env: {},
    });
    expect(Object.keys(body.settings)).toEqual(Object.keys(DEFAULTS));
    // A queue route: standalone, no /api/studio alias.
    expect((await get("/api/studio")).status).toBe(404);
  });

  it("reports the built-in SDK as ready, and POST /studio/sdk/install answers it", async () => {
    await setup();
    expect((await get()).body.settings.sdk).toEqual(SDK);
    const res = await app.request("/studio/sdk/install", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sdk: SDK });
  });

  it("ignores unusable values in a hand-edited file rather than failing", async () => {
    await setup();
    await mkdir(path.dirname(settingsFile(env.services)), { recursive: true });
    await writeFile(
      settingsFile(env.services),
      JSON.stringify({ local_url: "ftp://x", paid_limit: -2, local_via: "teleport", deployments: [1] }),
    );
    expect((await get()).body.settings).toEqual(DEFAULTS);
  });

  it("answers 500 naming the file when it is not a JSON object", async () => {
    await setup();
    await mkdir(path.dirname(settingsFile(env.services)), { recursive: true });
    await writeFile(settingsFile(env.services), "[1, 2]");
    const { status, body } = await get();
    expect(status).toBe(500);
    expect(body.error).toContain(settingsFile(env.services));
  });
});

describe("PUT /studio/settings", () => {
  it("stores the backend addresses (trailing slash dropped) and answers as GET; null and blank clear", async () => {
    await setup();
    const { status, body } = await put({
      local_url: "http://127.0.0.1:8188/",
      engine_url: "http://10.0.0.5:8188",
      cloud_url: "https://cloud.example.test/base/",
    });
    expect(status).toBe(200);
    expect(body.settings).toMatchObject({
      local_url: "http://127.0.0.1:8188",
      engine_url: "http://10.0.0.5:8188",
      cloud_url: "https://cloud.example.test/base",
    });
    expect(body.file).toBe(settingsFile(env.services));
    expect(body).toEqual((await get()).body);
    expect(await stored()).toEqual({
      local_url: "http://127.0.0.1:8188",
      engine_url: "http://10.0.0.5:8188",
      cloud_url: "https://cloud.example.test/base",
    });
    const cleared = await put({ local_url: null, engine_url: "  " });
    expect(cleared.body.settings).toMatchObject({ local_url: null, engine_url: null });
    expect(await stored()).toEqual({ cloud_url: "https://cloud.example.test/base" });
  });

  it("refuses addresses that are not http(s), hold credentials or a query, naming the field", async () => {
    await setup();
    expect(await refused({ local_url: "ftp://127.0.0.1/" }, "local_url")).toContain("http://");
    await refused({ engine_url: "not a url" }, "engine_url");
    await refused({ cloud_url: 8188 }, "cloud_url");
    expect(await refused({ cloud_url: "https://user:pw@cloud.test" }, "cloud_url")).toContain("api_key");
    await refused({ local_url: "http://127.0.0.1:8188/?x=1" }, "local_url");
  });

  it("keeps api_key write-only: shown as set, stored in the file, null removes it", async () => {
    await setup();
    const { body } = await put({ api_key: "  comfyui-abc123  " });
    expect(body.settings.api_key).toBe("set");
    expect(JSON.stringify(body)).not.toContain("comfyui-abc123");
    expect(JSON.stringify((await get()).body)).not.toContain("comfyui-abc123");
    expect((await stored()).api_key).toBe("comfyui-abc123");
    // Another PUT without api_key keeps it.
    expect((await put({ paid_limit: 2 })).body.settings.api_key).toBe("set");
    expect((await put({ api_key: null })).body.settings.api_key).toBeNull();
    expect(await stored()).not.toHaveProperty("api_key");
  });

  it("keeps hf_token write-only like api_key, and model downloads use it", async () => {
    await setup();
    const { status, body } = await put({ hf_token: "  hf_AbC123  " });
    expect(status).toBe(200);
    expect(body.settings.hf_token).toBe("set");
    expect(body.from_env).toEqual({});
    expect(JSON.stringify(body)).not.toContain("hf_AbC123");
    const features = await app.request("/studio/features");
    const listing = await features.text();
    expect(JSON.parse(listing).hf_token).toBe(true);
    expect(listing).not.toContain("hf_AbC123");
    expect((await stored()).hf_token).toBe("hf_AbC123");
    expect(await hfToken(env.services)).toBe("hf_AbC123");
    // Another PUT without hf_token keeps it; null removes it.
    expect((await put({ paid_limit: 2 })).body.settings.hf_token).toBe("set");
    expect((await put({ hf_token: null })).body.settings.hf_token).toBeNull();
    expect(await stored()).not.toHaveProperty("hf_token");
    expect(await hfToken(env.services)).toBeNull();
  });

  it("refuses an hf_token that is empty, has spaces or control characters, or is not a string", async () => {
    await setup();
    for (const bad of ["", "   ", "hf two", "hf_x\r\nx-injected: 1", 42, true, ["hf_x"], { token: "hf_x" }]) {
      const error = await refused({ hf_token: bad }, "hf_token");
      expect(error).not.toContain("hf_x");
    }
    await expect(readFile(settingsFile(env.services))).rejects.toThrow(/ENOENT/);
  });

  it("refuses an empty key or one with spaces or control characters", async () => {
    await setup();
    await refused({ api_key: "" }, "api_key");
    await refused({ api_key: "two words" }, "api_key");
    await refused({ api_key: "abc\r\nx-injected: 1" }, "api_key");
    await refused({ api_key: 42 }, "api_key");
  });

  it("stores deployments for known targets and refuses unknown targets and bad addresses", async () => {
    await setup();
    const { status, body } = await put({ deployments: { ltx2: "https://ltx.run.comfy.app/" } });
    expect(status).toBe(200);
    expect(body.settings.deployments).toEqual({ ltx2: "https://ltx.run.comfy.app" });
    expect(await refused({ deployments: { nosuch: "https://x.test" } }, "deployments.nosuch")).toContain(
      "not a known target",
    );
    await refused({ deployments: { ltx2: "gopher://x" } }, "deployments.ltx2");
    await refused({ deployments: { ltx2: null } }, "deployments.ltx2");
    await refused({ deployments: ["https://x.test"] }, "deployments");
    expect((await put({ deployments: null })).body.settings.deployments).toEqual({});
    expect(await stored()).not.toHaveProperty("deployments");
  });

  it("stores path as an existing absolute folder", async () => {
    await setup();
    const folder = path.join(env.dir, "ComfyUI");
    await mkdir(folder);
    expect((await put({ path: folder })).body.settings.path).toBe(folder);
    expect(await refused({ path: "relative/ComfyUI" }, "path")).toContain("absolute");
    expect(await refused({ path: path.join(env.dir, "missing") }, "path")).toContain("does not exist");
    await writeFile(path.join(env.dir, "file.txt"), "x");
    expect(await refused({ path: path.join(env.dir, "file.txt") }, "path")).toContain("not a folder");
    await refused({ path: 7 }, "path");
    expect((await put({ path: null })).body.settings.path).toBeNull();
  });

  it("takes paid_limit as a whole number 0 or more, null for no cap", async () => {
    await setup();
    expect((await put({ paid_limit: 0 })).body.settings.paid_limit).toBe(0);
    expect((await put({ paid_limit: 25 })).body.settings.paid_limit).toBe(25);
    for (const bad of [-1, 1.5, "3", true]) await refused({ paid_limit: bad }, "paid_limit");
    expect((await put({ paid_limit: null })).body.settings.paid_limit).toBeNull();
    // The jobs listing reads the same limit.
    await put({ paid_limit: 4 });
    const jobs = (await (await app.request("/studio/jobs")).json()) as { paid: unknown };
    expect(jobs.paid).toEqual({ count: 0, limit: 4 });
  });

  it("takes enabled_drafts as target ids (de-duplicated) and target_limits as objects per target", async () => {
    await setup();
    const { body } = await put({
      enabled_drafts: ["ltx2", "ltx2", "wan22_vace"],
      target_limits: { ltx2: { max_seconds: 10, sizes: ["768x512"] } },
    });
    expect(body.settings.enabled_drafts).toEqual(["ltx2", "wan22_vace"]);
    expect(body.settings.target_limits).toEqual({ ltx2: { max_seconds: 10, sizes: ["768x512"] } });
    await refused({ enabled_drafts: "ltx2" }, "enabled_drafts");
    await refused({ enabled_drafts: ["ok", "bad id/../x"] }, "enabled_drafts.1");
    await refused({ target_limits: { ltx2: 5 } }, "target_limits.ltx2");
    await refused({ target_limits: { "bad id": {} } }, "target_limits.bad id");
    const cleared = await put({ enabled_drafts: null, target_limits: null });
    expect(cleared.body.settings).toMatchObject({ enabled_drafts: [], target_limits: {} });
  });

  it("takes local_via engine or proxy, null clears it", async () => {
    await setup();
    expect((await put({ local_via: "proxy" })).body.settings.local_via).toBe("proxy");
    expect((await put({ local_via: "engine" })).body.settings.local_via).toBe("engine");
    expect(await refused({ local_via: "teleport" }, "local_via")).toContain("engine or proxy");
    expect((await put({ local_via: null })).body.settings.local_via).toBeNull();
  });

  it("checks default_targets ids against the shipped targets of each kind; empty or null clears", async () => {
    await setup();
    const { status, body } = await put({ default_targets: { video: "ltx2", image: "card" } });
    expect(status).toBe(200);
    expect(body.settings.default_targets).toEqual({ video: "ltx2", image: "card" });
    expect((await readSettings(env.services)).default_targets).toEqual({ video: "ltx2", image: "card" });
    expect(await refused({ default_targets: { video: "nosuch" } }, "default_targets.video")).toMatch(
      /not a known video target \(known: .*animatic/,
    );
    expect(await refused({ default_targets: { video: "card" } }, "default_targets.video")).toContain(
      "is an image target, not a video target",
    );
    await refused({ default_targets: { smell: "ltx2" } }, "default_targets");
    await refused({ default_targets: "ltx2" }, "default_targets");
    // The whole map is replaced: a kind left out is cleared.
    expect((await put({ default_targets: { audio: "silence" } })).body.settings.default_targets).toEqual({
      audio: "silence",
    });
    expect((await put({ default_targets: {} })).body.settings.default_targets).toEqual({});
    await put({ default_targets: { video: "animatic" } });
    expect((await put({ default_targets: null })).body.settings.default_targets).toEqual({});
    expect(await stored()).not.toHaveProperty("default_targets");
  });

  it("checks detected_targets the same way", async () => {
    await setup();
    expect((await put({ detected_targets: { video: "wan22_i2v" } })).body.settings.detected_targets).toEqual({
      video: "wan22_i2v",
    });
    await refused({ detected_targets: { image: "ltx2" } }, "detected_targets.image");
  });

  it("refuses an unknown field and a body that is not an object, writing nothing", async () => {
    await setup();
    expect(await refused({ local_url: "http://127.0.0.1:8188", colour: "blue" }, "body")).toContain("colour");
    await refused([1], "body");
    await expect(readFile(settingsFile(env.services))).rejects.toThrow(/ENOENT/);
  });

  it("writes nothing when one field of several is refused", async () => {
    await setup();
    await put({ paid_limit: 1 });
    await refused({ paid_limit: 5, default_targets: { video: "nosuch" } }, "default_targets.video");
    expect(await stored()).toEqual({ paid_limit: 1 });
  });

  it("keeps keys of the file it does not manage and writes 2-space JSON atomically", async () => {
    await setup();
    await mkdir(path.dirname(settingsFile(env.services)), { recursive: true });
    await writeFile(settingsFile(env.services), JSON.stringify({ theme: "dark", paid_limit: 3 }));
    await put({ local_via: "proxy" });
    const text = await readFile(settingsFile(env.services), "utf8");
    expect(JSON.parse(text)).toEqual({ theme: "dark", paid_limit: 3, local_via: "proxy" });
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });

  it("serializes concurrent PUTs so none is lost", async () => {
    await setup();
    await Promise.all([
      put({ paid_limit: 9 }),
      put({ local_via: "proxy" }),
      put({ enabled_drafts: ["ltx2"] }),
    ]);
    expect(await stored()).toEqual({ paid_limit: 9, local_via: "proxy", enabled_drafts: ["ltx2"] });
  });

  it("has no /api/studio alias standalone (a queue route)", async () => {
    await setup();
    expect((await put({ paid_limit: 7 }, "/api/studio")).status).toBe(404);
    expect((await get()).body.settings.paid_limit).not.toBe(7);
  });
});

describe("settings from the environment", () => {
  it("lets each variable win over the file and lists it in from_env", async () => {
    const folder = "/opt/ComfyUI";
    await setup({
      STUDIO_LOCAL_URL: "http://127.0.0.1:9000/",
      STUDIO_ENGINE_URL: "http://127.0.0.1:9001",
      STUDIO_CLOUD_URL: "https://cloud.example.test",
      STUDIO_API_KEY: "env-key-1",
      STUDIO_PAID_LIMIT: "12",
      STUDIO_LOCAL_VIA: "engine",
      STUDIO_ENGINE_PATH: folder,
      STUDIO_DEPLOYMENTS: JSON.stringify({ ltx2: "https://ltx.run.comfy.app" }),
      STUDIO_ENABLED_DRAFTS: "ltx2, wan22_vace",
    });
    await put({ local_url: "http://127.0.0.1:1234", paid_limit: 1, api_key: null });
    const { body } = await get();
    expect(body.settings).toMatchObject({
      local_url: "http://127.0.0.1:9000",
      engine_url: "http://127.0.0.1:9001",
      cloud_url: "https://cloud.example.test",
      api_key: "set",
      paid_limit: 12,
      local_via: "engine",
      path: path.resolve(folder),
      deployments: { ltx2: "https://ltx.run.comfy.app" },
      enabled_drafts: ["ltx2", "wan22_vace"],
    });
    expect(JSON.stringify(body)).not.toContain("env-key-1");
    expect(body.from_env).toEqual({
      local_url: "STUDIO_LOCAL_URL",
      engine_url: "STUDIO_ENGINE_URL",
      cloud_url: "STUDIO_CLOUD_URL",
      api_key: "STUDIO_API_KEY",
      paid_limit: "STUDIO_PAID_LIMIT",
      local_via: "STUDIO_LOCAL_VIA",
      path: "STUDIO_ENGINE_PATH",
      deployments: "STUDIO_DEPLOYMENTS",
      enabled_drafts: "STUDIO_ENABLED_DRAFTS",
    });
    // The PUT still went to the file; it takes effect once the variable is gone.
    expect(await stored()).toEqual({ local_url: "http://127.0.0.1:1234", paid_limit: 1 });
    // Code that reads settings sees the environment's value too.
    expect((await readSettings(env.services)).paid_limit).toBe(12);
  });

  it("takes COMFY_API_KEY when STUDIO_API_KEY is not set, and prefers STUDIO_API_KEY", async () => {
    await setup({ COMFY_API_KEY: "comfy-key" });
    let body = (await get()).body;
    expect(body.settings.api_key).toBe("set");
    expect(body.from_env).toEqual({ api_key: "COMFY_API_KEY" });
    await env.cleanup();
    await setup({ COMFY_API_KEY: "comfy-key", STUDIO_API_KEY: "studio-key" });
    body = (await get()).body;
    expect(body.from_env).toEqual({ api_key: "STUDIO_API_KEY" });
  });

  it("takes HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, over the file's hf_token, never showing it", async () => {
    await setup({ HUGGING_FACE_HUB_TOKEN: "hf_hub_env" });
    await put({ hf_token: "hf_file" });
    let body = (await get()).body;
    expect(body.settings.hf_token).toBe("set");
    expect(body.from_env).toEqual({ hf_token: "HUGGING_FACE_HUB_TOKEN" });
    expect(await hfToken(env.services)).toBe("hf_hub_env");
    // The PUT went to the file, where it stays for when the variable is gone.
    expect((await stored()).hf_token).toBe("hf_file");
    await env.cleanup();

    await setup({ HF_TOKEN: "hf_env", HUGGING_FACE_HUB_TOKEN: "hf_hub_env" });
    body = (await get()).body;
    expect(body.from_env).toEqual({ hf_token: "HF_TOKEN" });
    expect(JSON.stringify(body)).not.toMatch(/hf_env|hf_hub_env/);
    expect(await hfToken(env.services)).toBe("hf_env");
    await env.cleanup();

    // A blank or unusable variable counts as unset: the file's token is used.
    await setup({ HF_TOKEN: "  ", HUGGING_FACE_HUB_TOKEN: "has space" });
    await put({ hf_token: "hf_file" });
    expect((await get()).body.from_env).toEqual({});
    expect(await hfToken(env.services)).toBe("hf_file");
  });

  it("takes STUDIO_PAID_LIMIT=none as no cap, and ignores blank or unusable values", async () => {
    await setup({
      STUDIO_PAID_LIMIT: "none",
      STUDIO_LOCAL_URL: "",
      STUDIO_CLOUD_URL: "ftp://x",
      STUDIO_LOCAL_VIA: "?",
    });
    await put({ paid_limit: 3, local_url: "http://127.0.0.1:1234" });
    const { body } = await get();
    expect(body.settings).toMatchObject({
      paid_limit: null,
      local_url: "http://127.0.0.1:1234",
      cloud_url: null,
    });
    expect(body.from_env).toEqual({ paid_limit: "STUDIO_PAID_LIMIT" });
  });

  it("makes the config's engine address follow the settings", async () => {
    await setup();
    await put({ engine_url: "http://127.0.0.1:8555" });
    const config = (await (await app.request("/studio/config")).json()) as { engine: string };
    expect(config.engine).toBe("http://127.0.0.1:8555");
  });
});
