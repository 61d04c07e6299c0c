// ProRes 422 HQ on real media: the .mov holds prores (HQ profile, apch), 10-bit 4:2:2, every frame, 24-bit PCM
// sound of the same length; a mute mp4 gives a mute .mov; a file that is not video is refused; a cancel leaves nothing.
import { access, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { makeProres, proresArgs } from "../lib/media/prores.ts";
import { ToolCanceled } from "../lib/media/tool-runner.ts";
import { hostMedia } from "./support/ctx.ts";
import { makeClip, useMediaDir } from "./support/media.ts";

const m = useMediaDir("prores");
const services = { media: hostMedia };

/** An mp4 of `seconds` at 24 fps (a pattern and, with `sound`, a tone) of `width`×`height`. */
const mp4 = (name: string, seconds: number, sound = true, width = 160, height = 90) =>
  makeClip(m.ffmpeg, path.join(m.dir, name), { frames: seconds * 24, tone: sound ? 440 : 0, width, height });

async function streams(file: string): Promise<Record<string, string>[]> {
  const { stdout } = await execa("ffprobe", [
    ...[
      "-v",
      "error",
      "-show_entries",
      "stream=codec_type,codec_name,profile,pix_fmt,codec_tag_string,sample_fmt,bits_per_sample,duration",
    ],
    ...["-of", "json", file],
  ]);
  return JSON.parse(stdout).streams;
}

describe("makeProres", { timeout: 120_000 }, () => {
  it("writes ProRes 422 HQ 10-bit 4:2:2 with 24-bit PCM, every frame kept", async () => {
    const src = await mp4("master.mp4", 1);
    const out = path.join(m.dir, "master.mov");
    const seen: number[] = [];
    const done = await makeProres(services, src, out, { progress: (f) => seen.push(f) });
    expect(done).toMatchObject({ frames: 24, width: 160, height: 90, sound: "pcm" });
    const [v, a] = await streams(out);
    expect(v).toMatchObject({
      codec_type: "video",
      codec_name: "prores",
      profile: "HQ",
      pix_fmt: "yuv422p10le",
    });
    expect(v.codec_tag_string).toBe("apch");
    expect(a).toMatchObject({ codec_type: "audio", codec_name: "pcm_s24le" });
    expect(await countFrames(out, hostMedia)).toBe(24);
    expect(Math.abs(Number(a.duration) - 1)).toBeLessThan(0.05);
    expect(seen.at(-1)).toBe(1);
  });

  it("gives a mute master a mute .mov", async () => {
    expect(proresArgs("a.mp4", "a.mov", false)).toContain("-an");
    const src = await mp4("mute.mp4", 0.5, false);
    const out = path.join(m.dir, "mute.mov");
    expect(await makeProres(services, src, out)).toMatchObject({ frames: 12, sound: "none" });
    expect((await streams(out)).map((s) => s.codec_type)).toEqual(["video"]);
  });

  it("refuses a file that is not video with ffprobe's words, and leaves no output when canceled", async () => {
    const text = path.join(m.dir, "not-video.mp4");
    await writeFile(text, "text");
    await expect(makeProres(services, text, path.join(m.dir, "x.mov"))).rejects.toThrow(
      /Invalid data|moov atom/,
    );
    const src = await mp4("long.mp4", 20, true, 1280, 720);
    const out = path.join(m.dir, "long.mov");
    const stop = new AbortController();
    const run = makeProres(services, src, out, {
      signal: stop.signal,
      progress: (f) => f > 0 && stop.abort(),
    });
    await expect(run).rejects.toBeInstanceOf(ToolCanceled);
    await expect(access(out)).rejects.toThrow();
  });
});
