// The features routes end to end against a download server on loopback standing in for Hugging Face (HF_ENDPOINT):
// the listing and its place, an install job (redirect, token only to the mirror's host, SHA-256 from x-linked-etag,
// atomic rename), resume from a kept partial file, cancel, a checksum mismatch, uninstallable items, sizes.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { createApp } from "../runtime/app.ts";
import { jobKinds } from "../workers/jobs/index.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { jobEnded, startTestPool, waitFor } from "./support/jobs.ts";

const TOKEN = "hf_test_token_0123456789";
const DUR = "ltx-2.5-duration-head-bf16.safetensors";
const DUR_PATH = `/Lightricks/LTX-2.5/resolve/main/model_patches/${DUR}`;
const DUR_URL = `https://huggingface.co${DUR_PATH}`;
const UPS = "ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors";
const UPS_PATH = `/Lightricks/LTX-2.5/resolve/main/latent_upscale_models/${UPS}`;

const durBytes = Buffer.alloc(300_000);
for (let i = 0; i < durBytes.length; i++) durBytes[i] = (i * 7 + 3) % 251;
const upsBytes = Buffer.from("not the file the checksum names");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

interface Seen {
  method: string;
  host: string;
  path: string;
  range?: string;
  auth?: string;
}
const seen: Seen[] = [];
let slow = false;
let server: Server;
let port: number;

function serveBytes(req: IncomingMessage, res: ServerResponse, bytes: Buffer): void {
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const start = m ? Number(m[1]) : 0;
  if (start >= bytes.length && m) {
    res.writeHead(416, { "content-range": `bytes */${bytes.length}` }).end();
    return;
  }
  const body = bytes.subarray(start);
  res.writeHead(m ? 206 : 200, {
    "content-length": String(body.length),
    "accept-ranges": "bytes",
    ...(m ? { "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
  });
  if (req.method === "HEAD") return void res.end();
  if (!slow) return void res.end(body);
  // A trickle, so a cancel lands in the middle of the file.
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= body.length) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(body.subarray(at, at + 2000));
    at += 2000;
  }, 20);
  res.on("close", () => clearInterval(timer));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    seen.push({
      method: req.method ?? "",
      host: req.headers.host ?? "",
      path: url,
      ...(req.headers.range ? { range: req.headers.range } : {}),
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
    });
    if (url === DUR_PATH) {
      // As Hugging Face does: a redirect to another host carrying the file's SHA-256 and size.
      res
        .writeHead(302, {
          location: `http://localhost:${port}/cdn/dur`,
          "x-linked-etag": `"${sha(durBytes)}"`,
          "x-linked-size": String(durBytes.length),
        })
        .end();
      return;
    }
    if (url === UPS_PATH) {
      res.writeHead(302, { location: "/cdn/ups", "x-linked-etag": `"${"0".repeat(64)}"` }).end();
      return;
    }
    if (url === "/cdn/dur") return serveBytes(req, res, durBytes);
    if (url === "/cdn/ups") return serveBytes(req, res, upsBytes);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let pool: WorkerPool | null = null;
let comfy: string;

async function setup(withPlace = true): Promise<void> {
  env = await makeTestEnv();
  comfy = path.join(env.dir, "ComfyUI");
  await mkdir(comfy, { recursive: true });
  Object.assign(env.services.env, {
    HF_ENDPOINT: `http://127.0.0.1:${port}`,
    HF_TOKEN: TOKEN,
    STUDIO_LOCAL_URL: "http://127.0.0.1:9",
    ...(withPlace ? { COMFYUI_PATH: comfy } : {}),
  });
  app = createApp(env.services, functions);
  seen.length = 0;
  slow = false;
}
afterEach(async () => {
  await pool?.stop();
  pool = null;
  await env?.cleanup();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Answer = { status: number; body: any; text: string };

async function call(method: string, route: string, body?: unknown): Promise<Answer> {
  const res = await app.request(`http://127.0.0.1:8190/studio${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

async function runPool() {
  pool = startTestPool(env.services, await env.services.jobs(), jobKinds);
}

const modelsDir = (folder: string) => path.join(comfy, "models", folder);

describe("features", () => {
  it("lists the targets' files, where they go and whether a token is held, never the token", async () => {
    await setup();
    const got = await call("GET", "/features");
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(TOKEN);
    expect(got.body.hf_token).toBe(true);
    expect(got.body.place).toEqual({ root: comfy, custom_nodes: null, python: null, why_not: null });
    expect(got.body.groups.map((g: { id: string }) => g.id)).toEqual(["video", "image", "audio"]);
    const ltx = got.body.features.find((f: { id: string }) => f.id === "ltx2");
    expect(ltx.group).toBe("video");
    const dur = ltx.items.find((i: { name: string }) => i.name === DUR);
    expect(dur).toMatchObject({
      kind: "model",
      folder: "model_patches",
      url: DUR_URL,
      tier: "optional",
      status: "missing",
    });
    expect(ltx.status).toBe("missing");
    expect(got.body.features.some((f: { id: string }) => f.id === "animatic")).toBe(false);
    const h3 = got.body.features.find((f: { id: string }) => f.id === "minimax_h3_ref2va");
    const packs = h3.items.filter((i: { kind: string }) => i.kind === "pack");
    expect(packs.map((i: { name: string }) => i.name)).toEqual(["h3pipe", "comfyui-obvpm-timeline"]);
    const pack = packs[1];
    expect(pack).toMatchObject({ name: "comfyui-obvpm-timeline", status: "missing" });
    expect(pack.note).toMatch(/ComfyUI-Manager/);
    // The project's own pack is not shipped here: its note says so instead of pointing at ComfyUI-Manager.
    expect(packs[0]).toMatchObject({ name: "h3pipe", tier: "optional" });
    expect(packs[0].note).toMatch(/project's own node pack and is not shipped here/);
    expect(packs[0].note).not.toMatch(/ComfyUI-Manager/);
    expect(got.body.job).toMatchObject({ running: false, restart: false, tasks: [] });
  });

  it("has nowhere to install without the engine's folder: 409 with place.why_not", async () => {
    await setup(false);
    const listed = await call("GET", "/features");
    expect(listed.body.place.root).toBeNull();
    expect(listed.body.place.why_not).toMatch(/no place to install files/);
    const ltx = listed.body.features.find((f: { id: string }) => f.id === "ltx2");
    expect(ltx.items.every((i: { status: string }) => i.status === "unknown")).toBe(true);
    const got = await call("POST", "/features/install", { files: [DUR] });
    expect(got.status).toBe(409);
    expect(got.body.error).toMatch(/no place to install files/);
    expect(got.body.place.why_not).toBe(got.body.error);
  });

  it("installs a file: redirect followed, token only to the mirror, SHA-256 checked, renamed into place", async () => {
    await setup();
    const got = await call("POST", "/features/install", { files: [DUR, DUR] });
    expect(got.status, got.text).toBe(200);
    expect(got.body.queued).toEqual([`model:model_patches/${DUR}`]);
    await runPool();
    const job = await jobEnded(await env.services.jobs(), got.body.job);
    expect(job.status, job.error ?? "").toBe("succeeded");
    expect(await readFile(path.join(modelsDir("model_patches"), DUR))).toEqual(durBytes);
    expect(await readdir(modelsDir("model_patches"))).toEqual([DUR]);
    // The token went to the mirror's host and not to the host it redirected to.
    expect(seen.find((s) => s.path === DUR_PATH)?.auth).toBe(`Bearer ${TOKEN}`);
    expect(seen.find((s) => s.path === "/cdn/dur")?.auth).toBeUndefined();
    expect(seen.find((s) => s.path === "/cdn/dur")?.host).toBe(`localhost:${port}`);
    const listed = await call("GET", "/features");
    expect(listed.body.job.tasks).toEqual([
      expect.objectContaining({ name: DUR, status: "done", bytes: durBytes.length, note: "SHA-256 checked" }),
    ]);
    const ltx = listed.body.features.find((f: { id: string }) => f.id === "ltx2");
    expect(ltx.items.find((i: { name: string }) => i.name === DUR).status).toBe("installed");
    expect(ltx.status).toBe("partial");
    const events = env.events.filter((e) => e.type === "studio.features");
    expect(events.at(-1)?.data).toMatchObject({ job: got.body.job, task: { name: DUR, status: "done" } });
    expect(JSON.stringify(job)).not.toContain(TOKEN);
    // Installed now: left out.
    const again = await call("POST", "/features/install", { files: [DUR] });
    expect(again.body).toEqual({ job: null, queued: [], skipped: [] });
  });

  it("resumes a kept partial download with a Range request", async () => {
    await setup();
    const dir = modelsDir("model_patches");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `.${DUR}.part`), durBytes.subarray(0, 120_000));
    const got = await call("POST", "/features/install", { files: [DUR] });
    await runPool();
    const job = await jobEnded(await env.services.jobs(), got.body.job);
    expect(job.status, job.error ?? "").toBe("succeeded");
    expect(seen.find((s) => s.path === "/cdn/dur")?.range).toBe("bytes=120000-");
    expect(await readFile(path.join(dir, DUR))).toEqual(durBytes);
    expect(await readdir(dir)).toEqual([DUR]);
    const listed = await call("GET", "/features");
    expect(listed.body.job.tasks[0].note).toBe("resumed from 120000 bytes; SHA-256 checked");
  });

  it("cancel stops the download under way, keeps the partial file, and the next install resumes it", async () => {
    await setup();
    slow = true;
    const got = await call("POST", "/features/install", { files: [DUR, UPS] });
    expect(got.body.queued).toHaveLength(2);
    await runPool();
    const part = path.join(modelsDir("model_patches"), `.${DUR}.part`);
    await waitFor(async () => ((await readFile(part).catch(() => Buffer.alloc(0))).length ?? 0) > 10_000);
    const canceled = await call("POST", "/features/cancel");
    expect(canceled.status).toBe(200);
    expect(canceled.body.canceled).toEqual([got.body.job]);
    const job = await jobEnded(await env.services.jobs(), got.body.job);
    expect(job.status).toBe("canceled");
    const kept = (await readFile(part)).length;
    expect(kept).toBeGreaterThan(10_000);
    expect(kept).toBeLessThan(durBytes.length);
    expect(await readdir(modelsDir("model_patches"))).toEqual([`.${DUR}.part`]);
    const listed = await call("GET", "/features");
    expect(listed.body.job.running).toBe(false);
    expect(listed.body.job.tasks.map((t: { status: string }) => t.status)).toEqual(["canceled", "canceled"]);
    expect(listed.body.job.tasks[0].note).toMatch(/partial download kept .*resumes/);
    // The second file never started.
    expect(seen.some((s) => s.path === UPS_PATH)).toBe(false);

    slow = false;
    seen.length = 0;
    const again = await call("POST", "/features/install", { files: [DUR] });
    const done = await jobEnded(await env.services.jobs(), again.body.job);
    expect(done.status, done.error ?? "").toBe("succeeded");
    expect(seen.find((s) => s.path === "/cdn/dur")?.range).toMatch(/^bytes=\d+-$/);
    expect(await readFile(path.join(modelsDir("model_patches"), DUR))).toEqual(durBytes);
  });

  it("a checksum mismatch fails the file and leaves no file behind", async () => {
    await setup();
    const got = await call("POST", "/features/install", { files: [UPS] });
    await runPool();
    const job = await jobEnded(await env.services.jobs(), got.body.job);
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(new RegExp(`1 of 1 files failed: ${UPS.replace(/\./g, "\\.")}`));
    expect(await readdir(modelsDir("latent_upscale_models"))).toEqual([]);
    const listed = await call("GET", "/features");
    expect(listed.body.job.tasks[0]).toMatchObject({ status: "failed", note: null });
    expect(listed.body.job.tasks[0].error).toMatch(/checksum mismatch.*removed/);
  });

  it("says why it leaves items out: packs, files with no recorded address, unknown names and features", async () => {
    await setup();
    const got = await call("POST", "/features/install", {
      classes: ["H3ContextWindows", "KSampler"],
      files: ["minimax_h3_ref2v_turbo_8step_v1.0_768p_comfyui_bf16.safetensors", "../../etc/passwd"],
      features: ["no_such_feature"],
    });
    expect(got.status, got.text).toBe(200);
    expect(got.body.job).toBeNull();
    expect(got.body.queued).toEqual([]);
    expect(got.body.skipped).toEqual([
      "no_such_feature: no such feature",
      "../../etc/passwd: not a file any shipped target names",
      "KSampler: no node pack known for this class (core nodes come with updating ComfyUI)",
      expect.stringMatching(/^minimax_h3_ref2v_turbo_8step.*: no trustworthy download address is recorded/),
      expect.stringMatching(/^comfyui-obvpm-timeline: node packs are installed with git and pip/),
    ]);
    for (const bad of [{ files: "x" }, { files: [""] }, { other: 1 }, []]) {
      const r = await call("POST", "/features/install", bad);
      expect(r.status, r.text).toBe(400);
    }
  });

  it("sizes: each recorded address asked once, through the mirror", async () => {
    await setup();
    const got = await call("GET", "/features/sizes");
    expect(got.status).toBe(200);
    expect(got.body.sizes[DUR_URL]).toBe(durBytes.length);
    expect(
      Object.values(got.body.sizes)
        .filter((v) => v !== null)
        .sort(),
    ).toEqual([durBytes.length, upsBytes.length].sort());
    expect(Object.keys(got.body.sizes).every((u) => u.startsWith("https://huggingface.co/"))).toBe(true);
    const asked = seen.length;
    expect(seen.every((s) => s.method === "HEAD")).toBe(true);
    await call("GET", "/features/sizes");
    expect(seen.length).toBe(asked);
  });
});
