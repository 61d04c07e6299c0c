// A voice candidate on `ltx2_voice` for real, through the ComfyUI double (the real protocol): PUT /studio/refs/
// defaults sets the episode's voice target, POST /studio/refs/generate-missing queues Ada's voice on it (lane local),
// a WorkerPool runs the `ref` job on the ComfyUI engine, and the candidate ends `ok` as a WAV beside its sidecar,
// the graph ComfyUI got carrying the voice's brief.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { seriesS } from "./support/series-s.ts";
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
    kinds: { ref: refJob },
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

describe("generate-missing with voice_target ltx2_voice", () => {
  it("queues the voice on ltx2_voice and it finishes ok as a WAV from ComfyUI", async () => {
    // Cloned voices and a shot on H3 where Ada speaks: that shot reads her voice sample, so it is missing.
    const series = seriesS();
    series.refs = { target: "card", keyframe_target: "card" };
    series.audio = { mode: "clone" };
    const script = SCRIPT.replace("who: ada", "who: ada\ntarget: minimax_h3_ref2va\nADA: Hi there.");
    const ep = await s.episode(script, { series });
    const set = await s.call("PUT", "/refs/defaults", { ep, voice_target: "ltx2_voice" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const res = await s.call("POST", "/refs/generate-missing", { ep, kinds: ["series"], pass: "final" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const voice = res.body.queued.find((q: Any) => q.ref === "voice:ada");
    expect(voice, JSON.stringify(res.body.queued)).toMatchObject({ target: "ltx2_voice" });
    // Only the voice runs here: the pictures would go to the built-in lane, which no worker serves in this test.
    expect((await store.get(voice.prompt_id))?.lane).toBe("local");
    const job = await ended(voice.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");

    const dir = path.join(ep, "refs/_takes/voice__ada");
    const sc: Any = JSON.parse(await readFile(path.join(dir, "voice__ada_t01.json"), "utf8"));
    expect(sc).toMatchObject({
      status: "ok",
      target: "ltx2_voice",
      backend: "local",
      audio: "voice__ada_t01.wav",
    });
    const wav = await readFile(path.join(dir, "voice__ada_t01.wav"));
    expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(wav.subarray(8, 12).toString("latin1")).toBe("WAVE");
    expect((await stat(path.join(dir, "voice__ada_t01.wav"))).size).toBeGreaterThan(44);
    const last: Any = double.prompts.at(-1);
    const texts = Object.values(last.body.prompt).map((n: Any) => n.inputs?.text);
    expect(texts).toContain(sc.prompt);
    await afterAnswerSettled(s.env.services, ep);
  });
});
