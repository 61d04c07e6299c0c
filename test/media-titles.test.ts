// Titles on real media: an intro and an outro put around a cut with the episode title drawn on them; the cut's
// picture copied bit for bit when it can be, the whole re-encoded (and said why) when it cannot; lengths exact,
// stages reported, the style checked, and nothing left behind on failure.
import { access, readdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { probeClip } from "../lib/media/clip-probe.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import {
  alphaExpr,
  copyProblem,
  SUBTITLE_DEFAULTS,
  subtitleStyle,
  wrapWithTitles,
} from "../lib/media/titles.ts";
import { hostMedia } from "./support/ctx.ts";
import { boxMean, makeClip, useMediaDir } from "./support/media.ts";

const m = useMediaDir("titles");
let dir: string;
let ffmpeg: string;
const services = { media: hostMedia };
// The title fades in early so a short test intro shows it.
const style = { intro_in: [0.1, 0.3], outro_in: [0, 0.2], outro_out: [0.8, 1.0] };

beforeAll(() => {
  ({ dir, ffmpeg } = m);
});

/** A clip of `seconds` (256×144 at 24 fps unless said): a pattern or a flat colour, a tone unless `sound: false`. */
const clip = (
  name: string,
  seconds: number,
  o: { width?: number; height?: number; fps?: number; codec?: "mpeg4"; sound?: boolean; color?: string } = {},
) =>
  makeClip(ffmpeg, path.join(dir, name), {
    width: 256,
    height: 144,
    ...o,
    frames: Math.round(seconds * (o.fps ?? 24)),
    tone: o.sound === false ? 0 : 500,
  });

/** MD5s of decoded frames `from`..`from+n-1` of a file's picture. */
async function frameHashes(file: string, from: number, n: number): Promise<string[]> {
  const { stdout } = await execa(ffmpeg, [
    ...["-v", "error", "-i", file, "-map", "0:v:0"],
    ...["-vf", `select='between(n\\,${from}\\,${from + n - 1})'`, "-vsync", "0", "-f", "framemd5", "-"],
  ]);
  return stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => l.split(",").pop()?.trim() ?? "");
}

describe("the subtitle style", () => {
  it("fills the defaults, resolves the font beside the episode and names every wrong key", () => {
    expect(subtitleStyle({}, "/ep")).toEqual(SUBTITLE_DEFAULTS);
    expect(subtitleStyle({ font: "fonts/a.ttf", size: 0.1, color: "#112233" }, "/show/ep")).toMatchObject({
      font: "/show/ep/fonts/a.ttf",
      size: 0.1,
      color: "#112233",
      glow: "#FFB45A@0.8",
    });
    const bad = subtitleStyle({ size: "big", color: "red", intro_in: [5, 4], font: "" }, "/ep");
    expect(bad).toMatch(/subtitle size must be a number/);
    expect(bad).toMatch(/subtitle color must be a colour/);
    expect(bad).toMatch(/subtitle intro_in must be \[start, end\]/);
    expect(bad).toMatch(/subtitle font must be the path/);
  });

  it("fades the title in (and out) with drawtext's time expression", () => {
    expect(alphaExpr([4, 5], null)).toBe("if(lt(t,4),0,if(lt(t,5),(t-4)/1,1))");
    expect(alphaExpr([0, 1], [4.5, 5.5])).toBe(
      "if(lt(t,4.5),if(lt(t,0),0,if(lt(t,1),(t-0)/1,1)),if(lt(t,5.5),(5.5-t)/1,0))",
    );
    expect(alphaExpr([2, 2], null)).toBe("if(lt(t,2),0,if(lt(t,2),1,1))");
  });

  it("copies only an H.264 4:2:0 cut with square pixels and an even size", () => {
    const v = {
      codec: "h264",
      width: 256,
      height: 144,
      fps: 24,
      frames: 24,
      pixFmt: "yuv420p",
      timescale: 12288,
      sar: "1:1",
      duration: 1,
    };
    const info = (over = {}) => ({ duration: 1, video: { ...v, ...over }, audio: null });
    expect(copyProblem(info())).toBeNull();
    expect(copyProblem(info({ codec: "mpeg4" }))).toMatch(/mpeg4, the titles are H.264/);
    expect(copyProblem(info({ pixFmt: "yuv422p" }))).toMatch(/pixel format is yuv422p/);
    expect(copyProblem(info({ sar: "4:3" }))).toMatch(/pixel aspect is 4:3/);
  });
});

describe("wrapWithTitles", { timeout: 120_000 }, () => {
  it("puts the titled intro and outro around a copied cut, to the frame", async () => {
    const intro = await clip("intro.mp4", 1, { color: "0x202020", width: 320, height: 180, fps: 30 });
    const outro = await clip("outro.mp4", 1, { color: "0x202020", sound: false });
    const cut = await clip("cut.mp4", 2);
    const out = path.join(dir, "titled.mp4");
    const stages: string[] = [];
    const done = await wrapWithTitles(
      services,
      { cut, intro, outro, title: "The Long Way Home", style, folder: dir, out },
      { progress: (u) => stages.at(-1) !== `${u.stage}:${u.text}` && stages.push(`${u.stage}:${u.text}`) },
    );
    expect(done).toMatchObject({ intro, outro, picture: "copied", frames: 96, seconds: 4 });
    expect(stages).toEqual(["titles:intro", "titles:outro", "join:", "verify:"]);
    expect(await countFrames(out, hostMedia)).toBe(96);
    const info = await probeClip(services, out);
    expect(info.video).toMatchObject({ width: 256, height: 144, fps: 24 });
    expect(info.audio).toMatchObject({ codec: "aac", sampleRate: 48000, channels: 2 });
    expect(Math.abs((info.duration ?? 0) - 4)).toBeLessThan(0.05);
    // The cut's frames come through untouched.
    expect(await frameHashes(out, 24, 48)).toEqual(await frameHashes(cut, 0, 48));
    // The title is drawn (light text on the dark intro) once faded in, and not before.
    const textBox = "160:16:48:80";
    expect(await boxMean(ffmpeg, out, textBox, 0.9)).toBeGreaterThan(
      (await boxMean(ffmpeg, out, textBox, 0.02)) + 10,
    );
    expect(await boxMean(ffmpeg, intro, "200:20:60:100", 0.9)).toBeLessThan(40);
    expect((await readdir(dir)).filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("re-encodes the whole when the cut cannot be copied, and says why", async () => {
    const cut = await clip("cut-mpeg4.mp4", 1, { codec: "mpeg4" });
    const outro = await clip("outro2.mp4", 0.5, { color: "0x202020" });
    const out = path.join(dir, "titled-mpeg4.mp4");
    const stages = new Set<string>();
    const done = await wrapWithTitles(
      services,
      { cut, outro, title: "Night", style, folder: dir, out },
      { progress: (u) => stages.add(u.stage) },
    );
    expect(done).toMatchObject({ intro: null, outro, picture: "re-encoded", frames: 36 });
    expect(done.why).toMatch(/re-encoded: the cut's picture is mpeg4/);
    expect([...stages]).toEqual(["titles", "reencode"]);
    const info = await probeClip(services, out);
    expect(info.video).toMatchObject({ codec: "h264", pixFmt: "yuv420p", width: 256, height: 144 });
    expect(await countFrames(out, hostMedia)).toBe(36);
  });

  it("refuses without clips, with a bad style or a missing font, leaving nothing behind", async () => {
    const cut = await clip("cut3.mp4", 0.5);
    const intro = await clip("intro3.mp4", 0.5);
    const out = path.join(dir, "refused.mp4");
    const req = { cut, title: "T", style: {}, folder: dir, out };
    await expect(wrapWithTitles(services, req)).rejects.toThrow(/neither an intro nor an outro/);
    await expect(wrapWithTitles(services, { ...req, intro, style: { glow: "orange" } })).rejects.toThrow(
      /titles: subtitle glow must be a colour/,
    );
    await expect(wrapWithTitles(services, { ...req, intro, style: { font: "nope.ttf" } })).rejects.toThrow(
      /subtitle font .*nope\.ttf cannot be read/,
    );
    await expect(
      wrapWithTitles(services, { ...req, intro: path.join(dir, "cut3.mp4.missing") }),
    ).rejects.toThrow();
    await expect(access(out)).rejects.toThrow();
    expect((await readdir(dir)).filter((f) => f.startsWith("."))).toEqual([]);
  });
});
