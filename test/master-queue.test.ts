// The master end to end on the built-in engine: `queue` queues the upscales the plan asks for (the upscale route's
// own queueing, run by the upscale job: ffmpeg lanczos), after which every row is ok and `assemble` makes the
// master from them; `conform` redoes an upscale made with other settings; and an upscaled assemble plays the
// upscales the upscale route made.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { assembleJob } from "../workers/jobs/assemble.ts";
import { masterJob } from "../workers/jobs/master.ts";
import { postJob } from "../workers/jobs/post.ts";
import { upscaleJob } from "../workers/jobs/upscale.ts";
import { jobsEnded } from "./support/jobs.ts";
import { MASTER_RECIPE } from "./support/master-recipe.ts";
import { realTake, realUpscale, SHORT, useMediaStudio, videoOf } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import type { Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({
  upscale: upscaleJob,
  master: masterJob,
  assemble: assembleJob,
  post: postJob,
});
let s: Studio;
let ffmpeg: string;
let store: StudioJobStore;
beforeAll(() => {
  ({ s, ffmpeg, store } = media);
});

const RECIPE = MASTER_RECIPE;
const SHOTS = ["sh010", "sh020", "sh030"];

/** Until every upscale and post job of `ep` has ended. */
const upscalesDone = (ep: string) =>
  jobsEnded(store, (j) => (j.kind === "upscale" || j.kind === "post") && j.info.ep === ep);

async function builtinTakes(ep: string) {
  for (const shot of SHOTS)
    await realTake(s, ffmpeg, ep, "final", shot, 1, { target: "animatic", backend: "builtin" });
}

describe("the master on the built-in engine", () => {
  it("queue upscales what the plan asks, then assemble makes the master from them", {
    timeout: 300_000,
  }, async () => {
    const ep = await s.episode(SHORT, { series: { ...seriesS(), upscale: { master: RECIPE } } });
    await builtinTakes(ep);
    // sh030 has an upscale made with other settings: kept, unless conform.
    await realUpscale(ffmpeg, ep, "final", "sh030", 1, { record: { recipe_hash: "0123456789ab" } });
    const queued = await s.call("POST", "/master", { ep, action: "queue", order: "target" });
    expect(queued.status, JSON.stringify(queued.body)).toBe(200);
    expect(queued.body.queued).toEqual(["sh010", "sh020"]);
    expect(queued.body.errors).toEqual([]);
    expect(queued.body.plan.rows.map((r: { status: string }) => r.status)).toEqual([
      "queued",
      "queued",
      "kept",
    ]);
    const events = s.env.events.filter((e) => e.type === "studio.upscale").map((e) => e.data);
    expect(events).toEqual([
      { ep, shot: "sh010", take: 1, status: "queued" },
      { ep, shot: "sh020", take: 1, status: "queued" },
    ]);
    await upscalesDone(ep);
    const conform = await s.call("POST", "/master", { ep, action: "queue", conform: true });
    expect(conform.body.queued).toEqual(["sh030"]);
    await upscalesDone(ep);
    const plan = await s.call("POST", "/master", { ep });
    expect(plan.body.plan.rows.map((r: { status: string }) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(plan.body.plan.ready).toBe(true);
    const made = await s.call("POST", "/master", { ep, action: "assemble" });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(await videoOf(ffmpeg, path.join(ep, made.body.output))).toMatchObject({
      width: 896,
      height: 512,
      frames: 36,
    });
    // The upscaled cut plays the same upscales, copied.
    const up = await s.call("POST", "/assemble", { ep, pass: "final", upscaled: true });
    expect(up.body).toMatchObject({ ok: true, output: "renders/e01_up.mp4" });
    expect(up.body.report).toMatchObject({ width: 896, height: 512, copied: 3, scaled_up: [] });
  });

  it("with posts by the recipe: plans, queues and plays the posts", { timeout: 300_000 }, async () => {
    const post = { master: { motion_blur: 0.5 } };
    const ep = await s.episode(SHORT, { series: { ...seriesS(), upscale: { master: RECIPE }, post } });
    await builtinTakes(ep);
    const first = await s.call("POST", "/master", { ep, action: "queue", post: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.queued).toEqual(SHOTS);
    // One queue call brings the upscales and, behind each, its post.
    await upscalesDone(ep);
    const present = await s.call("POST", "/master", { ep, post: "present" });
    expect(present.body.plan.rows.map((r: { recipe: string }) => r.recipe)).toEqual(
      SHOTS.map(() => expect.stringMatching(/; its post$/)),
    );
    const again = await s.call("POST", "/master", { ep, action: "queue", post: true });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.queued).toEqual([]);
    const ready = await s.call("POST", "/master", { ep, post: true });
    expect(ready.body.plan.rows.map((r: { status: string }) => r.status)).toEqual(["ok", "ok", "ok"]);
    const made = await s.call("POST", "/master", { ep, action: "assemble", post: true });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const report = JSON.parse(await readFile(path.join(ep, "master", "e01_master.json"), "utf8"));
    expect(report.played).toEqual({ sh010: "post", sh020: "post", sh030: "post" });
  });
});
