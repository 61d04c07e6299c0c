// Camera tours on a ComfyUI video target for real: POST /studio/refs/tour with `target: ltx2` against the ComfyUI
// double (the real protocol), a job store and a WorkerPool running the `tour` job; the plate uploaded and loaded as
// the graph's first frame, the move as the prompt, the length on ltx2's frame grid, the returned video kept as the
// tour's and its held moments cut as takes; the sidecar names the target and backend.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { tourJob } from "../workers/jobs/tour.ts";
import { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
let pool: WorkerPool;
let double: ComfyDouble;

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  double = await startComfyDouble({ models: DEFAULT_MODELS, stepMs: 1 });
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
  const services = s.env.services;
  pool = new WorkerPool({
    services,
    store,
    kinds: { tour: tourJob },
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    leaseMs: 5_000,
  });
  pool.start();
});
afterAll(async () => {
  await pool.stop({ graceful: false, timeoutMs: 5_000 });
  await s.env.services.engines.close();
  await double.close();
  await store.close();
  await s.cleanup();
});

async function ended(id: string, ms = 60_000): Promise<Any> {
  const stop = Date.now() + ms;
  for (;;) {
    const job = await store.get(id);
    if (job && ["succeeded", "failed", "canceled"].includes(job.status)) return job;
    if (Date.now() > stop) throw new Error(`job ${id} did not end: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("POST /studio/refs/tour on a ComfyUI video target", () => {
  it("renders the move on ltx2 from the plate as the first frame, keeps the video and cuts its holds", async () => {
    const ep = await s.episode(SCRIPT);
    const ffmpeg = (await mediaTools(s.env.services.media)).ffmpeg;
    const src = path.join(ep, "_in", "plate.png");
    await mkdir(path.dirname(src), { recursive: true });
    await execa(ffmpeg, [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=s=320x180:d=1",
      "-frames:v",
      "1",
      src,
    ]);
    const imported = await s.call("POST", "/refs/import", {
      ep,
      ref: "location:kitchen",
      source_path: "_in/plate.png",
      pick: true,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);

    const res = await s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "pan_left",
      seconds: 2,
      seed: "77",
      target: "ltx2",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [q] = res.body.queued;
    expect((await store.get(q.backend_prompt_id))?.lane).toBe("local");
    const job = await ended(q.backend_prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");

    const dir = path.join(ep, "refs/_takes/location__kitchen/_tours");
    const sc: Any = JSON.parse(await readFile(path.join(dir, "tour_t01.json"), "utf8"));
    expect(sc).toMatchObject({
      status: "ok",
      target: "ltx2",
      backend: "local",
      video: "tour_t01.mp4",
      seed: "77",
    });
    expect(sc.prompt).toMatch(/^the camera makes a slow pan to the left through .+, no people$/);
    expect(sc.holds.length).toBeGreaterThanOrEqual(1);
    expect((await stat(path.join(dir, "tour_t01.mp4"))).size).toBeGreaterThan(0);
    expect(
      (await stat(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_tour_t01.png"))).size,
    ).toBeGreaterThan(0);

    // The graph ComfyUI got: the plate uploaded and loaded, the prompt and 2 s on ltx2's grid (8n+1).
    expect(double.uploads.length).toBeGreaterThanOrEqual(1);
    const last: Any = double.prompts.at(-1);
    const graph: Any = last.body.prompt;
    const nodes: Any[] = Object.values(graph);
    const uploaded = double.uploads.map((u) => u.name.split("/").pop());
    const loaded = nodes.map((n) => n.inputs?.image).filter((v) => typeof v === "string");
    expect(loaded.some((v: string) => uploaded.includes(v.split("/").pop()))).toBe(true);
    expect(JSON.stringify(graph)).toContain(sc.prompt);
    const lengths = nodes.map((n) => n.inputs?.length).filter((v) => typeof v === "number");
    expect(lengths).toContain(49);
    await afterAnswerSettled(s.env.services, ep);
  });
});
