// A temp studio whose local backend is the ComfyUI double, worker pools made on demand and stopped after each
// test, and small picture helpers: what the reference tests against ComfyUI (edits, panoramas, frames, tours,
// voices) share.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { settingsFile } from "../../lib/config/settings.ts";
import type { JobKinds } from "../../lib/jobs/kinds.ts";
import type { JobStore } from "../../lib/jobs/types.ts";
import { shippedRegistry } from "../../lib/targets/registry.ts";
import { WorkerPool } from "../../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./comfy-double/index.ts";
import { jobEnded } from "./jobs.ts";
import { makeStudio, SCRIPT, type Studio } from "./studio-episode.ts";

export { jobEnded };

export interface ComfyStudio {
  s: Studio;
  store: JobStore;
  double: ComfyDouble;
  /** A started worker pool running `kinds`; stopped after the test. */
  pool(kinds: JobKinds): WorkerPool;
}

/** The double's default models plus every file a shipped image target downloads. */
export function shippedImageModels(): Record<string, string[]> {
  const registry = shippedRegistry();
  const models: Record<string, string[]> = structuredClone(DEFAULT_MODELS);
  for (const id of registry.ids("image")) {
    const downloads = (registry.get(id)?.downloads ?? {}) as Record<string, { folder: string }>;
    for (const [file, d] of Object.entries(downloads)) {
      models[d.folder] ??= [];
      if (!models[d.folder].includes(file)) models[d.folder].push(file);
    }
  }
  return models;
}

/** Registers the hooks; the answer's fields are filled before the first test runs. */
export function useComfyStudio(models: Record<string, string[]> = DEFAULT_MODELS): ComfyStudio {
  const pools: WorkerPool[] = [];
  const c = {
    pool(kinds: JobKinds) {
      const services = c.s.env.services;
      const pool = new WorkerPool({
        services,
        store: c.store,
        kinds,
        emit: (kind, data) => services.events.emit(kind, data),
        pollMs: 20,
        leaseMs: 5_000,
      });
      pools.push(pool);
      pool.start();
      return pool;
    },
  } as ComfyStudio;
  beforeAll(async () => {
    c.s = await makeStudio();
    c.store = await c.s.env.services.jobs();
    c.double = await startComfyDouble({ models, stepMs: 1 });
    c.s.env.services.engines.lookups.clear();
    const file = settingsFile(c.s.env.services);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ local_url: c.double.url }));
  });
  afterAll(async () => {
    await c.s.env.services.engines.close();
    await c.double.close();
    await c.store.close();
    await c.s.cleanup();
  });
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
    for (const j of (await c.store.list()).jobs) if (j.status === "queued") await c.store.cancel(j.id);
  });
  return c;
}

// biome-ignore lint/suspicious/noExplicitAny: graphs are checked field by field
type Any = any;

/** Run one queued ref job (`kinds` given) to success and answer the graph the double accepted for it. */
export async function runJobGraph(
  c: ComfyStudio,
  kinds: JobKinds,
  job: string,
): Promise<Record<string, Any>> {
  const before = c.double.prompts.length;
  c.pool(kinds);
  const j = await jobEnded(c.store, job);
  expect(j.status, JSON.stringify(j.error ?? j.log)).toBe("succeeded");
  const sent = c.double.prompts.slice(before).filter((p) => p.status === 200);
  expect(sent).toHaveLength(1);
  return (sent[0].body as Any).prompt;
}

export async function png(file: string, width: number, height: number, colour: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toFile(file);
}

/** A four-panel sheet, one colour per panel (three-quarter red-ish, side green, back blue, face yellow). */
export async function sheet(file: string): Promise<void> {
  const colours = ["#c03030", "#30c030", "#3030c0", "#c0c030"];
  const panels = await Promise.all(
    colours.map((colour) =>
      sharp({ create: { width: 256, height: 512, channels: 3, background: colour } })
        .png()
        .toBuffer(),
    ),
  );
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({ create: { width: 1024, height: 512, channels: 3, background: "#000000" } })
    .composite(panels.map((input, i) => ({ input, left: i * 256, top: 0 })))
    .png()
    .toFile(file);
}

/** The images the graph's LoadImage nodes read, in title order ("Reference 1", "Reference 2", ...). */
export const loads = (graph: Record<string, Any>) =>
  Object.values(graph)
    .filter((n) => n.class_type === "LoadImage")
    .sort((a, b) => String(a._meta?.title).localeCompare(String(b._meta?.title)))
    .map((n) => n.inputs.image as string);

export const sizeOf = async (file: string) => {
  const m = await sharp(file).metadata();
  return [m.width, m.height];
};

/** The starter episode with a red kitchen plate (1000×600), a blue street plate and Ada's four-panel sheet live. */
export async function pictureEpisode(s: Studio): Promise<string> {
  const ep = await s.episode(SCRIPT);
  await png(path.join(ep, "refs/_bg/kitchen.png"), 1000, 600, "#d02020");
  await png(path.join(ep, "refs/_bg/street.png"), 1344, 768, "#2020d0");
  await sheet(path.join(ep, "refs/ada/ada_sheet_4panel.png"));
  return ep;
}

export async function refSidecar(ep: string, key: string, stem: string): Promise<Any> {
  return JSON.parse(await readFile(path.join(ep, "refs/_takes", key, `${stem}.json`), "utf8"));
}
