// Waveform peaks benchmark: a generated 30-minute track (2.5 s of tone then 1.5 s of silence, over and over), as a
// 48 kHz 16-bit wav (read in-process) and as an m4a (decoded by ffmpeg), asked through the app at 2000 bins: cold
// (decoded, nothing cached), from the disk cache (another process's first ask) and warm (in memory), with the ratio
// warm/cold. Goal: warm under 20 ms. Figures only, never pass/fail.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { functions } from "../functions/index.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { createApp } from "../runtime/app.ts";
import { benchServices } from "./show.ts";
import { line, type Timing, time } from "./stats.ts";

const MINUTES = 30;
const BINS = 2000;
const GOAL_MS = 20;
const COLD_RUNS = 3;

export async function run(): Promise<void> {
  const { ffmpeg } = await mediaTools(createMediaTools(() => ({ PATH: process.env.PATH })));
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-bench-peaks-"));
  try {
    const ep = path.join(dir, "show", "pk01");
    await mkdir(path.join(ep, "audio"), { recursive: true });
    await writeFile(path.join(ep, "series.json"), JSON.stringify({ series: { id: "bench" } }));
    await writeFile(path.join(ep, "pk01.md"), "= pk01  Peaks\n");
    const seconds = MINUTES * 60;
    const speech = `sine=frequency=220:sample_rate=48000:duration=${seconds},volume='if(lt(mod(t,4),2.5),1,0)':eval=frame`;
    const made = performance.now();
    await execa(ffmpeg, [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      speech,
      "-c:a",
      "pcm_s16le",
      `${ep}/audio/track.wav`,
    ]);
    await execa(
      ffmpeg,
      ["-v", "error", "-y", "-i", `${ep}/audio/track.wav`, "-c:a", "aac", "-b:a", "64k"].concat(
        `${ep}/audio/track.m4a`,
      ),
    );
    console.log(
      `peaks: a ${MINUTES}-minute track made in ${((performance.now() - made) / 1000).toFixed(1)} s`,
    );

    let n = 0;
    const env = { PATH: process.env.PATH, STUDIO_ROOTS: dir };
    const fresh = () => {
      const services = benchServices(path.join(dir, `home${n++}`), env);
      return { services, app: createApp(services, functions) };
    };
    const ask = async (app: ReturnType<typeof createApp>, rel: string) => {
      const query = new URLSearchParams({ ep, path: rel, bins: String(BINS) });
      const res = await app.request(`http://127.0.0.1/studio/peaks?${query}`, {
        headers: { host: "127.0.0.1" },
      });
      const body = (await res.json()) as { peaks?: number[]; error?: string };
      if (res.status !== 200 || body.peaks?.length !== BINS)
        throw new Error(`peaks answered ${res.status}: ${body.error}`);
    };

    for (const rel of ["audio/track.wav", "audio/track.m4a"]) {
      const cold: number[] = [];
      for (let i = 0; i < COLD_RUNS; i++) {
        await rm(path.join(ep, "_cache"), { recursive: true, force: true });
        const { services, app } = fresh();
        const t0 = performance.now();
        await ask(app, rel);
        cold.push(performance.now() - t0);
        await services.close();
      }
      // Another process: the disk cache is there, its memory is empty.
      const disk: number[] = [];
      for (let i = 0; i < COLD_RUNS; i++) {
        const { services, app } = fresh();
        const t0 = performance.now();
        await ask(app, rel);
        disk.push(performance.now() - t0);
        await services.close();
      }
      const { services, app } = fresh();
      await ask(app, rel);
      const warm = await time(() => ask(app, rel), 50, 5);
      await services.close();
      const c = summarize(cold);
      console.log(`peaks of ${rel} (${MINUTES} min) at ${BINS} bins:`);
      console.log(line("  cold (decoded, nothing cached)", c));
      console.log(line("  from the disk cache (fresh memory)", summarize(disk)));
      console.log(line("  warm (in memory)", warm, GOAL_MS));
      console.log(`  warm/cold ratio ${(warm.median / c.median).toFixed(4)}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], runs: s.length };
}
