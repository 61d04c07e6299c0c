// The references a ComfyUI take read are recorded with the identity of the files the job read: a keyframe or plate
// replaced between queueing and the job's start reads as the new file in the finished take's refs, though ComfyUI
// only ever sees the uploaded copies under their upload names.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { renderJob } from "../workers/jobs/render.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { jobEnded, startTestPool } from "./support/jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = ["= e01  T", "# sq01 kitchen", "## sh010", "dur: 1", "The kettle steams."].join("\n");

let s: Studio;
let store: StudioJobStore;
let double: ComfyDouble;
const pools: WorkerPool[] = [];

async function png(file: string, colour: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .png()
    .toFile(file);
  return createHash("sha1")
    .update(await readFile(file))
    .digest("hex");
}

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  const models = structuredClone(DEFAULT_MODELS);
  const downloads = (shippedRegistry().get("wan22_i2v")?.downloads ?? {}) as Record<
    string,
    { folder: string }
  >;
  for (const [file, d] of Object.entries(downloads)) models[d.folder] = [...(models[d.folder] ?? []), file];
  double = await startComfyDouble({ models, stepMs: 1 });
  s.env.services.engines.lookups.clear();
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
});
afterAll(async () => {
  await s.env.services.engines.close();
  await double.close();
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

describe("references a ComfyUI take read", () => {
  it("record the files the job read, not what was there at queue time", async () => {
    const series = seriesS();
    series.series.target = "wan22_i2v";
    const ep = await s.episode(SCRIPT, { series });
    const first = path.join(ep, "refs", "shots", "sh010", "first.png");
    const queuedHash = await png(first, "#336699");

    const res = await s.call("POST", "/render", { ep });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    const sidecarFile = path.join(ep, "renders_proxy", "sh010", "sh010_t01.json");
    const queued: Any = JSON.parse(await readFile(sidecarFile, "utf8"));
    const ref = (sc: Any) => (sc.refs as Any[]).find((r) => r.slot === "first frame");
    expect(ref(queued)).toMatchObject({ sha1: queuedHash });

    // The keyframe is redrawn before the job starts: the take is made from the new picture.
    const readHash = await png(first, "#993366");
    expect(readHash).not.toBe(queuedHash);
    pools.push(startTestPool(s.env.services, store, { render: renderJob }));
    const job: Any = await jobEnded(store, q.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");

    const done: Any = JSON.parse(await readFile(sidecarFile, "utf8"));
    expect(done.status).toBe("ok");
    // ComfyUI read an upload name; the take names the file it came from.
    expect(path.isAbsolute(done.inputs.first)).toBe(false);
    expect(ref(done)).toMatchObject({ sha1: readHash });
  });
});
