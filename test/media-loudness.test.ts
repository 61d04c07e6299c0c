// Loudness normalisation on real media: a generated test-tone mix brought to −16 LUFS / −1 dBTP (and to −23), each
// result measured again by ffmpeg's separate ebur128 meter; the pure parts (loudnorm's report, the second pass's
// filter, the range target); silent, sound-less and bad targets refused; a cancel leaves no file.
import { access } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { probeClip } from "../lib/media/clip-probe.ts";
import {
  LOUDNESS_DEFAULT,
  loudnessProblem,
  normaliseFilter,
  normaliseLoudness,
  parseLoudnorm,
  rangeTarget,
} from "../lib/media/loudness.ts";
import { ToolCanceled } from "../lib/media/tool-runner.ts";
import { hostMedia } from "./support/ctx.ts";
import { useMediaDir } from "./support/media.ts";

const m = useMediaDir("loudness");
let dir: string;
let ffmpeg: string;
const services = { media: hostMedia };

beforeAll(() => {
  ({ dir, ffmpeg } = m);
});

/** A small picture with a mix of tones whose level steps (quiet, loud, quiet) at about −30 LUFS. */
async function toneMix(name: string, seconds: number, volume = "0.05"): Promise<string> {
  const file = path.join(dir, name);
  const tones = [
    `sine=frequency=220:sample_rate=48000:duration=${seconds}`,
    `sine=frequency=997:sample_rate=48000:duration=${seconds}`,
  ];
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=size=128x72:rate=24:duration=${seconds}`],
    ...["-f", "lavfi", "-i", tones[0], "-f", "lavfi", "-i", tones[1]],
    "-filter_complex",
    `[1:a][2:a]amix=inputs=2,volume='if(between(t,${seconds / 3},${(2 * seconds) / 3}),${volume}*2,${volume})':eval=frame,aformat=channel_layouts=stereo[a]`,
    ...["-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-b:a", "192k", file],
  ]);
  return file;
}

/** Integrated loudness and true peak by ffmpeg's ebur128 meter (not loudnorm, which made the file). */
async function ebur128(file: string): Promise<{ integrated: number; peak: number }> {
  const { stderr } = await execa(ffmpeg, [
    ...[
      "-hide_banner",
      "-nostats",
      "-i",
      file,
      "-map",
      "0:a:0",
      "-af",
      "ebur128=peak=true",
      "-f",
      "null",
      "-",
    ],
  ]);
  const summary = stderr.slice(stderr.lastIndexOf("Summary:"));
  const integrated = Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)?.[1]);
  const peak = Number(/True peak:\s+Peak:\s+(-?[\d.]+) dBFS/.exec(summary)?.[1]);
  return { integrated, peak };
}

const REPORT = `[Parsed_loudnorm_0 @ 0x55d5c5c0b240]
{
	"input_i" : "-29.87",
	"input_tp" : "-17.61",
	"input_lra" : "5.40",
	"input_thresh" : "-40.02",
	"output_i" : "-16.01",
	"output_tp" : "-3.71",
	"output_lra" : "5.20",
	"output_thresh" : "-26.14",
	"normalization_type" : "linear",
	"target_offset" : "-0.99"
}
`;

describe("loudnorm's pure parts", () => {
  it("reads loudnorm's report, silence as null", () => {
    const r = parseLoudnorm(`size=N/A time=00:00:06.00\n${REPORT}`);
    expect(r).toEqual({
      input: { integrated: -29.87, truePeak: -17.61, range: 5.4, threshold: -40.02 },
      output: { integrated: -16.01, truePeak: -3.71, range: 5.2, threshold: -26.14 },
      type: "linear",
      offset: -0.99,
    });
    const silent = parseLoudnorm(REPORT.replace('"-29.87"', '"-inf"').replace('"-17.61"', '"-inf"'));
    expect(silent.input.integrated).toBeNull();
    expect(silent.input.truePeak).toBeNull();
    expect(() => parseLoudnorm("no report here")).toThrow(/printed no loudnorm report/);
    expect(() => parseLoudnorm("[Parsed_loudnorm_0 @ 1] { not json }")).toThrow(/not JSON/);
  });

  it("builds the second pass from the first's measures, with a range target never below the measured range", () => {
    expect(normaliseFilter(LOUDNESS_DEFAULT, parseLoudnorm(REPORT))).toBe(
      "loudnorm=I=-16:TP=-1:LRA=11:measured_I=-29.87:measured_TP=-17.61:measured_LRA=5.4:measured_thresh=-40.02:offset=-0.99:linear=true:print_format=json",
    );
    expect(rangeTarget(null)).toBe(11);
    expect(rangeTarget(14.2)).toBe(16);
    expect(rangeTarget(40)).toBe(20);
    const silent = parseLoudnorm(REPORT.replace('"-29.87"', '"-inf"'));
    expect(() => normaliseFilter(LOUDNESS_DEFAULT, silent)).toThrow(/silent/);
  });

  it("says what is wrong with a target", () => {
    expect(loudnessProblem(LOUDNESS_DEFAULT)).toBeNull();
    expect(loudnessProblem({ target: -3, truePeak: -1 })).toMatch(/between -70 and -5 LUFS/);
    expect(loudnessProblem({ target: -16, truePeak: 1 })).toMatch(/between -9 and 0 dBTP/);
    expect(loudnessProblem({ target: Number.NaN, truePeak: -1 })).toMatch(/LUFS/);
  });
});

describe("normaliseLoudness", { timeout: 120_000 }, () => {
  it("brings a test-tone mix to −16 LUFS within ±0.5 LU and its peaks under −1 dBTP, the picture copied", async () => {
    const src = await toneMix("mix.mp4", 6);
    const before = await ebur128(src);
    expect(before.integrated).toBeLessThan(-24);
    const out = path.join(dir, "mix.loud.mp4");
    const steps = new Set<string>();
    const done = await normaliseLoudness(
      services,
      src,
      out,
      { target: -16, truePeak: -1 },
      {
        progress: (u) => steps.add(u.step),
      },
    );
    const after = await ebur128(out);
    expect(Math.abs(after.integrated - -16)).toBeLessThanOrEqual(0.5);
    expect(after.peak).toBeLessThanOrEqual(-1 + 0.1);
    // What the call reports is what the file holds.
    expect(Math.abs((done.output.integrated ?? 0) - after.integrated)).toBeLessThanOrEqual(0.3);
    expect(Math.abs((done.input.integrated ?? 0) - before.integrated)).toBeLessThanOrEqual(0.3);
    expect(done.type).toBe("linear");
    expect([...steps]).toEqual([
      "measuring loudness",
      "normalising loudness",
      "measuring the result",
      "loudness done",
    ]);
    const info = await probeClip(services, out);
    expect(info.video).toMatchObject({ codec: "h264", width: 128, height: 72 });
    expect(info.audio).toMatchObject({ codec: "aac", sampleRate: 48000, channels: 2 });
  });

  it("reaches another target (−23 LUFS, −2 dBTP) as well", async () => {
    const src = await toneMix("mix23.mp4", 5, "0.4");
    const out = path.join(dir, "mix23.loud.mp4");
    await normaliseLoudness(services, src, out, { target: -23, truePeak: -2 });
    const after = await ebur128(out);
    expect(Math.abs(after.integrated - -23)).toBeLessThanOrEqual(0.5);
    expect(after.peak).toBeLessThanOrEqual(-2 + 0.1);
  });

  it("refuses a bad target, a file without sound and a silent one, writing nothing", async () => {
    const out = path.join(dir, "refused.mp4");
    const src = await toneMix("short.mp4", 1);
    await expect(normaliseLoudness(services, src, out, { target: 0, truePeak: -1 })).rejects.toThrow(
      /between -70 and -5/,
    );
    const mute = path.join(dir, "mute.mp4");
    await execa(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x36:duration=1", mute]);
    await expect(normaliseLoudness(services, mute, out)).rejects.toThrow(/has no sound/);
    const silent = path.join(dir, "silent.mp4");
    await execa(ffmpeg, [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x36:duration=1"],
      ...["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1", "-c:a", "aac", silent],
    ]);
    await expect(normaliseLoudness(services, silent, out)).rejects.toThrow(/silent/);
    await expect(access(out)).rejects.toThrow();
  });

  it("stops on cancel and leaves no output", async () => {
    const src = await toneMix("long.mp4", 30);
    const out = path.join(dir, "long.loud.mp4");
    const stop = new AbortController();
    const run = normaliseLoudness(services, src, out, LOUDNESS_DEFAULT, {
      signal: stop.signal,
      progress: (u) => u.step === "normalising loudness" && u.progress > 0.3 && stop.abort(),
    });
    await expect(run).rejects.toBeInstanceOf(ToolCanceled);
    await expect(access(out)).rejects.toThrow();
  });
});
