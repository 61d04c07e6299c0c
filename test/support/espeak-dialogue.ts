// An episode with recorded dialogue for the aligner's tests: three lines spoken by espeak-ng, each trimmed of its own
// silence and joined by ffmpeg with known gaps into `audio/dialogue.wav`, set as the series track (POST
// /studio/track), and a worker pool running the `align` job. The engines are found on the test process's PATH.
import { execFile } from "node:child_process";
import { copyFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { WorkerPool } from "../../workers/pool.ts";
import { startTestPool } from "./jobs.ts";
import { seriesS } from "./series-s.ts";
import { makeStudio, type Studio } from "./studio-episode.ts";

const run = promisify(execFile);

export const LINES = [
  { shot: "sh010", who: "ADA", text: "Hello there, where is the kettle?" },
  { shot: "sh020", who: "BO", text: "It is on the table by the window." },
  { shot: "sh030", who: "CY", text: "Thank you. I am hungry and tired." },
];
/** Silence before the first line, and between lines, seconds. */
const LEAD = 0.6;
const GAP = 1.2;

export const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  ...LINES.flatMap((l) => [
    `## ${l.shot}`,
    `who: ${l.who.toLowerCase()}`,
    "dur: auto",
    `${l.who}: ${l.text}`,
    "",
  ]),
].join("\n");

/** The episode's recording, relative to it, as POST /studio/track places it. */
export const RECORDING = "audio/dialogue.wav";

export interface DialogueStudio {
  s: Studio;
  ep: string;
  /** Where each line's speech starts in the recording, seconds. */
  starts: number[];
  stop(): Promise<void>;
}

async function seconds(file: string): Promise<number> {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration",
    "-of",
    "csv=p=0",
    file,
  ]);
  return Number(stdout.trim());
}

/** The three lines spoken, each trimmed of its own silence, joined with LEAD then GAP of silence between. */
async function speak(dir: string): Promise<{ file: string; starts: number[] }> {
  const parts: string[] = [];
  const starts: number[] = [];
  let t = LEAD;
  for (const [i, l] of LINES.entries()) {
    const raw = path.join(dir, `raw${i}.wav`);
    const trimmed = path.join(dir, `line${i}.wav`);
    await run("espeak-ng", ["-s", "150", "-w", raw, l.text]);
    const trim = "silenceremove=start_periods=1:start_threshold=-45dB";
    await run("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-i",
      raw,
      "-af",
      `${trim},areverse,${trim},areverse`,
      "-ar",
      "22050",
      "-ac",
      "1",
      trimmed,
    ]);
    starts.push(t);
    t += (await seconds(trimmed)) + GAP;
    parts.push(trimmed);
  }
  const out = path.join(dir, "dialogue.wav");
  const silence = (d: number) => ["-f", "lavfi", "-t", String(d), "-i", "anullsrc=r=22050:cl=mono"];
  const inputs = [
    ...silence(LEAD),
    ...parts.flatMap((p, i) => ["-i", p, ...(i < parts.length - 1 ? silence(GAP) : silence(LEAD))]),
  ];
  const n = 1 + parts.length * 2;
  const labels = Array.from({ length: n }, (_, i) => `[${i}]`).join("");
  await run("ffmpeg", [
    "-v",
    "error",
    "-y",
    ...inputs,
    "-filter_complex",
    `${labels}concat=n=${n}:v=0:a=1`,
    out,
  ]);
  return { file: out, starts };
}

/** The studio, its built episode with the spoken recording as its track, and a running pool; `stop` ends both. */
export async function dialogueStudio(): Promise<DialogueStudio> {
  const s = await makeStudio();
  let pool: WorkerPool | undefined;
  try {
    s.env.services.env.PATH = process.env.PATH;
    const ep = await s.episode(SCRIPT, { series: seriesS() });
    const spoken = await speak(s.env.dir);
    const dest = path.join(path.dirname(ep), path.basename(RECORDING));
    await copyFile(spoken.file, dest);
    const track = await s.call("POST", "/track", { ep, source_path: dest });
    if (track.status !== 200) throw new Error(`POST /studio/track: ${JSON.stringify(track.body)}`);
    const store = await s.env.services.jobs();
    pool = startTestPool(s.env.services, store, await s.env.services.jobKinds());
    const started = pool;
    s.env.events.length = 0;
    return {
      s,
      ep,
      starts: spoken.starts,
      async stop() {
        await started.stop();
        await s.cleanup();
      },
    };
  } catch (err) {
    await pool?.stop();
    await s.cleanup();
    throw err;
  }
}
