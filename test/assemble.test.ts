// Assembling a cut: the pure planner, then real clips made with ffmpeg joined by assembleEpisode and through
// POST /studio/assemble (a job on the built-in lane run by a worker pool in the test's process).
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import { type CutShot, chooseClips, filesToProbe, planAssembly } from "../lib/assemble/plan.ts";
import type { TakeRecord } from "../lib/episode/takes.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { clipSamples, concatList, fpsText, graphPath, soundGraph } from "../lib/media/assemble-args.ts";
import type { ClipInfo } from "../lib/media/clip-probe.ts";
import { probe } from "../lib/media/ffmpeg.ts";
import type { MediaTools } from "../lib/media/tools.ts";
import { assembleJob } from "../workers/jobs/assemble.ts";
import { type ClipSpec, realTake, SHORT, useMediaStudio } from "./support/media.ts";
import { refusal, type Studio } from "./support/studio-episode.ts";

// ------------------------------------------------------------------------------------------- the planner

const rec = (
  shot: string,
  take: number,
  status: "ok" | "failed" | "queued" = "ok",
  files: string[] = ["mp4"],
): TakeRecord => {
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  return {
    take,
    stem,
    sidecar: { status },
    files: [`${stem}.json`, ...files.map((f) => (f === "mp4" ? `${stem}.mp4` : `${stem}${f}`))],
  };
};

const clipInfo = (over: Partial<NonNullable<ClipInfo["video"]>> = {}, audio = true): ClipInfo => ({
  duration: 0.5,
  video: {
    codec: "h264",
    width: 448,
    height: 256,
    fps: 24,
    frames: 12,
    pixFmt: "yuv420p",
    timescale: 12288,
    sar: "1:1",
    duration: 0.5,
    ...over,
  },
  audio: audio ? { codec: "aac", sampleRate: 48000, channels: 2 } : null,
});

const FORMAT = { fps: 24, width: 448, height: 256 };

describe("the assembly planner", () => {
  const ep = "/shows/s/ep01";
  const mp4 = (pass: string, shot: string, take: number) =>
    `${ep}/${pass === "final" ? "renders" : "renders_proxy"}/${shot}/${shot}_t${String(take).padStart(2, "0")}.mp4`;

  it("skips out shots and orphans, applies trims, plays placeholders from the other pass, and says why", () => {
    const shots: CutShot[] = [
      { entry: { shot: "sh010" }, orphan: false, takes: [rec("sh010", 1), rec("sh010", 2)] },
      { entry: { shot: "sh020", out: true }, orphan: false, takes: [rec("sh020", 1)] },
      { entry: { shot: "sh030", trim_in: 2, trim_out: 3 }, orphan: false, takes: [rec("sh030", 1)] },
      { entry: { shot: "sh040", pass: "final" }, orphan: false, takes: [rec("sh040", 4)] },
      { entry: { shot: "sh050" }, orphan: false, takes: [] },
      { entry: { shot: "sh060" }, orphan: false, takes: [rec("sh060", 1, "failed", [])] },
      {
        entry: { shot: "sh070", take: 2 },
        orphan: false,
        takes: [rec("sh070", 1), rec("sh070", 2, "queued", [])],
      },
      { entry: { shot: "sh080", take: 5 }, orphan: false, takes: [rec("sh080", 1)] },
      { entry: { shot: "sh090" }, orphan: true, takes: [rec("sh090", 1)] },
      { entry: { shot: "sh100" }, orphan: false, takes: [rec("sh100", 1), rec("sh100", 2, "queued", [])] },
    ];
    const choices = chooseClips(ep, "proxy", shots);
    expect(filesToProbe(choices)).toEqual([
      mp4("proxy", "sh010", 2),
      mp4("proxy", "sh030", 1),
      mp4("final", "sh040", 4),
      mp4("proxy", "sh100", 1),
    ]);
    const probes = new Map<string, ClipInfo | string>(filesToProbe(choices).map((f) => [f, clipInfo()]));
    const plan = planAssembly(choices, probes, FORMAT);
    expect(plan.clips.map((c) => [c.shot, c.take, c.pass, c.frames, c.reencode])).toEqual([
      ["sh010", 2, "proxy", 12, []],
      ["sh030", 1, "proxy", 7, ["trimmed"]],
      ["sh040", 4, "final", 12, []],
      ["sh100", 1, "proxy", 12, []],
    ]);
    const rows = Object.fromEntries(plan.rows.map((r) => [r.shot, r]));
    expect(plan.rows.map((r) => `${r.shot}:${r.status}`)).toEqual([
      "sh010:used",
      "sh020:out",
      "sh030:used",
      "sh040:used",
      "sh050:missing",
      "sh060:missing",
      "sh070:missing",
      "sh080:missing",
      "sh090:out",
      "sh100:used",
    ]);
    expect(rows.sh010).toMatchObject({ take: 2, frames: 12, picture: "copied", sound: "its own sound" });
    expect(rows.sh020.why).toBe("left out of the cut");
    expect(rows.sh030).toMatchObject({
      picture: "re-encoded",
      why: expect.stringMatching(/^re-encoded: trimmed/),
    });
    expect(rows.sh040.why).toMatch(/placeholder from the final pass/);
    expect(rows.sh050.why).toBe("not rendered yet");
    expect(rows.sh060.why).toBe("no usable take: its only take failed or lacks a video file");
    expect(rows.sh070).toMatchObject({ take: 2, why: "picked take t02 is still rendering" });
    expect(rows.sh080.why).toBe("picked take t05 is not on disk");
    expect(rows.sh090.why).toBe("no longer in the script");
    expect(plan.missing.map((r) => r.shot)).toEqual(["sh050", "sh060", "sh070", "sh080"]);
  });

  it("re-encodes only the clips whose picture differs, and says how", () => {
    const shots: CutShot[] = ["a", "b", "c", "d", "e", "f", "g"].map((s) => ({
      entry: { shot: s },
      orphan: false,
      takes: [rec(s, 1)],
    }));
    const choices = chooseClips(ep, "proxy", shots);
    const files = filesToProbe(choices);
    const probes = new Map<string, ClipInfo | string>([
      [files[0], clipInfo()],
      [files[1], clipInfo({ fps: 30, frames: 15 })],
      [files[2], clipInfo({ width: 640, height: 360 })],
      [files[3], clipInfo({ codec: "hevc", pixFmt: "yuv420p10le" })],
      [files[4], clipInfo({}, false)],
      [files[5], "moov atom not found"],
      [files[6], { duration: 1, video: null, audio: { codec: "aac", sampleRate: 48000, channels: 2 } }],
    ]);
    const plan = planAssembly(choices, probes, FORMAT);
    expect(plan.clips.map((c) => [c.shot, c.frames, c.reencode])).toEqual([
      ["a", 12, []],
      ["b", 12, ["30 fps (the cut is 24)"]],
      ["c", 12, ["640x360 (the cut is 448x256)"]],
      ["d", 12, ["codec hevc", "pixel format yuv420p10le"]],
      // A mute clip keeps its picture: the join lays silence under it.
      ["e", 12, []],
    ]);
    expect(plan.clips[4].sound).toMatchObject({ file: null, why: "silence (the take has no sound)" });
    expect(plan.missing.map((r) => [r.shot, r.why])).toEqual([
      ["f", "take t01 cannot be read: moov atom not found"],
      ["g", "take t01 has no picture"],
    ]);
  });

  it("finds the sound: the take's wav (a mute mp4's too), silence on request, another take's sound", () => {
    const shots: CutShot[] = [
      { entry: { shot: "a" }, orphan: false, takes: [rec("a", 1, "ok", ["mp4", "_h3.wav"])] },
      { entry: { shot: "b", audio: { source: "none" } }, orphan: false, takes: [rec("b", 1)] },
      {
        entry: {
          shot: "c",
          audio: { source: "take", shot: "a", take: 1, pass: "proxy", offset: 0.25, gain: 2 },
        },
        orphan: false,
        takes: [rec("c", 1)],
        audioTakes: [rec("a", 1, "ok", ["mp4", "_h3.wav"])],
      },
      {
        entry: { shot: "d", audio: { source: "file", path: "audio/gone.wav" } },
        orphan: false,
        takes: [rec("d", 1)],
      },
    ];
    const choices = chooseClips(ep, "proxy", shots);
    const wav = `${ep}/renders_proxy/a/a_t01_h3.wav`;
    const probes = new Map<string, ClipInfo | string>(
      filesToProbe(choices).map((f) => [f, clipInfo({}, false)]),
    );
    probes.set(wav, {
      duration: 0.5,
      video: null,
      audio: { codec: "pcm_s16le", sampleRate: 48000, channels: 2 },
    });
    probes.set(`${ep}/audio/gone.wav`, "No such file or directory");
    const plan = planAssembly(choices, probes, FORMAT);
    expect(plan.clips.map((c) => c.sound)).toEqual([
      { file: wav, start: 0, offset: 0, gain: 1, why: "its own sound" },
      { file: null, start: 0, offset: 0, gain: 1, why: "silence (the cut asks for none)" },
      { file: wav, start: 0, offset: 0.25, gain: 2, why: "sound of a t01 (proxy)" },
      { file: null, start: 0, offset: 0, gain: 1, why: "silence (file audio/gone.wav is missing)" },
    ]);
    expect(plan.clips.every((c) => c.reencode.length === 0)).toBe(true);
  });

  it("refuses trims that leave nothing and converts frame counts to the cut's rate", () => {
    const shots: CutShot[] = [
      { entry: { shot: "a", trim_in: 12, trim_out: 12 }, orphan: false, takes: [rec("a", 1)] },
      { entry: { shot: "b", trim_in: 1 }, orphan: false, takes: [rec("b", 1)] },
    ];
    const choices = chooseClips(ep, "proxy", shots);
    const probes = new Map<string, ClipInfo | string>(
      filesToProbe(choices).map((f) => [f, clipInfo({ fps: 16, frames: 16 })]),
    );
    const plan = planAssembly(choices, probes, FORMAT);
    expect(plan.missing[0].why).toBe(
      "the trims leave no frame of take t01 (24 frames, trim_in 12, trim_out 12)",
    );
    expect(plan.clips[0]).toMatchObject({ shot: "b", convertedFrames: 24, frames: 23 });
    expect(plan.clips[0].reencode).toEqual(["16 fps (the cut is 24)", "trimmed"]);
  });

  it("writes exact lengths: the concat list, the sound's samples, rates and escaped names", () => {
    expect(fpsText(24)).toBe("24");
    expect(fpsText(30000 / 1001)).toBe("30000/1001");
    expect(fpsText(12.5)).toBe("12.5");
    // 1/3 frame of samples rounds differently per clip, but the running total is exact.
    const samples = clipSamples([1, 1, 1], 72);
    expect(samples.reduce((a, b) => a + b)).toBe(2000);
    expect(concatList([{ file: "/a/it's.mp4", frames: 12 }], 24)).toBe(
      "ffconcat version 1.0\nfile '/a/it'\\''s.mp4'\nduration 0.500000\n",
    );
    expect(graphPath("/x/a'b:c,[d];e")).toBe("/x/a\\\\\\'b\\\\:c\\,\\[d\\]\\;e");
    const graph = soundGraph([
      { sound: { file: null, start: 0, offset: 0, gain: 1 }, from: 0, samples: 100 },
      { sound: { file: "/s.wav", start: 0, offset: 0.5, gain: 1 }, from: 0, samples: 48000 },
    ]);
    expect(graph).toContain("anullsrc=r=48000:cl=stereo,atrim=end_sample=24000");
    expect(graph).toContain("[a0][a1]concat=n=2:v=0:a=1[aout]");
  });
});

// ------------------------------------------------------------------------------------------- real clips

const studio = useMediaStudio({ assemble: assembleJob });
let s: Studio;
let ffmpeg: string;
let media: MediaTools;
let store: StudioJobStore;
beforeAll(() => {
  ({ s, ffmpeg, store } = studio);
  media = s.env.services.media;
});

/**
 * A finished take whose mp4 is a real clip, its tone at the sine's own level (the sound checks measure it); with
 * `wav`, also its sound as `<stem>_h3.wav` (mono 44.1 kHz).
 */
const take = (
  ep: string,
  pass: "final" | "proxy",
  shot: string,
  n: number,
  c: ClipSpec & { wav?: boolean } = {},
) => realTake(s, ffmpeg, ep, pass, shot, n, { level: 0, ...c });

async function setCut(ep: string, proxy: Record<string, unknown>[]): Promise<void> {
  await writeFile(path.join(ep, "cut.json"), JSON.stringify({ episode: "e01", final: [], proxy }));
}

/** What the output holds: frames counted, stream durations, and the decoded sound's exact sample count. */
async function measure(file: string) {
  const { stdout } = await execa(ffmpeg.replace(/ffmpeg$/, "ffprobe"), [
    "-v",
    "error",
    "-count_frames",
    "-show_entries",
    "stream=codec_type,codec_name,width,height,nb_read_frames,duration,start_time",
    "-of",
    "json",
    file,
  ]);
  const streams = (JSON.parse(stdout) as { streams: Record<string, string | number>[] }).streams;
  const v = streams.find((x) => x.codec_type === "video")!;
  const a = streams.find((x) => x.codec_type === "audio");
  const pcm = await execa(
    ffmpeg,
    ["-v", "error", "-i", file, "-map", "0:a:0", "-f", "s16le", "-ac", "2", "-"],
    {
      encoding: "buffer",
    },
  );
  const info = await probe(file, media);
  return {
    frames: Number(v.nb_read_frames),
    width: Number(v.width),
    height: Number(v.height),
    videoSeconds: Number(v.duration),
    videoStart: Number(v.start_time),
    audioStart: a ? Number(a.start_time) : null,
    audioSeconds: a ? Number(a.duration) : 0,
    samples: (pcm.stdout as Uint8Array).length / 4,
    duration: info.duration ?? 0,
  };
}

const FRAME = 1 / 24;

describe("assembleEpisode with real clips", () => {
  it("copies every picture when the clips match, and lands exactly on the cut's length", async () => {
    const ep = await s.episode(SHORT);
    await take(ep, "proxy", "sh010", 1, { tone: 300 });
    await take(ep, "proxy", "sh020", 1, { frames: 24, tone: 500, wav: true });
    await take(ep, "proxy", "sh030", 1, { tone: 700 });
    const answer = await assembleEpisode(s.env.services, ep, "proxy");
    expect(answer).toMatchObject({ ok: true, output: "renders_proxy/e01_proxy.mp4" });
    expect(answer.report).toMatchObject({
      clips: 3,
      frames: 48,
      seconds: 2,
      copied: 3,
      reencoded: 0,
      width: 448,
      height: 256,
      fps: 24,
      size_from: "pass",
      missing: [],
      shots_file: "renders_proxy/e01_proxy_shots.txt",
    });
    const m = await measure(path.join(ep, answer.output!));
    expect(m.frames).toBe(48);
    expect(Math.abs(m.duration - 2)).toBeLessThan(FRAME);
    expect(Math.abs(m.videoSeconds - 2)).toBeLessThan(FRAME);
    // Picture and sound start together (the clips' AAC priming must not push the pictures later).
    expect(m.videoStart).toBe(0);
    expect(m.audioStart).toBe(0);
    // Sound all the way: as long as the picture, sample for sample once decoded (AAC pads its last packet).
    expect(Math.abs(m.audioSeconds - 2)).toBeLessThan(FRAME);
    expect(m.samples).toBeGreaterThanOrEqual(96000);
    expect(m.samples).toBeLessThan(96000 + 2048);
    const shots = await readFile(path.join(ep, "renders_proxy", "e01_proxy_shots.txt"), "utf8");
    expect(shots.split("\n").filter((l) => /^sh\d+\t/.test(l))).toHaveLength(3);
    // Nothing is left behind: no temp folder, no half file.
    expect((await readdir(path.join(ep, "renders_proxy"))).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("re-encodes only the 30 fps and the other-size clips; a mute clip keeps its picture over silence", async () => {
    const ep = await s.episode(SHORT);
    await take(ep, "proxy", "sh010", 1, { fps: 30, frames: 15 });
    await take(ep, "proxy", "sh020", 1, { tone: 0 });
    await take(ep, "proxy", "sh030", 1, { width: 640, height: 360 });
    const progress: number[] = [];
    const answer = await assembleEpisode(
      s.env.services,
      ep,
      "proxy",
      {},
      {
        progress: (u) => progress.push(u.progress),
      },
    );
    expect(answer.ok, answer.error).toBe(true);
    expect(answer.report.rows.map((r) => [r.shot, r.picture, r.frames])).toEqual([
      ["sh010", "re-encoded", 12],
      ["sh020", "copied", 12],
      ["sh030", "re-encoded", 12],
    ]);
    expect(answer.report.rows[0].why).toMatch(/^re-encoded: 30 fps \(the cut is 24\)/);
    expect(answer.report.rows[1].sound).toBe("silence (the take has no sound)");
    expect(answer.report.rows[2].why).toMatch(/640x360 \(the cut is 448x256\)/);
    expect(answer.report).toMatchObject({ copied: 1, reencoded: 2, frames: 36 });
    expect(progress.at(-1)).toBe(1);
    const m = await measure(path.join(ep, answer.output!));
    expect(m).toMatchObject({ frames: 36, width: 448, height: 256 });
    expect(Math.abs(m.duration - 1.5)).toBeLessThan(FRAME);
    expect(Math.abs(m.audioSeconds - 1.5)).toBeLessThan(FRAME);
    expect(m.samples).toBeGreaterThanOrEqual(72000);
  });

  it("applies trims at the episode rate and plays a placeholder from the final pass", async () => {
    const ep = await s.episode(SHORT);
    await take(ep, "proxy", "sh010", 1, { frames: 24 });
    await take(ep, "final", "sh020", 3, { width: 448, height: 256 });
    await take(ep, "proxy", "sh030", 1);
    await setCut(ep, [
      { shot: "sh010", trim_in: 4, trim_out: 5 },
      { shot: "sh020", pass: "final" },
      { shot: "sh030", out: true },
    ]);
    const answer = await assembleEpisode(s.env.services, ep, "proxy");
    expect(answer.ok, answer.error).toBe(true);
    expect(answer.report.rows.map((r) => [r.shot, r.status, r.pass, r.take, r.frames])).toEqual([
      ["sh010", "used", "proxy", 1, 15],
      ["sh020", "used", "final", 3, 12],
      ["sh030", "out", "proxy", 1, null],
    ]);
    expect(answer.report.out).toEqual(["sh030"]);
    const m = await measure(path.join(ep, answer.output!));
    expect(m.frames).toBe(27);
    expect(Math.abs(m.duration - 27 / 24)).toBeLessThan(FRAME);
  });

  it("lays the sound the cut asks for: none, or another take's sound from an offset", async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) await take(ep, "proxy", shot, 1);
    await setCut(ep, [
      { shot: "sh010" },
      { shot: "sh020", audio: { source: "none" } },
      { shot: "sh030", audio: { source: "take", shot: "sh010", take: 1, pass: "proxy", offset: 0.25 } },
    ]);
    const answer = await assembleEpisode(s.env.services, ep, "proxy");
    expect(answer.ok, answer.error).toBe(true);
    expect(answer.report.rows.map((r) => r.sound)).toEqual([
      "its own sound",
      "silence (the cut asks for none)",
      "sound of sh010 t01 (proxy)",
    ]);
    expect(answer.report.reencoded).toBe(0);
    const pcm = await execa(
      ffmpeg,
      ["-v", "error", "-i", path.join(ep, answer.output!), "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-"],
      { encoding: "buffer" },
    );
    const buf = Buffer.from(pcm.stdout as Uint8Array);
    // Loudness of a window (seconds), a little inside its edges so AAC's smearing at a cut does not count.
    const rms = (from: number, to: number) => {
      let sum = 0;
      const a = Math.round((from + 0.02) * 48000);
      const b = Math.round((to - 0.02) * 48000);
      for (let i = a; i < b; i++) sum += buf.readInt16LE(i * 2) ** 2;
      return Math.sqrt(sum / (b - a));
    };
    expect(rms(0, 0.5)).toBeGreaterThan(1000);
    expect(rms(0.5, 1)).toBeLessThan(50);
    expect(rms(1, 1.25)).toBeLessThan(50);
    expect(rms(1.25, 1.5)).toBeGreaterThan(1000);
  });

  it("refuses a cut with a missing shot unless partial, and says why it is missing", async () => {
    const ep = await s.episode(SHORT);
    await take(ep, "proxy", "sh010", 1);
    await s.take(ep, "proxy", "sh020", 1, { status: "queued" });
    await take(ep, "proxy", "sh030", 1);
    const refused = await assembleEpisode(s.env.services, ep, "proxy");
    expect(refused).toMatchObject({ ok: false, output: null });
    expect(refused.error).toBe(
      "1 shot of the cut has no usable take: sh020 (no finished take yet: t01 is still rendering). Render it, or assemble with partial to leave it out",
    );
    expect(refused.report.missing).toEqual(["sh020"]);
    expect(refused.report.rows[1]).toMatchObject({ shot: "sh020", status: "missing", take: null });
    expect(await readdir(path.join(ep, "renders_proxy"))).not.toContain("e01_proxy.mp4");

    const partial = await assembleEpisode(s.env.services, ep, "proxy", { partial: true });
    expect(partial).toMatchObject({ ok: true, output: "renders_proxy/e01_proxy.mp4" });
    expect(partial.report).toMatchObject({ clips: 2, frames: 24, missing: ["sh020"] });
    const shots = await readFile(path.join(ep, "renders_proxy", "e01_proxy_shots.txt"), "utf8");
    expect(shots).toMatch(/# missing: sh020\t-\tproxy\tno finished take yet/);
  });

  it("sets the cut's size on request, letterboxing another aspect", async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) await take(ep, "proxy", shot, 1);
    const answer = await assembleEpisode(s.env.services, ep, "proxy", { size: { width: 320, height: 240 } });
    expect(answer.ok, answer.error).toBe(true);
    expect(answer.report).toMatchObject({ width: 320, height: 240, size_from: "request", reencoded: 3 });
    const m = await measure(path.join(ep, answer.output!));
    expect(m).toMatchObject({ frames: 36, width: 320, height: 240 });
  });

  it("answers ok: false for an unbuilt pass and for a cut with nothing usable", async () => {
    const unbuilt = await s.episode(SHORT, { build: false });
    expect(await assembleEpisode(s.env.services, unbuilt, "final")).toMatchObject({
      ok: false,
      error: "the final pass has not been built yet: build the episode first",
    });
    const empty = await s.episode(SHORT);
    const answer = await assembleEpisode(s.env.services, empty, "proxy", { partial: true });
    expect(answer).toMatchObject({ ok: false, output: null });
    expect(answer.error).toBe("nothing to assemble: no shot of the proxy cut has a usable take");
    expect(answer.report.missing).toEqual(["sh010", "sh020", "sh030"]);
  });
});

// ------------------------------------------------------------------------------------------- the route

describe("POST /studio/assemble", () => {
  it("assembles through an assemble job on the built-in lane and answers when it ends", async () => {
    const ep = await s.episode(SHORT);
    for (const shot of ["sh010", "sh020", "sh030"]) await take(ep, "proxy", shot, 1);
    expect((await s.call("GET", "/assemble/last", { ep, pass: "proxy" })).body).toEqual({ assembled: null });
    const { status, body } = await s.call("POST", "/assemble", { ep, pass: "proxy" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["ok", "output", "report"]);
    expect(body).toMatchObject({ ok: true, output: "renders_proxy/e01_proxy.mp4" });
    expect(body.report).toMatchObject({ clips: 3, frames: 36, copied: 3, reencoded: 0 });
    const jobs = (await store.list()).jobs.filter((j) => j.kind === "assemble" && j.info.ep === ep);
    expect(jobs.map((j) => [j.lane, j.status])).toEqual([["builtin", "succeeded"]]);
    // A page opened later finds the cut where assembling wrote it; the other pass has none.
    const last = await s.call("GET", "/assemble/last", { ep, pass: "proxy" });
    expect(last.body.assembled).toMatchObject({
      output: "renders_proxy/e01_proxy.mp4",
      shots_file: "renders_proxy/e01_proxy_shots.txt",
      modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await s.call("GET", "/assemble/last", { ep, pass: "final" })).body).toEqual({ assembled: null });
    refusal(await s.call("GET", "/assemble/last", { ep, pass: "draft" }), 400, /^pass: /);
    // The answer file was taken by the route.
    expect((await readdir(path.join(ep, "renders_proxy"))).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("answers 200 ok: false with the report when a shot is missing, and fails the job", async () => {
    const ep = await s.episode(SHORT);
    await take(ep, "proxy", "sh010", 1);
    const { status, body } = await s.call("POST", "/assemble", { ep });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, output: null });
    expect(body.error).toMatch(/^2 shots of the cut have no usable take: sh020 \(not rendered yet\), sh030/);
    expect(body.report.rows.map((r: { status: string }) => r.status)).toEqual(["used", "missing", "missing"]);
    const jobs = (await store.list()).jobs.filter((j) => j.kind === "assemble" && j.info.ep === ep);
    expect(jobs.map((j) => j.status)).toEqual(["failed"]);
  });

  it("answers ok: false at once while the built-in lane is paused, instead of waiting on it", async () => {
    const ep = await s.episode(SHORT);
    await store.pause("builtin", true);
    try {
      const { status, body } = await s.call("POST", "/assemble", { ep });
      expect(status).toBe(200);
      expect(body).toEqual({
        ok: false,
        output: null,
        report: null,
        error: expect.stringMatching(/lane is paused/),
      });
    } finally {
      await store.pause("builtin", false);
    }
  });

  it("answers 400 for a bad pass, size or flag", async () => {
    const ep = await s.episode(SHORT, { build: false });
    refusal(await s.call("POST", "/assemble", { ep, upscaled: "yes" }), 400, /^upscaled: /);
    refusal(await s.call("POST", "/assemble", { ep, publish: 1 }), 400, /^publish: /);
    refusal(await s.call("POST", "/assemble", { ep, pass: "draft" }), 400, /^pass: /);
    refusal(await s.call("POST", "/assemble", { ep, size: "640x361" }), 400, /both sides must be even/);
    refusal(await s.call("POST", "/assemble", { ep, size: "big" }), 400, /is not WxH/);
    refusal(await s.call("POST", "/assemble", { ep, size: "8x8" }), 400, /between 16 and 8192/);
    refusal(await s.call("POST", "/assemble", { ep, partial: "yes" }), 400, /^partial: /);
  });

  it("answers 500 naming what to install when there are no media tools", async () => {
    const ep = await s.episode(SHORT, { build: false });
    const saved = { ...s.env.services.env };
    Object.assign(s.env.services.env, { FFMPEG_PATH: path.join(s.root, "no-ffmpeg"), PATH: "" });
    try {
      refusal(await s.call("POST", "/assemble", { ep }), 500, /^no media tools: /);
    } finally {
      Object.assign(s.env.services.env, saved);
    }
  });
});
