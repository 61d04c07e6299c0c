// The upscale routes on the built-in engine, end to end: a real animatic-sized take upscaled by the upscale job
// (ffmpeg lanczos, the take's audio copied, the record closed with the saver's fields), then every refusal and
// skip of the upscale rules: whole cut vs named shots, Keep, out, placeholders, redo, stale after a re-render,
// keep/recipe/delete answers and their 400/404/409.
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools, probe } from "../lib/media/ffmpeg.ts";
import { upscaleJob } from "../workers/jobs/upscale.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { startTestPool, waitFor } from "./support/jobs.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

function startPool(): void {
  pools.push(startTestPool(s.env.services, store, { upscale: upscaleJob }));
}

/** A real 1 s 320x180 take with a tone, on the animatic target, as the built-in render leaves it. */
async function realTake(ep: string, shot: string, take: number, color = "red"): Promise<string> {
  const stem = await s.take(ep, "final", shot, take, {
    sidecar: { target: "animatic", backend: "builtin", width: 320, height: 180, frames: 24 },
  });
  const { ffmpeg } = await mediaTools(s.env.services.media);
  const file = path.join(ep, "renders", shot, `${stem}.mp4`);
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `color=c=${color}:s=320x180:r=24:d=1`,
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=48000:duration=1",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    file,
  ]);
  return stem;
}

const upJson = (ep: string, shot: string, stem: string) => path.join(ep, "renders", shot, `${stem}.up.json`);

describe("POST /studio/upscale on the built-in engine", () => {
  it("upscales a take by lanczos, copies its audio, records it honestly, and skips it after", async () => {
    const ep = await s.episode(SCRIPT);
    const stem = await realTake(ep, "sh010", 1);
    const r = await s.call("POST", "/upscale", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      deliver: "640x360",
    });
    expect(r.status).toBe(200);
    expect(r.body.queued).toEqual([
      expect.objectContaining({
        shot: "sh010",
        take: 1,
        route: "resample",
        method: "resample",
        width: 640,
        height: 360,
      }),
    ]);
    expect(s.env.events).toContainEqual({
      type: "studio.upscale",
      data: { ep, shot: "sh010", take: 1, status: "queued" },
    });
    const queued: Any = await s.readJson(upJson(ep, "sh010", stem));
    expect(queued).toMatchObject({
      status: "queued",
      method: "resample",
      mode: "lanczos",
      upscaler: "ffmpeg lanczos",
    });
    expect(queued.source_sha1).toMatch(/^[0-9a-f]{40}$/);
    startPool();
    await waitFor(async () => ((await s.readJson(upJson(ep, "sh010", stem))) as Any).status !== "queued");
    const done: Any = await s.readJson(upJson(ep, "sh010", stem));
    expect(done).toMatchObject({
      status: "ok",
      width: 640,
      height: 360,
      audio: "copied",
      encoder: "libx264",
    });
    expect(done.save_notes).toMatch(/take's audio copied/);
    const mp4 = path.join(ep, "renders", "sh010", `${stem}.up.mp4`);
    const info = await probe(mp4, s.env.services.media);
    expect([info.video?.width, info.video?.height]).toEqual([640, 360]);
    // The audio stream is the take's, bit for bit.
    const { ffmpeg } = await mediaTools(s.env.services.media);
    const md5 = async (f: string) =>
      (await execa(ffmpeg, ["-v", "error", "-i", f, "-map", "0:a", "-c", "copy", "-f", "md5", "-"])).stdout;
    expect(await md5(mp4)).toBe(await md5(path.join(ep, "renders", "sh010", `${stem}.mp4`)));
    expect(s.env.events).toContainEqual({
      type: "studio.upscale",
      data: { ep, shot: "sh010", take: 1, status: "ok" },
    });

    const ep1: Any = await s.call("GET", "/episode", { ep, pass: "final" });
    const t: Any = ep1.body.shots.find((x: Any) => x.shot === "sh010").takes[0];
    expect(t.upscale).toMatchObject({ status: "ok", fresh: true, width: 640, method: "resample" });

    const again = await s.call("POST", "/upscale", { ep, shots: ["sh010"], deliver: "640x360" });
    expect(again.body.skipped).toEqual([{ shot: "sh010", take: 1, reason: "already upscaled" }]);

    // Keep: a whole-cut request leaves it; naming it redoes it.
    expect((await s.call("PUT", "/upscale/keep", { ep, shot: "sh010", take: "1", keep: true })).body).toEqual(
      {
        shot: "sh010",
        take: 1,
        keep: true,
      },
    );
    const whole = await s.call("POST", "/upscale", { ep, redo: true, deliver: "640x360" });
    expect(whole.body.skipped).toContainEqual({
      shot: "sh010",
      take: 1,
      reason: "kept (its upscale is marked Keep)",
    });

    // Identical bytes copied back stay fresh; a re-render makes it stale and it is upscaled again.
    const takeMp4 = path.join(ep, "renders", "sh010", `${stem}.mp4`);
    await copyFile(takeMp4, `${takeMp4}.bak`);
    await writeFile(takeMp4, await readFile(`${takeMp4}.bak`));
    const same = await s.call("POST", "/upscale", { ep, shots: ["sh010"], deliver: "640x360" });
    expect(same.body.skipped).toEqual([{ shot: "sh010", take: 1, reason: "already upscaled" }]);
    await realTake(ep, "sh010", 1, "blue");
    const stale: Any = await s.call("GET", "/episode", { ep, pass: "final" });
    expect(stale.body.shots.find((x: Any) => x.shot === "sh010").takes[0].upscale.fresh).toBe(false);
    const redo = await s.call("POST", "/upscale", { ep, shots: ["sh010"], deliver: "640x360" });
    expect(redo.body.queued).toHaveLength(1);
  });
});

describe("which takes, and the refusals", () => {
  it("whole cut leaves out and placeholders; an empty list is nothing; named shots are done even when out", async () => {
    const ep = await s.episode(SCRIPT);
    await realTake(ep, "sh010", 1);
    await realTake(ep, "sh030", 1);
    await s.take(ep, "proxy", "sh020", 1);
    await s.call("PUT", "/cut", {
      ep,
      pass: "final",
      entries: [{ shot: "sh010", out: true }, { shot: "sh020", pass: "proxy", take: 1 }, { shot: "sh030" }],
    });
    const whole = await s.call("POST", "/upscale", { ep });
    expect(whole.body.skipped).toEqual([{ shot: "sh020", reason: "the cut uses its proxy take" }]);
    expect(whole.body.queued.map((q: Any) => q.shot)).toEqual(["sh030"]);
    expect((await s.call("POST", "/upscale", { ep, shots: [] })).body).toEqual({
      queued: [],
      skipped: [],
      errors: [],
    });
    const named = await s.call("POST", "/upscale", { ep, shots: ["sh010"] });
    expect(named.body.queued.map((q: Any) => q.shot)).toEqual(["sh010"]);
    const missing = await s.call("POST", "/upscale", { ep, takes: [{ shot: "sh030", take: 9 }] });
    expect(missing.body.skipped).toEqual([{ shot: "sh030", reason: "final take 9 of sh030 doesn't exist" }]);
  });

  it("400 on bad values before anything runs; 409 without a recipe; per-take errors", async () => {
    const ep = await s.episode(SCRIPT);
    await realTake(ep, "sh010", 1);
    await s.take(ep, "final", "sh020", 1, { status: "failed" });
    for (const body of [
      { scale: 5 },
      { scale: 1 },
      { deliver: "1081x720" },
      { method: "bicubic" },
      { shots: "sh010" },
      { takes: [{ shot: "sh010", take: "x" }] },
      { detail: 3 },
      { grain: 0.5 },
    ]) {
      expect((await s.call("POST", "/upscale", { ep, ...body })).status, JSON.stringify(body)).toBe(400);
    }
    const norecipe = await s.call("POST", "/upscale", { ep, recipe: true });
    expect(norecipe.status).toBe(409);
    expect(norecipe.body.error).toMatch(/no upscale.master recipe/);
    const failed = await s.call("POST", "/upscale", { ep, takes: [{ shot: "sh020", take: 1 }] });
    expect(failed.body.errors).toEqual([
      { shot: "sh020", take: 1, error: "sh020 t01 is not a finished take (failed)" },
    ]);
    const shrink = await s.call("POST", "/upscale", {
      ep,
      takes: [{ shot: "sh010", take: 1 }],
      deliver: "128x72",
    });
    expect(shrink.body.errors[0].error).toMatch(/would shrink/);
  });

  it("keep, recipe and delete: their answers and refusals (pass final by default)", async () => {
    const ep = await s.episode(SCRIPT);
    await realTake(ep, "sh010", 1);
    expect((await s.call("PUT", "/upscale/keep", { ep, shot: "sh010", take: 1, keep: "yes" })).status).toBe(
      400,
    );
    expect((await s.call("PUT", "/upscale/keep", { ep, shot: "sh010", take: 7, keep: true })).status).toBe(
      404,
    );
    const none = await s.call("PUT", "/upscale/keep", { ep, shot: "sh010", take: 1, keep: true });
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(/no finished upscale to keep/);
    expect((await s.call("DELETE", "/upscale", { ep, shot: "sh010", take: "1" })).status).toBe(404);
    // The take in a query string is digits and nothing else, as on DELETE /studio/post.
    for (const bad of ["x", "0x10", "1e0", " 1", "0"]) {
      const refused = await s.call("DELETE", "/upscale", { ep, shot: "sh010", take: bad });
      expect(refused.status, bad).toBe(400);
      expect((await s.call("DELETE", "/post", { ep, shot: "sh010", take: bad })).body).toEqual(refused.body);
    }
    expect((await s.call("DELETE", "/upscale", { ep, shot: "sh010", take: "0x10" })).body.error).toBe(
      'take: must be a whole number (got "0x10")',
    );
    expect(
      (await s.call("PUT", "/upscale/keep", { ep, shot: "sh010", take: "1.5", keep: true })).status,
    ).toBe(400);

    const rec = await s.call("PUT", "/upscale/recipe", {
      ep,
      shot: "sh020",
      recipe: { method: "pixel", quality: "master" },
    });
    expect(rec.body).toEqual({
      shot: "sh020",
      recipe: { method: "pixel", quality: "master" },
      text: "pixel upscale, master quality",
    });
    expect(((await s.readJson(path.join(ep, "overrides.json"))) as Any).upscale).toEqual({
      sh020: { method: "pixel", quality: "master" },
    });
    expect((await s.call("PUT", "/upscale/recipe", { ep, shot: "sh020", recipe: { foo: 1 } })).status).toBe(
      400,
    );
    expect((await s.call("PUT", "/upscale/recipe", { ep, shot: "sh020", recipe: { scale: 5 } })).status).toBe(
      400,
    );
    expect((await s.call("PUT", "/upscale/recipe", { ep, shot: "sh020", recipe: {} })).body).toEqual({
      shot: "sh020",
      recipe: null,
      text: null,
    });
    expect(((await s.readJson(path.join(ep, "overrides.json"))) as Any).upscale).toBeUndefined();

    // A queued upscale whose job waits cannot be deleted; once its job is gone it can.
    const q = await s.call("POST", "/upscale", { ep, takes: [{ shot: "sh010", take: 1 }] });
    const busy = await s.call("DELETE", "/upscale", { ep, shot: "sh010", take: 1 });
    expect(busy.status).toBe(409);
    await store.cancel(q.body.queued[0].prompt_id);
    const gone = await s.call("DELETE", "/upscale", { ep, shot: "sh010", take: 1 });
    expect(gone.body).toEqual({ shot: "sh010", take: 1, deleted: true });
    expect(s.env.events).toContainEqual({
      type: "studio.upscale",
      data: { ep, shot: "sh010", take: 1, status: "deleted" },
    });
  });
});

describe("recipe_match", () => {
  it("same for an upscale the recipe made, different once the recipe changes, unknown without settings, null without a recipe", async () => {
    const series = seriesS();
    series.upscale = { master: { deliver: "640x360", targets: { animatic: { keep_soft: 1 } } } };
    const ep = await s.episode(SCRIPT, { series });
    const stem = await realTake(ep, "sh010", 1);
    const match = async () => {
      const r: Any = await s.call("GET", "/episode", { ep, pass: "final" });
      return r.body.shots.find((x: Any) => x.shot === "sh010").takes[0].upscale.recipe_match;
    };
    const q = await s.call("POST", "/upscale", { ep, shots: ["sh010"], recipe: true });
    expect(q.body.queued).toHaveLength(1);
    // Queued: not ok yet, so nothing to compare.
    expect(await match()).toBeNull();
    startPool();
    await waitFor(async () => ((await s.readJson(upJson(ep, "sh010", stem))) as Any).status !== "queued");
    expect(await match()).toBe("same");
    // The recipe made it, so the recipe's own request skips it.
    const again = await s.call("POST", "/upscale", { ep, shots: ["sh010"], recipe: true });
    expect(again.body.skipped).toEqual([{ shot: "sh010", take: 1, reason: "already upscaled" }]);

    // A shot's own recipe that sharpens now: the upscale was made with other settings.
    await s.call("PUT", "/upscale/recipe", { ep, shot: "sh010", recipe: { keep_soft: 0 } });
    expect(await match()).toBe("different");
    await s.call("PUT", "/upscale/recipe", { ep, shot: "sh010", recipe: null });
    expect(await match()).toBe("same");

    // A record from before upscales recorded their settings.
    const file = upJson(ep, "sh010", stem);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/"recipe_hash": "[0-9a-f]+"/, '"recipe_hash": null'));
    expect(await match()).toBe("unknown");
    await writeFile(file, text);

    // No recipe in the series config: null.
    delete series.upscale;
    await writeFile(path.join(ep, "series.json"), JSON.stringify(series));
    expect(await match()).toBeNull();
  });
});
