// POST /studio/assemble with `upscaled` (and `size`) on real files: each clip plays its take's fresh upscale into
// `<ep>_up.mp4`; a clip whose upscale is missing or stale is scaled up from its take and named in the report.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleJob } from "../workers/jobs/assemble.ts";
import { realTake, realUpscale, SHORT, useMediaStudio, videoOf } from "./support/media.ts";
import { refusal, type Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({ assemble: assembleJob });
let s: Studio;
let ffmpeg: string;
beforeAll(() => {
  ({ s, ffmpeg } = media);
});

describe("POST /studio/assemble upscaled", () => {
  it("plays the fresh upscales, scales up the rest and names them", { timeout: 180_000 }, async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) await realTake(s, ffmpeg, ep, "final", shot, 1);
    await realUpscale(ffmpeg, ep, "final", "sh010", 1);
    await realUpscale(ffmpeg, ep, "final", "sh020", 1);
    // sh030's upscale was made from an older take: the take changed after it.
    await realUpscale(ffmpeg, ep, "final", "sh030", 1);
    await realTake(s, ffmpeg, ep, "final", "sh030", 1, { tone: 660 });

    const { status, body } = await s.call("POST", "/assemble", { ep, pass: "final", upscaled: true });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, output: "renders/e01_up.mp4" });
    expect(body.report).toMatchObject({
      width: 896,
      height: 512,
      size_from: "clip",
      clips: 3,
      frames: 36,
      copied: 2,
      reencoded: 1,
      scaled_up: ["sh030"],
    });
    const rows = body.report.rows as { shot: string; why: string; picture: string }[];
    expect(rows[0].why).toMatch(/^its upscale; copied/);
    expect(rows[2]).toMatchObject({ picture: "re-encoded" });
    expect(rows[2].why).toMatch(/^its take \(its upscale was made from an older take\); re-encoded: 448x256/);
    const out = await videoOf(ffmpeg, path.join(ep, "renders", "e01_up.mp4"));
    expect(out).toMatchObject({ width: 896, height: 512, frames: 36, audio: "aac" });
    // The plain cut is another file.
    const plain = await s.call("POST", "/assemble", { ep, pass: "final" });
    expect(plain.body).toMatchObject({ ok: true, output: "renders/e01.mp4" });
    expect(plain.body.report.width).toBe(1344);
    expect(plain.body.report.scaled_up).toBeUndefined();
  });

  it("size sets the cut's size, letterboxing another aspect", { timeout: 180_000 }, async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) {
      await realTake(s, ffmpeg, ep, "final", shot, 1);
      await realUpscale(ffmpeg, ep, "final", shot, 1);
    }
    const { body } = await s.call("POST", "/assemble", {
      ep,
      pass: "final",
      upscaled: true,
      size: "640x640",
    });
    expect(body).toMatchObject({ ok: true, output: "renders/e01_up.mp4" });
    expect(body.report).toMatchObject({ width: 640, height: 640, size_from: "request", reencoded: 3 });
    expect(await videoOf(ffmpeg, path.join(ep, "renders", "e01_up.mp4"))).toMatchObject({
      width: 640,
      height: 640,
      frames: 36,
    });
  });

  it("refuses a bad size or flag before queueing anything", async () => {
    const ep = await s.episode(SHORT);
    refusal(await s.call("POST", "/assemble", { ep, upscaled: "yes" }), 400, /upscaled/);
    refusal(await s.call("POST", "/assemble", { ep, upscaled: true, size: "641x640" }), 400, /even/);
    refusal(await s.call("POST", "/assemble", { ep, publish: 1 }), 400, /publish/);
  });
});
