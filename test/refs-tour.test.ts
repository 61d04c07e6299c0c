// Camera tours for real: POST /studio/refs/tour on a picked plate, a real job store and a WorkerPool running the
// `tour` job with ffmpeg; the tour sidecar and video kept, held moments as `tour` takes (the opening frame first,
// each still run at its sharpest frame, measured again here), events in order, holds refused as picks, and
// POST /studio/refs/tour-frame cutting the exact frame at a time; every refusal.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { retryJob } from "../lib/jobs/kinds.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { measureTour } from "../lib/refs/tour-figures.ts";
import { tourJob } from "../workers/jobs/tour.ts";
import { WorkerPool } from "../workers/pool.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
let pool: WorkerPool;
let ffmpeg = "ffmpeg";
const eps: string[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  ffmpeg = (await mediaTools(s.env.services.media)).ffmpeg;
  const services = s.env.services;
  pool = new WorkerPool({
    services,
    store,
    kinds: { tour: tourJob },
    emit: (kind, data) => services.events.emit(kind, data),
    pollMs: 20,
    // Heartbeats every 300 ms, so a cancel reaches a running tour at once.
    leaseMs: 900,
  });
  pool.start();
});
afterAll(async () => {
  await pool.stop({ graceful: false, timeoutMs: 5_000 });
  await store.close();
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});
afterEach(async () => {
  for (const j of (await store.list()).jobs) if (j.status === "queued") await store.cancel(j.id);
  await store.pause("builtin", false);
  for (const ep of eps.splice(0)) await afterAnswerSettled(s.env.services, ep);
});

/** A built episode whose kitchen has a detailed plate picked (a test pattern, so motion and blur show). */
async function episode(): Promise<string> {
  const ep = await s.episode(SCRIPT);
  eps.push(ep);
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
  const res = await s.call("POST", "/refs/import", {
    ep,
    ref: "location:kitchen",
    source_path: "_in/plate.png",
    pick: true,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  s.env.events.length = 0;
  return ep;
}

async function ended(id: string, ms = 60_000): Promise<Any> {
  const stop = Date.now() + ms;
  for (;;) {
    const job = await store.get(id);
    if (job && ["succeeded", "failed", "canceled"].includes(job.status)) return job;
    if (Date.now() > stop) throw new Error(`job ${id} did not end: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const toursDir = (ep: string) => path.join(path.dirname(ep), "ep01", "refs/_takes/location__kitchen/_tours");
const holdFile = (ep: string, take: number) =>
  path.join(ep, "refs/_takes/location__kitchen", `location__kitchen_tour_t${String(take).padStart(2, "0")}`);

const events = () =>
  s.env.events
    .filter((e) => e.type !== "studio.job" && e.type !== "studio.jobs")
    .map((e) => {
      const d = e.data as Any;
      return e.type === "studio.ref" ? `ref:${d.view}:${d.take}:${d.status}` : e.type;
    });

async function pixels(file: string): Promise<Buffer> {
  return sharp(file).greyscale().resize(64, 36, { fit: "fill" }).raw().toBuffer();
}
const diff = (a: Buffer, b: Buffer) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;

describe("POST /studio/refs/tour", () => {
  it("queues a tour that keeps its video and gives held moments as tour takes, the sharpest frame of each", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "push_in",
      seconds: 3,
      seed: "4",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued).toHaveLength(1);
    const { tour, backend_prompt_id: id } = res.body.queued[0];
    expect(tour).toBe(1);
    expect(id).toMatch(/^j_/);
    expect(events()).toEqual(["studio.episode"]);
    const queued = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    expect(queued).toMatchObject({
      tour: 1,
      ref: "location:kitchen",
      status: "queued",
      move: "push_in",
      seconds: 3,
      seed: "4",
      frame: "refs/_bg/kitchen.png",
      backend_prompt_id: id,
      holds: [],
    });
    expect(queued.frame_sha1).toMatch(/^[0-9a-f]{40}$/);

    const job = await ended(id);
    expect(job.status, job.error).toBe("succeeded");
    const done = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    expect(done).toMatchObject({ status: "ok", video: "tour_t01.mp4", fps: 24, frames: 72, error: null });
    expect(done.holds.length).toBeGreaterThanOrEqual(3);
    expect(events()).toEqual([
      "studio.episode",
      ...done.holds.map((t: number) => `ref:tour:${t}:ok`),
      "studio.episode",
    ]);

    // The listing: the tour and its holds.
    const listed = await s.call("GET", "/refs", { ep });
    const kitchen = listed.body.refs.find((r: Any) => r.id === "location:kitchen");
    expect(kitchen.tours).toEqual([
      {
        tour: 1,
        status: "ok",
        move: "push_in",
        holds: done.holds,
        error: null,
        video: "refs/_takes/location__kitchen/_tours/tour_t01.mp4",
        seconds: 3,
        fps: 24,
        frames: 72,
      },
    ]);
    // The listed video is the tour itself, served like any episode file.
    const served = await s.call("GET", "/file", { ep, path: kitchen.tours[0].video });
    expect(served.status).toBe(200);
    expect(kitchen.tour_holds.map((t: Any) => t.take)).toEqual(done.holds);
    expect(kitchen.tour_holds.every((t: Any) => t.source === "tour" && t.usable)).toBe(true);

    // Each hold: its sidecar, the opening frame first, the sharpest frame of its span measured again.
    const video = path.join(toursDir(ep), "tour_t01.mp4");
    const figures = await measureTour(s.env.services.media, video, { width: 320, height: 180, fps: 24 });
    const sidecars: Any[] = [];
    for (const take of done.holds) sidecars.push(await s.readJson(`${holdFile(ep, take)}.json`));
    expect(sidecars[0]).toMatchObject({
      source: "tour",
      view: "tour",
      tour: 1,
      hold: 1,
      frame: 0,
      start: 0,
      seed: "4",
    });
    expect(sidecars[0].note).toMatch(/^tour t01 hold 1 \(0–[\d.]+ s\)$/);
    for (const [i, sc] of sidecars.entries()) {
      expect(sc.hold).toBe(i + 1);
      const from = Math.round(sc.start * 24);
      const to = Math.round(sc.end * 24) - 1;
      expect(sc.frame).toBeGreaterThanOrEqual(from);
      expect(sc.frame).toBeLessThanOrEqual(to);
      if (i > 0) {
        const best = Math.max(...figures.sharpness.slice(from, to + 1));
        expect(figures.sharpness[sc.frame]).toBe(best);
      }
    }
    // The opening hold is the plate as the tour opens; the last one is pushed in, so it differs.
    const plate = await pixels(path.join(ep, "refs/_bg/kitchen.png"));
    expect(diff(await pixels(`${holdFile(ep, done.holds[0])}.png`), plate)).toBeLessThan(8);
    expect(diff(await pixels(`${holdFile(ep, done.holds.at(-1))}.png`), plate)).toBeGreaterThan(15);

    // A hold is not picked in place.
    refusal(
      await s.call("PUT", "/refs/pick", { ep, ref: "location:kitchen", view: "tour", take: done.holds[0] }),
      400,
      /tour hold cannot be picked/,
    );
  }, 120_000);

  it("queues several tours at once, the first on the typed seed", async () => {
    const ep = await episode();
    await store.pause("builtin", true);
    const res = await s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "pan_left",
      count: 2,
      seed: 9,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued.map((q: Any) => q.tour)).toEqual([1, 2]);
    const first = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    const second = (await s.readJson(path.join(toursDir(ep), "tour_t02.json"))) as Any;
    expect(first.seed).toBe("9");
    expect(second.seed).not.toBe("9");
    expect([first.seconds, second.seconds]).toEqual([6, 6]);
    // Waiting tours give no frames yet.
    refusal(
      await s.call("POST", "/refs/tour-frame", { ep, ref: "location:kitchen", tour: 1, seconds: 1 }),
      409,
      /tour_t01 is queued: only a finished tour gives frames/,
    );
  });

  it("ends a canceled tour failed, saying so, and a retry makes it again", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "orbit",
      seconds: 10,
    });
    const id = res.body.queued[0].backend_prompt_id;
    const stop = Date.now() + 30_000;
    while ((await store.get(id))?.status !== "running" && Date.now() < stop)
      await new Promise((r) => setTimeout(r, 20));
    await store.cancel(id);
    expect((await ended(id)).status).toBe("canceled");
    const sidecar = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    expect(sidecar).toMatchObject({ status: "failed", error: "canceled" });
    expect(events().at(-1)).toBe("studio.episode");
    const again = await retryJob(s.env.services, store, (await store.get(id)) as Any);
    expect((await ended(again.id)).status).toBe("succeeded");
    const done = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    expect(done).toMatchObject({ status: "ok", error: null, frames: 240 });
  }, 120_000);

  it("refuses what cannot be toured", async () => {
    const ep = await episode();
    const call = (body: Any) =>
      s.call("POST", "/refs/tour", { ep, ref: "location:kitchen", move: "push_in", ...body });
    refusal(
      await call({ ref: "subject:kettle" }),
      400,
      /subject:kettle is a prop: tours are made from a location's plate/,
    );
    refusal(await call({ ref: "location:street" }), 409, /location:street has no live plate/);
    refusal(await call({ ref: "location:nowhere" }), 404, /not a reference/);
    refusal(await call({ move: "zoom" }), 400, /move/);
    refusal(await call({ seconds: 1 }), 400, /seconds/);
    refusal(await call({ seconds: 11 }), 400, /seconds/);
    refusal(await call({ count: 5 }), 400, /count/);
    refusal(await call({ count: 0 }), 400, /count/);
    refusal(await call({ seed: "x" }), 400, /seed/);
    refusal(
      await call({ target: "flux2_klein" }),
      400,
      /flux2_klein is not a video target \(image\): tours run on a video target/,
    );
    refusal(await call({ target: "minimax_h3_ref2va" }), 400, /minimax_h3_ref2va takes no first frame/);
    refusal(await call({ target: "nope" }), 400, /unknown target "nope"/);
    expect((await store.list()).jobs.filter((j) => j.kind === "tour" && j.info.ep === ep)).toEqual([]);
  });
});

describe("POST /studio/refs/tour-frame", () => {
  it("cuts the exact frame at a time of a finished tour as a hold without a number", async () => {
    const ep = await episode();
    const res = await s.call("POST", "/refs/tour", {
      ep,
      ref: "location:kitchen",
      move: "pan_right",
      seconds: 2,
    });
    const job = await ended(res.body.queued[0].backend_prompt_id);
    expect(job.status, job.error).toBe("succeeded");
    const before = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    s.env.events.length = 0;
    const frame = await s.call("POST", "/refs/tour-frame", {
      ep,
      ref: "location:kitchen",
      tour: 1,
      seconds: 1,
    });
    expect(frame.status, JSON.stringify(frame.body)).toBe(200);
    const take = frame.body.take;
    expect(frame.body).toMatchObject({
      view: "tour",
      source: "tour",
      usable: true,
      tour: 1,
      hold: null,
      start: 1,
      end: 1,
      frame: 24,
      width: 320,
      height: 180,
    });
    expect(frame.body.image).toBe(
      `refs/_takes/location__kitchen/location__kitchen_tour_t${String(take).padStart(2, "0")}.png`,
    );
    expect(events()).toEqual([`ref:tour:${take}:ok`, "studio.episode"]);
    const after = (await s.readJson(path.join(toursDir(ep), "tour_t01.json"))) as Any;
    expect(after.holds).toEqual([...before.holds, take]);
    // The exact frame: the same pixels as frame 24 cut by ffmpeg here.
    const check = path.join(ep, "_in", "f24.png");
    await execa(ffmpeg, [
      "-v",
      "error",
      "-y",
      "-i",
      path.join(toursDir(ep), "tour_t01.mp4"),
      "-vf",
      "select=eq(n\\,24)",
      "-frames:v",
      "1",
      check,
    ]);
    expect(diff(await pixels(`${holdFile(ep, take)}.png`), await pixels(check))).toBe(0);
    const check23 = path.join(ep, "_in", "f23.png");
    await execa(ffmpeg, [
      "-v",
      "error",
      "-y",
      "-i",
      path.join(toursDir(ep), "tour_t01.mp4"),
      "-vf",
      "select=eq(n\\,20)",
      "-frames:v",
      "1",
      check23,
    ]);
    expect(diff(await pixels(`${holdFile(ep, take)}.png`), await pixels(check23))).toBeGreaterThan(0);

    const call = (body: Any) =>
      s.call("POST", "/refs/tour-frame", { ep, ref: "location:kitchen", tour: 1, seconds: 1, ...body });
    refusal(await call({ seconds: 2 }), 400, /seconds 2 is outside tour_t01: it runs 2 s \(0 to 1.958\)/);
    refusal(await call({ seconds: -1 }), 400, /seconds/);
    refusal(await call({ tour: 7 }), 404, /location:kitchen has no tour 7/);
    refusal(await call({ tour: 0 }), 400, /tour/);
    refusal(await call({ ref: "subject:kettle" }), 400, /only locations have tours/);
  }, 120_000);
});
