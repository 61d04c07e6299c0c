// POST /studio/refs/generate-missing for real: a built episode on the built-in engine, a real job store and worker
// pool. A dry run writes and emits nothing; a run queues one candidate per missing reference (a character's four
// views as one request, a voice on the voice target), cuts a continuity first frame from a real video take and
// imports a script path (both picked), in the contract's event order; a second run skips what is under way;
// every candidate ends ok with a card naming its reference (the ref job's `EngineJob.ref`); refusals are 4xx.
import { access, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Engine, JobRef } from "../lib/engines/types.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { WorkerPool } from "../workers/pool.ts";
import { scriptedEngines } from "./support/ctx.ts";
import { waitFor } from "./support/jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const s = useStudio();
let store: JobStore;
let ffmpeg = "ffmpeg";
const pools: WorkerPool[] = [];
let lastEp: string | null = null;

beforeAll(async () => {
  store = await s.env.services.jobs();
  ffmpeg = (await mediaTools(s.env.services.media)).ffmpeg;
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
  for (const j of (await store.list()).jobs) if (j.status === "queued") await store.cancel(j.id);
  if (lastEp) await afterAnswerSettled(s.env.services, lastEp);
  lastEp = null;
});
afterAll(async () => {
  await s.env.services.engines.close();
});

/** Series S on the built-in card, cloning voices (so a shot on H3 reads Ada's voice sample). */
function cardSeries() {
  const series = seriesS();
  series.refs = { target: "card", keyframe_target: "card" };
  series.audio = { mode: "clone" };
  return series;
}

/** sh010 on H3 with Ada speaking; sh020 opens on the last frame of sh010; sh030 opens on a picture the script names. */
const KEYFRAME_SCRIPT = SCRIPT.replace("who: ada", "who: ada\ntarget: minimax_h3_ref2va\nADA: Hi there.")
  .replace("## sh020", "## sh020\nfirst: continuity")
  .replace("## sh030", "## sh030\nfirst: stills/open.png");

async function episode(script = SCRIPT): Promise<string> {
  const ep = await s.episode(script, { series: cardSeries() });
  lastEp = ep;
  s.env.events.length = 0;
  return ep;
}

/** A real 12-frame video take of `shot` in the proxy pass. */
async function videoTake(ep: string, shot: string): Promise<void> {
  const stem = await s.take(ep, "proxy", shot, 1, { frames: 12, sidecar: { width: 64, height: 48 } });
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "color=gray:s=64x48:r=24:d=0.5"],
    ...["-frames:v", "12", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4"],
    path.join(ep, "renders_proxy", shot, `${stem}.mp4`),
  ]);
}

const events = () =>
  s.env.events.map((e) => {
    const d = e.data as Any;
    return e.type === "studio.ref" ? `${d.ref}${d.view ? ` ${d.view}` : ""}:${d.status}` : e.type;
  });
const missing = (body: Record<string, unknown>) => s.call("POST", "/refs/generate-missing", body);
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

function startPool(engine?: (backend: string) => Engine): void {
  const services = s.env.services;
  const pool = new WorkerPool({
    services: engine ? { ...services, engines: scriptedEngines(engine) } : services,
    store,
    kinds: { ref: refJob },
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    leaseMs: 5_000,
  });
  pools.push(pool);
  pool.start();
}

describe("POST /studio/refs/generate-missing", () => {
  it("dry run: answers what would be queued, with no take or job, writing and emitting nothing", async () => {
    const ep = await episode();
    const res = await missing({ ep, dry_run: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = res.body.queued.map((q: Any) => `${q.ref}${q.view ? ` ${q.view}` : ""}`);
    expect(rows).toEqual([
      "subject:ada 01_threequarter",
      "subject:ada 02_side",
      "subject:ada 03_back",
      "subject:ada 04_face",
      "subject:bo 01_threequarter",
      "subject:bo 02_side",
      "subject:bo 03_back",
      "subject:bo 04_face",
      "location:kitchen",
      "shot:sh010:first",
      "shot:sh020:first",
      "shot:sh030:first",
    ]);
    for (const q of res.body.queued) {
      expect(q).toMatchObject({ take: null, prompt_id: null, target: "card", method: "generate" });
      expect(q.seed).toMatch(/^\d+$/);
    }
    // The four views of one request share a seed.
    expect(new Set(res.body.queued.slice(0, 4).map((q: Any) => q.seed)).size).toBe(1);
    expect(res.body).toMatchObject({ picked: [], errors: [] });
    expect(s.env.events).toEqual([]);
    expect(await exists(path.join(ep, "refs", "_takes"))).toBe(false);
    expect((await store.list()).jobs.filter((j) => (j.info as Any)?.ep === ep)).toEqual([]);
  });

  it("queues each missing reference once, in the contract's event order; a second run skips what is under way", async () => {
    const ep = await episode();
    const res = await missing({ ep, kinds: ["series"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued).toHaveLength(9);
    for (const q of res.body.queued) {
      expect(q.take).toBe(1);
      expect(q.prompt_id).toMatch(/^j_/);
      expect((await store.get(q.prompt_id))?.status).toBe("queued");
    }
    const sidecar = JSON.parse(
      await readFile(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_t01.json"), "utf8"),
    );
    expect(sidecar).toMatchObject({
      status: "queued",
      source: "generated",
      target: "card",
      image: "location__kitchen_t01.png",
    });
    expect(events()).toEqual([
      ...res.body.queued.map((q: Any) => `${q.ref}${q.view ? ` ${q.view}` : ""}:queued`),
      "studio.episode",
    ]);

    s.env.events.length = 0;
    const again = await missing({ ep, kinds: ["series"] });
    expect(again.body.queued).toEqual([]);
    expect(again.body.skipped).toContainEqual({ ref: "location:kitchen", reason: "t01 is queued" });
    expect(again.body.skipped).toContainEqual({
      ref: "subject:ada",
      view: "02_side",
      reason: "t01 is queued",
    });
    expect(s.env.events).toEqual([]);
  });

  it("cuts the continuity frame and imports the script's picture (both picked), queues the rest, voice included", async () => {
    const ep = await episode(KEYFRAME_SCRIPT);
    await mkdir(path.join(ep, "stills"), { recursive: true });
    await sharp({ create: { width: 64, height: 36, channels: 3, background: "#446" } })
      .png()
      .toFile(path.join(ep, "stills/open.png"));
    await videoTake(ep, "sh010");
    s.env.events.length = 0;

    const res = await missing({ ep });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.picked).toEqual([
      { ref: "shot:sh020:first", take: 1, method: "continuity" },
      { ref: "shot:sh030:first", take: 1, method: "import" },
    ]);
    const voice = res.body.queued.find((q: Any) => q.ref === "voice:ada");
    expect(voice).toMatchObject({ view: null, take: 1, target: "speech", method: "generate" });
    const voiceSidecar = JSON.parse(
      await readFile(path.join(ep, "refs/_takes/voice__ada/voice__ada_t01.json"), "utf8"),
    );
    expect(voiceSidecar).toMatchObject({ audio: "voice__ada_t01.wav", target: "speech", status: "queued" });
    expect(voiceSidecar).not.toHaveProperty("image");
    expect(await exists(path.join(ep, "refs/shots/sh020/first.png"))).toBe(true);
    expect(await exists(path.join(ep, "refs/shots/sh030/first.png"))).toBe(true);
    // sh010 is on H3, which reads no keyframe: its first frame is not needed.
    expect(res.body.queued.map((q: Any) => q.ref)).not.toContain("shot:sh010:first");
    expect(events()).toEqual([
      ...res.body.queued.map((q: Any) => `${q.ref}${q.view ? ` ${q.view}` : ""}:queued`),
      "shot:sh020:first:ok",
      "shot:sh020:first:picked",
      "shot:sh030:first:ok",
      "shot:sh030:first:picked",
      "studio.episode",
    ]);
    const again = await missing({ ep, kinds: ["keyframe"], dry_run: true });
    expect(again.body.skipped).toContainEqual({ ref: "shot:sh020:first", reason: "its live file is there" });
  });

  it("puts a continuity cut that cannot be made (no media tools) in errors", async () => {
    const ep = await episode(KEYFRAME_SCRIPT.replace("first: stills/open.png", ""));
    await videoTake(ep, "sh010");
    const saved = { ...s.env.services.env };
    Object.assign(s.env.services.env, { FFMPEG_PATH: path.join(s.root, "no-ffmpeg"), PATH: "" });
    let res: Any;
    try {
      res = await missing({ ep, kinds: ["keyframe"] });
    } finally {
      for (const k of ["FFMPEG_PATH", "PATH"]) s.env.services.env[k] = saved[k];
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([
      {
        ref: "shot:sh020:first",
        view: null,
        error: expect.stringMatching(/^continuity frame: .*no media tools/),
      },
    ]);
    expect(res.body.picked).toEqual([]);
  });

  it("makes every candidate ok on the built-in engine, each job naming its reference for the card and the voice", async () => {
    const ep = await episode(KEYFRAME_SCRIPT.replace("first: stills/open.png", ""));
    const seen: JobRef[] = [];
    const real = s.env.services.engines.get("builtin");
    startPool(() => ({
      ...real,
      prepare(job, hooks) {
        if (job.ref) seen.push(job.ref);
        return real.prepare(job, hooks);
      },
    }));
    const res = await missing({ ep, kinds: ["series"], pass: "final" });
    expect(res.body.errors).toEqual([]);
    for (const q of res.body.queued) {
      await waitFor(async () =>
        ["succeeded", "failed"].includes((await store.get(q.prompt_id))?.status ?? ""),
      );
      expect((await store.get(q.prompt_id))?.status, q.ref).toBe("succeeded");
    }
    expect(seen).toContainEqual({
      id: "subject:ada",
      name: "Ada",
      kind: "character",
      view: "02_side",
      description: "a tall woman in a green raincoat",
      look: "a flat 2D cartoon",
    });
    expect(seen).toContainEqual(
      expect.objectContaining({
        id: "location:kitchen",
        view: "plate",
        description: "a cramped kitchen at night",
      }),
    );
    const voice = seen.find((r) => r.id === "voice:ada");
    expect(voice?.description).toMatch(/^dry\. a tall woman in a green raincoat/);
    const wav = JSON.parse(
      await readFile(path.join(ep, "refs/_takes/voice__ada/voice__ada_t01.json"), "utf8"),
    );
    expect(wav).toMatchObject({ status: "ok", audio: "voice__ada_t01.wav" });
  });

  it("refuses what the contract refuses", async () => {
    const ep = await episode();
    refusal(await missing({ ep, kinds: ["nope"] }), 400, /kinds/);
    refusal(await missing({ ep, kinds: "series" }), 400, /kinds/);
    refusal(await missing({ ep, dry_run: "yes" }), 400, /dry_run/);
    refusal(await missing({ ep, target: "speech" }), 400, /target: speech makes audio, not pictures/);
    refusal(
      await missing({ ep, keyframe_target: "no_such" }),
      400,
      /keyframe_target: no_such is not an installed target/,
    );
    const unbuilt = await s.episode(SCRIPT, { build: false, series: cardSeries() });
    refusal(await missing({ ep: unbuilt }), 404, /the proxy pass has no build/);
  });
});
