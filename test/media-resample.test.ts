// The built-in resample on real media: lanczos to a delivery size cropped or padded (targets' 1344x768 → 4K
// example at a small scale), the take's sound packets copied bit for bit, every frame kept, quality settings, bad
// specs refused before ffmpeg starts, and a cancel that leaves no file.
import { access, mkdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { probeClip } from "../lib/media/clip-probe.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import {
  type ResampleSpec,
  resampleArgs,
  resampleFilter,
  resampleProblem,
  resampleVideo,
} from "../lib/media/resample.ts";
import { ToolCanceled } from "../lib/media/tool-runner.ts";
import { createCaches } from "../lib/store/caches.ts";
import { hostMedia } from "./support/ctx.ts";
import { boxMean, makeClip, soundPackets, useMediaDir } from "./support/media.ts";

const m = useMediaDir("resample");
let dir: string;
let ffmpeg: string;
let services: { home: string; caches: ReturnType<typeof createCaches>; media: typeof hostMedia };

beforeAll(async () => {
  ({ dir, ffmpeg } = m);
  services = { home: path.join(dir, "home"), caches: createCaches(), media: hostMedia };
  await mkdir(services.home);
});

/** A take of `seconds` at 24 fps (a pattern and, with `audio`, a tone) of `width`×`height`. */
const take = (name: string, seconds: number, audio = true, width = 336, height = 192) =>
  makeClip(ffmpeg, path.join(dir, name), { frames: seconds * 24, tone: audio ? 330 : 0, width, height });

/** The mean grey level of a w×h box at x,y of the first frame. */
const box = (file: string, x: number, y: number, w: number, h: number) =>
  boxMean(ffmpeg, file, `${w}:${h}:${x}:${y}`);

const spec = (over: Partial<ResampleSpec> = {}): ResampleSpec => ({
  made: [672, 384],
  width: 672,
  height: 384,
  fit: null,
  sharpen: false,
  quality: "review",
  ...over,
});

describe("resample arguments", () => {
  it("scales with lanczos, then crops or pads centred, sharpens when asked, and ends square 8-bit 4:2:0", () => {
    // 336x192 → 960x540 (a quarter of 4K): cover 960x549 → crop, contain 945x540 → pad (the 4K example's shape).
    expect(resampleFilter(spec({ made: [960, 550], width: 960, height: 540, fit: "crop" }))).toBe(
      "scale=960:550:flags=lanczos,crop=960:540:0:5,setsar=1,format=yuv420p",
    );
    expect(
      resampleFilter(spec({ made: [944, 540], width: 960, height: 540, fit: "pad", sharpen: true })),
    ).toBe("scale=944:540:flags=lanczos,pad=960:540:8:0:black,unsharp=5:5:0.4:5:5:0,setsar=1,format=yuv420p");
    expect(resampleFilter(spec())).toBe("scale=672:384:flags=lanczos,setsar=1,format=yuv420p");
    const review = resampleArgs("in.mp4", "out.mp4", spec(), true);
    expect(review.join(" ")).toContain("-map 0:a:0 -c:a copy");
    expect(review.join(" ")).toContain("-preset fast -crf 20 -pix_fmt yuv420p");
    const master = resampleArgs("in.mp4", "out.mp4", spec({ quality: "master" }), false);
    expect(master.join(" ")).toContain("-preset slow -crf 14 -pix_fmt yuv420p");
    expect(master).toContain("-an");
  });

  it("says what is wrong with a spec", () => {
    expect(resampleProblem(spec())).toBeNull();
    expect(resampleProblem(spec({ made: [671, 384] }))).toMatch(/even whole numbers/);
    expect(resampleProblem(spec({ width: 0, height: 0, made: [0, 0] }))).toMatch(/at least 2/);
    expect(resampleProblem(spec({ width: 960 }))).toMatch(/without a fit/);
    expect(resampleProblem(spec({ fit: "crop", width: 960 }))).toMatch(
      /cannot crop 672x384 to the larger 960x384/,
    );
    expect(resampleProblem(spec({ fit: "pad", made: [960, 540], width: 672 }))).toMatch(/cannot pad/);
  });
});

describe("resampleVideo", { timeout: 120_000 }, () => {
  it("crops to a delivery size keeping every frame and the sound packets exactly", async () => {
    const src = await take("crop.mp4", 1);
    const out = path.join(dir, "crop.up.mp4");
    const seen: number[] = [];
    const done = await resampleVideo(
      services,
      src,
      out,
      spec({ made: [960, 550], width: 960, height: 540, fit: "crop", sharpen: true }),
      { progress: (f) => seen.push(f) },
    );
    expect(done).toMatchObject({ frames: 24, width: 960, height: 540, audio: "copied", encoder: "libx264" });
    const info = await probeClip(services, out);
    expect(info.video).toMatchObject({ codec: "h264", width: 960, height: 540, fps: 24, pixFmt: "yuv420p" });
    expect(info.video?.sar === null || info.video?.sar === "1:1").toBe(true);
    expect(await countFrames(out, hostMedia)).toBe(24);
    expect(await soundPackets(ffmpeg, out)).toBe(await soundPackets(ffmpeg, src));
    expect(seen.at(-1)).toBe(1);
  });

  it("pads with black bars at the sides, and writes a mute take mute", async () => {
    const src = await take("pad.mp4", 0.5, false);
    const out = path.join(dir, "pad.up.mp4");
    const done = await resampleVideo(
      services,
      src,
      out,
      spec({ made: [944, 540], width: 960, height: 540, fit: "pad", quality: "master" }),
    );
    expect(done).toMatchObject({ frames: 12, audio: "none" });
    const info = await probeClip(services, out);
    expect(info.audio).toBeNull();
    expect(info.video).toMatchObject({ width: 960, height: 540 });
    expect(await box(out, 0, 100, 6, 300)).toBeLessThan(20);
    expect(await box(out, 954, 100, 6, 300)).toBeLessThan(20);
    expect(await box(out, 300, 100, 300, 300)).toBeGreaterThan(40);
  });

  it("refuses a bad spec before ffmpeg starts, and a file without a picture", async () => {
    const src = await take("bad.mp4", 0.5);
    const out = path.join(dir, "bad.up.mp4");
    await expect(resampleVideo(services, src, out, spec({ fit: "crop", width: 960 }))).rejects.toThrow(
      /resample: cannot crop/,
    );
    await expect(access(out)).rejects.toThrow();
    const wav = path.join(dir, "sound.wav");
    await execa(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.2", wav]);
    await expect(resampleVideo(services, wav, out, spec())).rejects.toThrow(/has no picture/);
  });

  it("stops on cancel and leaves no output", async () => {
    const src = await take("long.mp4", 20, true, 640, 360);
    const out = path.join(dir, "long.up.mp4");
    const stop = new AbortController();
    const run = resampleVideo(
      services,
      src,
      out,
      spec({ made: [1920, 1080], width: 1920, height: 1080, quality: "master" }),
      { signal: stop.signal, progress: (f) => f > 0 && stop.abort() },
    );
    await expect(run).rejects.toBeInstanceOf(ToolCanceled);
    await expect(access(out)).rejects.toThrow();
  });
});
