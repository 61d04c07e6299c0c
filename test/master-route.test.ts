// POST /studio/master and GET /studio/master/job on real files: the plan's refusals and rows from real records,
// the assemble gate, the lock (two assembles at once: one 409 with `job`; a stale lock taken over), the master
// made from the upscales by stream copy with its report, and the job object across the runs.
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { lockPath } from "../lib/master/lock.ts";
import { measureLoudness } from "../lib/media/loudness.ts";
import { masterJob } from "../workers/jobs/master.ts";
import { builtinRecipeHash, MASTER_RECIPE } from "./support/master-recipe.ts";
import { realTake, realUpscale, SHORT, useMediaStudio, videoOf } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import { refusal, type Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({ master: masterJob });
let s: Studio;
let ffmpeg: string;
beforeAll(() => {
  ({ s, ffmpeg } = media);
});

const RECIPE = MASTER_RECIPE;
const recipeHash = builtinRecipeHash;

function series(upscale: unknown = { master: RECIPE }, more: Record<string, unknown> = {}) {
  return { ...seriesS(), upscale, ...more };
}

const BUILTIN = { target: "animatic", backend: "builtin" };

async function takes(ep: string, shots = ["sh010", "sh020", "sh030"]) {
  for (const shot of shots)
    await realTake(s, ffmpeg, ep, "final", shot, 1, { target: "animatic" }).then(() =>
      patchSidecar(ep, shot, BUILTIN),
    );
}

async function patchSidecar(ep: string, shot: string, fields: Record<string, unknown>) {
  const file = path.join(ep, "renders", shot, `${shot}_t01.json`);
  const sc = JSON.parse(await readFile(file, "utf8"));
  await writeFile(file, JSON.stringify({ ...sc, ...fields }, null, 2));
}

const rowsOf = (body: { plan: { rows: { shot: string; status: string; why: string }[] } }) =>
  body.plan.rows.map((r) => `${r.shot}:${r.status}:${r.why}`);

describe("POST /studio/master plan", () => {
  it("refuses what makes a master impossible, and bad fields", async () => {
    const none = await s.episode(SHORT, { series: seriesS() });
    refusal(await s.call("POST", "/master", { ep: none }), 409, /has no upscale.master recipe/);
    const noSize = await s.episode(SHORT, { series: series({ master: { targets: { "*": {} } } }) });
    refusal(await s.call("POST", "/master", { ep: noSize }), 409, /has no deliver: a master is one size/);
    const badSize = await s.episode(SHORT, { series: series({ master: { ...RECIPE, deliver: "huge" } }) });
    refusal(await s.call("POST", "/master", { ep: badSize }), 409, /a master is one size/);
    const ep = await s.episode(SHORT, { series: series() });
    refusal(await s.call("POST", "/master", { ep, post: true }), 409, /no post.master recipe/);
    refusal(await s.call("POST", "/master", { ep, action: "burn" }), 400, /^action: /);
    refusal(await s.call("POST", "/master", { ep, conform: "yes" }), 400, /^conform: /);
    refusal(await s.call("POST", "/master", { ep, allow_gaps: 1 }), 400, /^allow_gaps: /);
    refusal(await s.call("POST", "/master", { ep, post: "maybe" }), 400, /^post: /);
    refusal(await s.call("POST", "/master", { ep, order: "size" }), 400, /^order: /);
    refusal(await s.call("POST", "/master", { ep, pass: "FINAL" }), 400, /^pass: /);
    refusal(await s.call("POST", "/master", { ep, prores: "yes" }), 400, /^prores: /);
    refusal(
      await s.call("POST", "/master", { ep, action: "prores" }),
      409,
      "there is no master of this episode at the recipe's size yet (896x512): assemble it first",
    );
    await writeFile(path.join(ep, "cut.json"), JSON.stringify({ final: [{ shot: "sh010", out: true }] }));
  });

  it("rows from the real records: ok, kept, upscale, gap; counts and readiness", async () => {
    const ep = await s.episode(SHORT, { series: series() });
    await takes(ep);
    await realUpscale(ffmpeg, ep, "final", "sh010", 1, { record: { recipe_hash: recipeHash() } });
    await realUpscale(ffmpeg, ep, "final", "sh020", 1, { record: { keep: true } });
    const { status, body } = await s.call("POST", "/master", { ep });
    expect(status).toBe(200);
    expect(rowsOf(body)).toEqual(["sh010:ok:", "sh020:kept:marked Keep", "sh030:upscale:not upscaled yet"]);
    expect(body.plan).toMatchObject({
      pass: "final",
      post: false,
      post_mode: "off",
      size: [896, 512],
      fit: "crop",
      quality: "review",
      counts: { upscale: 1, post: 0, ok: 1, kept: 1, queued: 0, gap: 0 },
      ready: false,
    });
    expect(body.plan.rows[0]).toMatchObject({
      take: 1,
      target: "animatic",
      recipe: expect.stringMatching(/^pixel upscale/),
      upscale: { width: 896, height: 512, status: "ok", keep: false },
      post: null,
    });
    expect(body.existing).toBeNull();
    // An out entry is no row; a shot the cut cannot play is a gap.
    await writeFile(
      path.join(ep, "cut.json"),
      JSON.stringify({
        final: [{ shot: "sh010" }, { shot: "sh020", out: true }, { shot: "sh030", take: 7 }],
      }),
    );
    const again = await s.call("POST", "/master", { ep });
    expect(rowsOf(again.body)).toEqual(["sh010:ok:", "sh030:gap:picked take t07 is not on disk"]);
  });
});

describe("POST /studio/master assemble", () => {
  it("is refused while shots are to upscale, and with gaps unless allowed", async () => {
    const ep = await s.episode(SHORT, { series: series() });
    await takes(ep);
    await realUpscale(ffmpeg, ep, "final", "sh010", 1, { record: { recipe_hash: recipeHash() } });
    refusal(
      await s.call("POST", "/master", { ep, action: "assemble" }),
      409,
      "2 shot(s) still to upscale: sh020, sh030",
    );
    await writeFile(
      path.join(ep, "cut.json"),
      JSON.stringify({
        final: [{ shot: "sh010" }, { shot: "sh020", take: 9 }, { shot: "sh030", out: true }],
      }),
    );
    refusal(await s.call("POST", "/master", { ep, action: "assemble" }), 409, /^1 gap\(s\): sh020/);
  });

  it("makes the master from the upscales by stream copy, with its report; one assembly at a time", {
    timeout: 240_000,
  }, async () => {
    const ep = await s.episode(SHORT, { series: series() });
    await takes(ep);
    for (const shot of ["sh010", "sh020", "sh030"])
      await realUpscale(ffmpeg, ep, "final", shot, 1, { record: { recipe_hash: recipeHash() } });
    s.env.events.length = 0;
    const [a, b] = await Promise.all([
      s.call("POST", "/master", { ep, action: "assemble" }),
      s.call("POST", "/master", { ep, action: "assemble" }),
    ]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(won.status).toBe(200);
    refusal(
      lost,
      409,
      /^a master of this episode is already being assembled by the editor \(since \d\d:\d\d\); wait for it to finish$/,
      ["job"],
    );
    expect(won.body).toMatchObject({
      output: "master/e01_master_896x512.mp4",
      mov: null,
      report: "master/e01_master.md",
      titles: null,
      existing: { output: "master/e01_master_896x512.mp4", mov: null },
      job: { state: "done", stage: "done", elsewhere: false, by: "the editor", error: "" },
    });
    expect(won.body.plan.ready).toBe(true);
    const out = await videoOf(ffmpeg, path.join(ep, "master", "e01_master_896x512.mp4"));
    expect(out).toMatchObject({ width: 896, height: 512, frames: 36, audio: "aac" });
    const report = JSON.parse(await readFile(path.join(ep, "master", "e01_master.json"), "utf8"));
    expect(report).toMatchObject({
      episode: "e01",
      output: "master/e01_master_896x512.mp4",
      played: { sh010: "upscale", sh020: "upscale", sh030: "upscale" },
      assembly: { clips: 3, frames: 36, copied: 3, reencoded: 0 },
      plan: { ready: true, size: [896, 512] },
    });
    // The test tones (-20 dBFS) are brought to the series default, -16 LUFS, and the file holds what it says.
    expect(report.loudness).toMatchObject({ target: -16, true_peak: -1, note: null });
    expect(Math.abs(report.loudness.measured_out.i - -16)).toBeLessThanOrEqual(0.5);
    expect(report.loudness.measured_out.tp).toBeLessThanOrEqual(-1 + 0.1);
    const again = await measureLoudness(
      s.env.services.media,
      path.join(ep, "master", "e01_master_896x512.mp4"),
    );
    expect(Math.abs((again.input.integrated ?? 0) - -16)).toBeLessThanOrEqual(0.5);
    expect(Math.abs((report.loudness.measured_in.i ?? 0) - -16)).toBeGreaterThan(1);
    const md = await readFile(path.join(ep, "master", "e01_master.md"), "utf8");
    expect(md).toMatch(/- loudness: target -16 LUFS, true peak ≤ -1 dBTP; measured before -\d/);
    expect(md).toMatch(/^# e01: master 896x512\n/);
    expect(md).toMatch(/\| sh010 \| 1 \| animatic \| ok \| upscale \|/);
    await expect(readFile(lockPath(ep))).rejects.toMatchObject({ code: "ENOENT" });
    const events = s.env.events
      .filter((e) => e.type === "studio.master")
      .map((e) => e.data as { stage: string });
    expect(events[0]).toMatchObject({ stage: "start" });
    expect(events.at(-1)).toMatchObject({ state: "done", stage: "done" });
    expect((await s.call("GET", "/master/job", { ep })).body.job).toMatchObject({
      ep,
      pass: "final",
      state: "done",
      output: "master/e01_master_896x512.mp4",
    });
    const plan = await s.call("POST", "/master", { ep });
    expect(plan.body.existing).toEqual({ output: "master/e01_master_896x512.mp4", mov: null });
  });

  it("takes over a stale lock; another host's fresh lock is 409 and shows as elsewhere", {
    timeout: 240_000,
  }, async () => {
    const ep = await s.episode(SHORT, { series: series() });
    await takes(ep, ["sh010"]);
    const only = [{ shot: "sh010" }, { shot: "sh020", out: true }, { shot: "sh030", out: true }];
    await writeFile(path.join(ep, "cut.json"), JSON.stringify({ final: only }));
    await realUpscale(ffmpeg, ep, "final", "sh010", 1, { record: { recipe_hash: recipeHash() } });
    expect((await s.call("GET", "/master/job", { ep })).body).toEqual({ job: null });
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(ep, "master"), { recursive: true });
    const foreign = {
      pid: 1,
      host: "elsewhere.example",
      by: "the editor",
      started: new Date().toISOString(),
    };
    await writeFile(lockPath(ep), JSON.stringify(foreign));
    const busy = await s.call("POST", "/master", { ep, action: "assemble" });
    refusal(busy, 409, /already being assembled by the editor/, ["job"]);
    expect(busy.body.job).toMatchObject({ state: "running", elsewhere: true, pass: null, by: "the editor" });
    expect((await s.call("GET", "/master/job", { ep })).body.job).toMatchObject({ elsewhere: true });
    const dead = { pid: 2 ** 22 + 4321, host: os.hostname(), by: "a crashed run", started: foreign.started };
    await writeFile(lockPath(ep), JSON.stringify(dead));
    const made = await s.call("POST", "/master", { ep, action: "assemble" });
    expect(made.status).toBe(200);
    expect(made.body.output).toBe("master/e01_master_896x512.mp4");
  });
});

describe("GET /studio/master/job", () => {
  it("refuses a bad episode", async () => {
    refusal(await s.call("GET", "/master/job", { ep: "relative/ep" }), 400, /absolute/);
  });
});
