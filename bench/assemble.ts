// Assembly benchmark: a built 100-shot episode whose proxy takes all match the cut (12 frames at 24 fps, AAC);
// the assembler's stream-copy join against a full re-encode join of the same clips, at 256x144 and, for scale,
// at the final pass's 1344x768 (a copy join costs the same at any size, a re-encode grows with the picture); and a
// first assembly in a new process before and after the probe cache (takes probed by their render jobs), same run.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import { buildFolder } from "../lib/episode/run-build.ts";
import { concatList, videoCodecArgs } from "../lib/media/assemble-args.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { probeCacheDir, probeClipCached } from "../lib/media/probe-cache.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { createCaches } from "../lib/store/caches.ts";
import { mapLimit } from "../lib/store/map-limit.ts";
import { benchServices } from "./show.ts";
import { line, type Timing, time } from "./stats.ts";
import { testClip } from "./test-clip.ts";

const SHOTS = 100;
const FRAMES = 12;
const FPS = 24;
const AUDIO = ["-c:a", "aac", "-ar", "48000", "-ac", "2"];

function script(): string {
  const out = ["= asm01  Joins", "", "# sq01  kitchen", ""];
  for (let i = 1; i <= SHOTS; i++) out.push(`## ${shotId(i - 1)}`, `dur: ${FRAMES / FPS}`, "Ada waits.", "");
  return out.join("\n");
}

const shotId = (i: number) => `sh${String((i + 1) * 10).padStart(4, "0")}`;

interface Episode {
  ep: string;
  files: string[];
  services: Parameters<typeof assembleEpisode>[0] & Parameters<typeof buildFolder>[0];
}

/** A built episode whose every proxy take is the same matching clip of `width`x`height`. */
async function episode(dir: string, ffmpeg: string, width: number, height: number): Promise<Episode> {
  const env = { PATH: process.env.PATH };
  const ep = path.join(dir, "show", `asm${width}`);
  await mkdir(ep, { recursive: true });
  const series = {
    series: { id: "bench", title: "Bench", fps: FPS, width: 1344, height: 768 },
    proxy: { width, height },
    style: { look: "a flat 2D cartoon" },
    audio: { mode: "generate" },
    subjects: { ada: { name: "Ada", design: "a tall woman in a green raincoat" } },
    locations: { kitchen: { description: "a cramped kitchen at night" } },
  };
  await writeFile(path.join(ep, "series.json"), JSON.stringify(series, null, 2));
  await writeFile(path.join(ep, `asm${width}.md`), script());
  const services = benchServices(path.join(dir, "home"), env);
  const built = await buildFolder(services, ep);
  if (!built.ok) throw new Error(`the bench episode does not build: ${built.error}`);

  // One clip made with ffmpeg, copied as every shot's take (same bytes: the join cannot tell).
  const clip = path.join(dir, `clip${width}.mp4`);
  await testClip(ffmpeg, clip, { width, height, frames: FRAMES, fps: FPS });
  // Takes from the engines carry their sound as `<stem>_h3.wav` too; the assembler reads that.
  const wav = path.join(dir, `clip${width}.wav`);
  await execa(ffmpeg, ["-v", "error", "-i", clip, "-vn", "-c:a", "pcm_s16le", wav]);
  const files = await mapLimit(
    [...Array(SHOTS)].map((_, i) => shotId(i)),
    8,
    async (shot) => {
      const folder = path.join(ep, "renders_proxy", shot);
      await mkdir(folder, { recursive: true });
      const stem = `${shot}_t01`;
      const sidecar = { version: 1, shot, take: 1, pass: "proxy", status: "ok", frames: FRAMES, fps: FPS };
      await writeFile(path.join(folder, `${stem}.json`), JSON.stringify(sidecar));
      await copyFile(clip, path.join(folder, `${stem}.mp4`));
      await copyFile(wav, path.join(folder, `${stem}_h3.wav`));
      return path.join(folder, `${stem}.mp4`);
    },
  );
  return { ep, files, services };
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: sorted.length };
}

/**
 * A first assembly in a process of its own (empty caches), alternating: with no probe remembered (every take
 * asked of ffprobe), then with every take probed as its render job does when it closes it.
 */
async function firstAssemblies(e: Episode, runs: number): Promise<[Timing, Timing]> {
  const cacheDir = probeCacheDir(e.services.home);
  const first = async () => {
    const t0 = performance.now();
    const answer = await assembleEpisode({ ...e.services, caches: createCaches() }, e.ep, "proxy");
    if (!answer.ok) throw new Error(`the bench cut does not assemble: ${answer.error}`);
    if (answer.report.reencoded !== 0) throw new Error("the bench clips were expected to match the cut");
    return performance.now() - t0;
  };
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < runs; i++) {
    await rm(cacheDir, { recursive: true, force: true });
    before.push(await first());
    await rm(cacheDir, { recursive: true, force: true });
    const renderJob = { ...e.services, caches: createCaches() };
    await mapLimit(e.files, 2, (file) => probeClipCached(renderJob, file));
    after.push(await first());
  }
  return [timing(before), timing(after)];
}

/** The assembler's join of matching clips, and one ffmpeg re-encoding the same clips into one file. */
async function joins(e: Episode, ffmpeg: string, dir: string, runs: number): Promise<[Timing, Timing]> {
  await assembleEpisode(e.services, e.ep, "proxy");
  const copy = await time(() => assembleEpisode(e.services, e.ep, "proxy"), runs, 1);
  const list = path.join(dir, "all.ffconcat");
  await writeFile(
    list,
    concatList(
      e.files.map((file) => ({ file, frames: FRAMES })),
      FPS,
    ),
  );
  const args = ["-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list];
  const out = [...videoCodecArgs("draft"), ...AUDIO, path.join(dir, "full.mp4")];
  const full = await time(() => execa(ffmpeg, [...args, ...out]), Math.min(runs, 3), 1);
  return [copy, full];
}

export async function run(): Promise<void> {
  const { ffmpeg } = await mediaTools(createMediaTools(() => ({ PATH: process.env.PATH })));
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-assemble-"));
  try {
    const small = await episode(dir, ffmpeg, 256, 144);
    const [before, after] = await firstAssemblies(small, 3);
    const [copy, full] = await joins(small, ffmpeg, dir, 5);
    // Every clip made to need a re-encode (another size): the per-clip path, then the same join.
    const perClip = await time(
      () => assembleEpisode(small.services, small.ep, "proxy", { size: { width: 254, height: 144 } }),
      1,
      0,
    );
    const large = await episode(dir, ffmpeg, 1344, 768);
    const [copyL, fullL] = await joins(large, ffmpeg, dir, 1);

    console.log(
      `assemble (${SHOTS} matching clips of ${FRAMES} frames at ${FPS} fps, ${(SHOTS * FRAMES) / FPS} s)`,
    );
    console.log(line("  256x144 first assembly, every take probed", before));
    console.log(line("  256x144 first assembly, probed at render", after));
    console.log(`  256x144 first assembly before / after: ${(before.median / after.median).toFixed(2)}x`);
    console.log(line("  256x144 stream-copy join (probes in memory)", copy));
    console.log(line("  256x144 full re-encode join (one ffmpeg)", full));
    console.log(`  256x144 full re-encode / stream copy: ${(full.median / copy.median).toFixed(2)}x`);
    console.log(line("  256x144 every clip re-encoded, then joined", perClip));
    console.log(line("  1344x768 stream-copy join", copyL));
    console.log(line("  1344x768 full re-encode join", fullL));
    console.log(`  1344x768 full re-encode / stream copy: ${(fullL.median / copyL.median).toFixed(2)}x`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
