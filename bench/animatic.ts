// Animatic benchmark: one proxy shot from POST /studio/render to its `ok` event (mp4, thumbnail, strip and sidecar
// written), against a single ffmpeg encode of the same length and size with a caption; prints both and the ratio.
import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import WebSocket from "ws";
import { starterShow, startListening } from "./process.ts";

const run$ = promisify(execFile);
const RUNS = 5;
const GOAL = 2;

interface Shape {
  shot: string;
  length: number;
  fps: number;
  width: number;
  height: number;
}

/** The encode a take is compared to: a still with a caption over it, silent stereo AAC, H.264 like the animatic's. */
async function singleEncode(dir: string, row: Shape) {
  const { default: sharp } = await import("sharp");
  const caption = path.join(dir, "caption.png");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${row.width}" height="24"><text x="8" y="18" font-family="sans-serif" font-size="14" fill="#fff">RILEY: There's gold at the end of the path.</text></svg>`;
  await writeFile(caption, await sharp(Buffer.from(svg)).png().toBuffer());
  const out = path.join(dir, "single.mp4");
  const t0 = performance.now();
  await run$("ffmpeg", [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-loglevel",
    "error",
    "-f",
    "lavfi",
    "-i",
    `color=c=#30343c:s=${row.width}x${row.height}:r=${row.fps}`,
    "-i",
    caption,
    "-f",
    "lavfi",
    "-i",
    "anullsrc=r=48000:cl=stereo",
    "-filter_complex",
    `[0:v][1:v]overlay=0:${row.height - 32},trim=end_frame=${row.length},format=yuv420p[v]`,
    "-map",
    "[v]",
    "-map",
    "2:a",
    "-t",
    (row.length / row.fps).toFixed(6),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-c:a",
    "aac",
    "-f",
    "mp4",
    out,
  ]);
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(): Promise<void> {
  const { dir, ep, env } = await starterShow("animatic");
  const server = await startListening(["runtime/serve.js", "--port", "0"], env);
  const api = async <T>(method: "GET" | "POST", route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/studio${route}`, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${method} ${route}: ${answer.error ?? res.status}`);
    return answer;
  };
  const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws`);
  const waiting = new Map<string, (status: string) => void>();
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data)) as { type: string; data: Record<string, unknown> };
    if (frame.type !== "studio.take" || frame.data.status === "queued") return;
    waiting.get(`${String(frame.data.shot)}#${String(frame.data.take)}`)?.(String(frame.data.status));
  });
  try {
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    await api("POST", "/build", { ep });
    const episode = await api<{
      fps: number;
      width: number;
      height: number;
      shots: { shot: string; length: number }[];
    }>("GET", `/episode?ep=${encodeURIComponent(ep)}&pass=proxy`);
    // The starter's first shot: about 3 s, action only.
    const row = episode.shots[0];
    const { fps, width, height } = episode;
    const { length } = row;
    const take = async (shot = row.shot) => {
      const t0 = performance.now();
      let resolve: (status: string) => void = () => {};
      const done = new Promise<string>((r) => {
        resolve = r;
      });
      const answer = await api<{ queued: { take: number; prompt_id: string }[] }>("POST", "/render", {
        ep,
        pass: "proxy",
        shots: [shot],
        redo: true,
      });
      const n = answer.queued[0]?.take;
      if (n === undefined) throw new Error(`${shot} was not queued: ${JSON.stringify(answer)}`);
      waiting.set(`${shot}#${n}`, resolve);
      const status = await done;
      const total = performance.now() - t0;
      const okAt = Date.now();
      if (status !== "ok") throw new Error(`${shot} take ${n} ended ${status}`);
      // Where the time went, from the job's own record: waiting for a worker, then running.
      const { jobs } = await api<{
        jobs: { id: string; created: string; started: string }[];
      }>("GET", "/jobs");
      const j = jobs.find((x) => x.id === answer.queued[0].prompt_id);
      if (j && shot === row.shot) {
        handOver.push(Date.parse(j.started) - Date.parse(j.created));
        running.push(okAt - Date.parse(j.started));
      }
      return total;
    };
    const handOver: number[] = [];
    const running: number[] = [];
    const scratch = path.join(dir, "single");
    await mkdir(scratch, { recursive: true });
    const single = { length, fps, width, height, shot: row.shot };
    // One of each first: the server compiles and loads on first use, the page cache warms.
    await take();
    await singleEncode(scratch, single);
    const takes: number[] = [];
    const encodes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      encodes.push(await singleEncode(scratch, single));
      takes.push(await take());
    }
    // A shot with a line: the built-in voice speaks it first (espeak-ng and one more ffmpeg run to lay it out).
    const spoken = episode.shots.find((x) => x.shot === "sh020");
    const voiced: number[] = [];
    if (spoken) for (let i = 0; i < RUNS; i++) voiced.push(await take(spoken.shot));
    const t = median(takes);
    const e = median(encodes);
    console.log(
      `animatic: ${row.shot}, ${length} frames at ${fps} fps, ${width}x${height}; median of ${RUNS} (load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`,
    );
    console.log(`  single ffmpeg encode with a caption       ${e.toFixed(0).padStart(6)} ms`);
    console.log(
      `  POST /studio/render to the take's ok      ${t.toFixed(0).padStart(6)} ms  min ${Math.min(...takes).toFixed(0)}  max ${Math.max(...takes).toFixed(0)}`,
    );
    if (handOver.length)
      console.log(
        `    of which waiting for a worker ${median(handOver).toFixed(0)} ms, then the job to its ok ${median(running).toFixed(0)} ms`,
      );
    console.log(`  ratio ${(t / e).toFixed(2)}x (goal ${GOAL}x)`);
    if (spoken)
      console.log(
        `  ${spoken.shot} (${spoken.length} frames, one line in the built-in voice) to its ok ${median(voiced).toFixed(0)} ms`,
      );
  } finally {
    ws.close();
    server.child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}
