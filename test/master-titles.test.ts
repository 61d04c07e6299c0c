// Titles on real files: POST /studio/assemble with `publish` wraps the cut with the show's intro and outro into
// `<ep>/publish/` (frame counts add up: intro + cut + outro), says why when the show has none; the master gets the
// same titles in place and reports them.
import { mkdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleJob } from "../workers/jobs/assemble.ts";
import { masterJob } from "../workers/jobs/master.ts";
import { builtinRecipeHash, MASTER_RECIPE } from "./support/master-recipe.ts";
import { makeClip, realTake, realUpscale, SHORT, useMediaStudio, videoOf } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import type { Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({ assemble: assembleJob, master: masterJob });
let s: Studio;
let ffmpeg: string;
beforeAll(() => {
  ({ s, ffmpeg } = media);
});

const RECIPE = MASTER_RECIPE;
const PUBLISH = { subtitle: { intro_in: [0.1, 0.4], outro_in: [0, 0.2], outro_out: [0.3, 0.5] } };

/** The show's `_titles/`: a one-second intro (24 frames) and a half-second outro (12 frames). */
async function titles(ep: string) {
  const dir = path.join(path.dirname(ep), "_titles");
  await mkdir(dir, { recursive: true });
  await makeClip(ffmpeg, path.join(dir, "INTRO.mp4"), { frames: 24, width: 320, height: 180, tone: 220 });
  await makeClip(ffmpeg, path.join(dir, "OUTRO.mp4"), { frames: 12, width: 320, height: 180, tone: 330 });
}

describe("publish", () => {
  it("wraps the cut with the intro and outro into publish/, the cut still beside it", {
    timeout: 240_000,
  }, async () => {
    const ep = await s.episode(SHORT, { series: { ...seriesS(), publish: PUBLISH } });
    for (const shot of ["sh010", "sh020", "sh030"]) await realTake(s, ffmpeg, ep, "proxy", shot, 1);
    const none = await s.call("POST", "/assemble", { ep, pass: "proxy", publish: true });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({
      ok: false,
      output: "renders_proxy/e01_proxy.mp4",
      cut: "renders_proxy/e01_proxy.mp4",
      published: null,
      error: expect.stringMatching(
        /^not published: publishing needs the show's intro or outro: none of _titles\/INTRO.mp4, _titles\/OUTRO.mp4 exists/,
      ),
    });
    await titles(ep);
    const { body } = await s.call("POST", "/assemble", { ep, pass: "proxy", publish: true });
    expect(body).toMatchObject({
      ok: true,
      output: "publish/e01_proxy.mp4",
      cut: "renders_proxy/e01_proxy.mp4",
      published: "publish/e01_proxy.mp4",
    });
    const cut = await videoOf(ffmpeg, path.join(ep, "renders_proxy", "e01_proxy.mp4"));
    const published = await videoOf(ffmpeg, path.join(ep, "publish", "e01_proxy.mp4"));
    expect(cut.frames).toBe(36);
    // Intro 24 + cut 36 + outro 12 frames, at the cut's size.
    expect(published).toMatchObject({ frames: 72, width: cut.width, height: cut.height, audio: "aac" });
    expect(published.duration).toBeCloseTo(3, 1);
  });
});

describe("the master's titles", () => {
  it("are added in place and reported; the ProRes copy is made from the titled master", {
    timeout: 300_000,
  }, async () => {
    const ep = await s.episode(SHORT, {
      series: { ...seriesS(), upscale: { master: RECIPE }, publish: PUBLISH },
    });
    await titles(ep);
    for (const shot of ["sh010", "sh020", "sh030"]) {
      await realTake(s, ffmpeg, ep, "final", shot, 1, { target: "animatic" });
      await realUpscale(ffmpeg, ep, "final", shot, 1, { record: { recipe_hash: builtinRecipeHash() } });
    }
    const { status, body } = await s.call("POST", "/master", { ep, action: "assemble", prores: true });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.titles).toEqual({
      intro: "../_titles/INTRO.mp4",
      outro: "../_titles/OUTRO.mp4",
      picture: "copied",
      why: expect.any(String),
    });
    const out = await videoOf(ffmpeg, path.join(ep, "master", "e01_master_896x512.mp4"));
    expect(out).toMatchObject({ width: 896, height: 512, frames: 72 });
    const report = JSON.parse(await readFile(path.join(ep, "master", "e01_master.json"), "utf8"));
    expect(report.titles).toEqual(body.titles);
    // The ProRes copy is made from the titled master: its frames are the titled count.
    expect(body).toMatchObject({ mov: "master/e01_master_896x512.mov" });
    expect(report.prores).toBe("master/e01_master_896x512.mov");
    const mov = path.join(ep, "master", "e01_master_896x512.mov");
    expect(await videoOf(ffmpeg, mov)).toMatchObject({
      codec: "prores",
      profile: "HQ",
      pixFmt: "yuv422p10le",
      width: 896,
      height: 512,
      frames: 72,
      audio: "pcm_s24le",
    });
    // prores on its own: the copy again, answered with output and mov only.
    await rm(mov);
    const again = await s.call("POST", "/master", { ep, action: "prores" });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual({
      output: "master/e01_master_896x512.mp4",
      mov: "master/e01_master_896x512.mov",
    });
    expect((await videoOf(ffmpeg, mov)).frames).toBe(72);
    // A new master without ProRes takes the older copy away.
    const plain = await s.call("POST", "/master", { ep, action: "assemble" });
    expect(plain.body).toMatchObject({ mov: null, existing: { mov: null } });
    await expect(stat(mov)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
