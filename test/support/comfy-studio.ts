// A temp studio whose local backend is the ComfyUI double, worker pools made on demand and stopped after each
// test, a render of a whole episode through POST /studio/render, and small picture helpers: what the reference and
// render tests against ComfyUI share.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { settingsFile } from "../../lib/config/settings.ts";
import type { JobKinds } from "../../lib/jobs/kinds.ts";
import type { JobStore } from "../../lib/jobs/types.ts";
import { shippedRegistry } from "../../lib/targets/registry.ts";
import { renderJob } from "../../workers/jobs/render.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./comfy-double/index.ts";
import { jobEnded, startTestPool } from "./jobs.ts";
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
  return targetModels(shippedRegistry().ids("image"));
}

/** The double's default models plus every file the given targets download (keys starting "_" are notes). */
export function targetModels(ids: string[]): Record<string, string[]> {
  const models: Record<string, string[]> = structuredClone(DEFAULT_MODELS);
  for (const id of ids) {
    const downloads = (shippedRegistry().get(id)?.downloads ?? {}) as Record<string, { folder: string }>;
    for (const [file, d] of Object.entries(downloads)) {
      if (file.startsWith("_")) continue;
      models[d.folder] ??= [];
      if (!models[d.folder].includes(file)) models[d.folder].push(file);
    }
  }
  return models;
}

/** Point the studio's local backend at `double` (settings.json's local_url), forgetting earlier engine lookups. */
export async function pointAtDouble(s: Studio, double: ComfyDouble): Promise<void> {
  s.env.services.engines.lookups.clear();
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
}

/**
 * Registers the hooks; the answer's fields are filled before the first test runs. `nodes` replaces the double's
 * node list (names from its catalogue) when given.
 */
export function useComfyStudio(
  models: Record<string, string[]> = DEFAULT_MODELS,
  opts: { nodes?: string[] } = {},
): ComfyStudio {
  const pools: WorkerPool[] = [];
  const c = {
    pool(kinds: JobKinds) {
      const pool = startTestPool(c.s.env.services, c.store, kinds);
      pools.push(pool);
      return pool;
    },
  } as ComfyStudio;
  beforeAll(async () => {
    c.s = await makeStudio();
    c.store = await c.s.env.services.jobs();
    c.double = await startComfyDouble({ models, stepMs: 1, ...(opts.nodes ? { nodes: opts.nodes } : {}) });
    await pointAtDouble(c.s, c.double);
  });
  afterAll(async () => {
    await c.s.env.services.engines.close();
    await c.double.close();
    await c.store.close();
    await c.s.cleanup();
  });
  afterEach(async () => {
    // Each test starts with an empty, unpaused queue: nothing one test left behind runs in the next.
    for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
    for (const j of (await c.store.list()).jobs) {
      if (j.status === "queued") await c.store.cancel(j.id);
      if (j.status === "running") await c.store.finish(j.id, j.lease_owner ?? "", "failed", "test cleanup");
    }
    await c.store.pause("local", false);
  });
  return c;
}

// biome-ignore lint/suspicious/noExplicitAny: graphs are checked field by field
type Any = any;

/** Two shots in the kitchen (2 s, then 1 s): the episode the render tests put on each target. */
export const TWO_SHOTS = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "dur: 2",
  "The kettle steams.",
  "## sh020",
  "dur: 1",
  "Rain on the window.",
].join("\n");

/** A rendered take's sidecar (renders_proxy/<shot>/<shot>_tNN.json). */
export async function takeSidecar(ep: string, shot: string, take = 1): Promise<Any> {
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  return JSON.parse(await readFile(path.join(ep, "renders_proxy", shot, `${stem}.json`), "utf8"));
}

/** The graphs the double accepted, oldest first. */
export const graphs = (double: ComfyDouble): Record<string, Any>[] =>
  double.prompts
    .filter((p) => p.status === 200)
    .map((p: Any) => (p.body?.prompt ?? {}) as Record<string, Any>);

/** The graph's nodes of class `cls`. */
export const ofClass = (g: Record<string, Any>, cls: string): Any[] =>
  Object.values(g).filter((n: Any) => n.class_type === cls);

/**
 * Run every queued render job on a worker pool, stopped once they have ended; each succeeds and the double refused no
 * graph.
 */
export async function runRenders(c: ComfyStudio, queued: { prompt_id: string }[]): Promise<void> {
  const pool = c.pool({ render: renderJob });
  for (const q of queued) {
    const j = await jobEnded(c.store, q.prompt_id);
    expect(j.status, JSON.stringify(j.error ?? j.log ?? j)).toBe("succeeded");
  }
  await pool.stop({ graceful: false, timeoutMs: 2_000 });
  expect(c.double.prompts.filter((p) => p.status !== 200).map((p) => p.response)).toEqual([]);
}

/**
 * POST /studio/render with `body`, which queues exactly `expected` ([shot, target] pairs) with no error and no skip,
 * then run them all (see runRenders). Answers the render's answer.
 */
export async function renderQueued(
  c: ComfyStudio,
  body: Record<string, unknown>,
  expected: [string, string][],
): Promise<Any> {
  const res = await c.s.call("POST", "/render", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors).toEqual([]);
  expect(res.body.skipped, JSON.stringify(res.body.skipped)).toEqual([]);
  expect(res.body.queued.map((q: Any) => [q.shot, q.target])).toEqual(expected);
  await runRenders(c, res.body.queued);
  return res.body;
}

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
