// Reference library benchmark, through a real server process on loopback: GET /studio/refs on a show of 40
// references with 20 candidates each (real small PNG and WAV takes added through the take store), warm, beside
// GET /studio/episode on the same show; and the server's memory while a 64 MB picture is uploaded to
// POST /studio/refs/import, beside a 1 MB one. Figures and ratios to the goals, never pass/fail.
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { Agent, request } from "undici";
import { buildFolder } from "../lib/episode/run-build.ts";
import { readRefId } from "../lib/refs/ids.ts";
import { refsPlace } from "../lib/refs/place.ts";
import { addTake } from "../lib/refs/takes.ts";
import { startListening } from "./process.ts";
import { benchServices } from "./show.ts";

const CANDIDATES = 20;
const WARM_RUNS = 200;
const CHARACTERS = ["ada", "bo", "cy", "dee", "eli", "fen", "gus", "hana", "ivo", "juno", "kit", "lou"];
const PROPS = ["kettle", "lamp", "radio", "umbrella", "bike", "suitcase", "clock", "phone"];
const LOCATIONS = ["kitchen", "street", "stairwell", "rooftop", "laundromat", "bus", "park", "office"];
const BIG_UPLOAD = 64 * 1024 * 1024;
/** Uploads of each size: when the server's collector runs varies, so the worst of these is the figure. */
const UPLOADS = 3;

/** 12 characters with voices (24 references), 8 props and 8 locations: 40 references. */
function series() {
  const subjects: Record<string, unknown> = {};
  CHARACTERS.forEach((id, i) => {
    subjects[id] = {
      name: id[0].toUpperCase() + id.slice(1),
      design: `character ${i + 1}: a ${["tall", "short", "wiry", "broad"][i % 4]} person in a ${["green", "red", "grey", "blue"][i % 4]} coat`,
      sheet: `refs/${id}/${id}_sheet_4panel.png`,
      voice: ["dry", "warm", "high", "low"][i % 4],
      voice_sample: `audio/voices/${id}.wav`,
    };
  });
  for (const id of PROPS)
    subjects[id] = { kind: "prop", name: `the ${id}`, design: `a worn ${id}`, sheet: `refs/props/${id}.png` };
  const locations: Record<string, unknown> = {};
  for (const id of LOCATIONS)
    locations[id] = { description: `the ${id} at night`, plate: `refs/_bg/${id}.png` };
  return {
    series: { id: "bench", title: "Bench", fps: 24, width: 1344, height: 768 },
    proxy: { width: 448, height: 256, audio_mode: "generate" },
    style: { look: "a flat 2D cartoon" },
    audio: { mode: "generate" },
    subjects,
    locations,
  };
}

/** One sequence per location, five shots each, two characters and a prop in turn, with dialogue. */
function script(ep: string): string {
  const out = [`= ${ep}  A Long Night`, ""];
  LOCATIONS.forEach((loc, q) => {
    out.push(`# sq${String(q + 1).padStart(2, "0")}  ${loc}`, "");
    for (let s = 0; s < 5; s++) {
      const a = CHARACTERS[(q * 5 + s) % CHARACTERS.length];
      const b = CHARACTERS[(q * 5 + s + 5) % CHARACTERS.length];
      out.push(`## sh${q + 1}${s + 1}0`, `who: ${a}, ${b}`);
      if (s % 2 === 0) out.push(`with: ${PROPS[(q + s) % PROPS.length]}`);
      out.push(
        `size: ${["ws", "ms", "cu", "fs", "ms"][s]}`,
        `dur: ${2 + (s % 3)}`,
        `${a.toUpperCase()}: We should go before the rain, take ${s}.`,
        `${b.toUpperCase()} (quietly): Not yet.`,
        "They look at each other across the room.",
        "",
      );
    }
  });
  return out.join("\n");
}

/** A mono 16-bit WAV of `ms` milliseconds of a tone: a real small sound file. */
function wav(ms: number, hz: number): Buffer {
  const rate = 16000;
  const n = Math.round((rate * ms) / 1000);
  const b = Buffer.alloc(44 + n * 2);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + n * 2, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)), 44 + i * 2);
  return b;
}

const png = (w: number, h: number, seed: number) =>
  sharp({
    create: {
      width: w,
      height: h,
      channels: 3,
      background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: (seed * 53) % 256 },
    },
  })
    .png()
    .toBuffer();

interface Show {
  dir: string;
  root: string;
  ep: string;
  env: Record<string, string>;
}

/** The show folder with the series config, two built episodes sharing it, and every reference's candidates. */
export async function makeShow(): Promise<Show> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-bench-refs-")));
  const root = path.join(dir, "shows");
  const show = path.join(root, "show");
  const home = path.join(dir, "home");
  await mkdir(show, { recursive: true });
  await writeFile(path.join(show, "series.json"), JSON.stringify(series(), null, 2));
  const services = benchServices(home, { STUDIO_ROOTS: root });
  const eps: string[] = [];
  for (const name of ["ep01", "ep02"]) {
    const ep = path.join(show, name);
    await mkdir(ep);
    await writeFile(path.join(ep, `${name}.md`), script(name));
    const built = await buildFolder(services, ep);
    if (!built.ok) throw new Error(`the bench episode ${name} does not build: ${built.error}`);
    eps.push(ep);
  }
  const place = await refsPlace(services, eps[0]);
  const ids = [
    ...CHARACTERS.map((c) => `subject:${c}`),
    ...PROPS.map((p) => `subject:${p}`),
    ...LOCATIONS.map((l) => `location:${l}`),
    ...CHARACTERS.map((c) => `voice:${c}`),
  ];
  let n = 0;
  await Promise.all(
    ids.map(async (text, r) => {
      const ref = readRefId(text)!;
      const character = CHARACTERS.includes(ref.name) && ref.family === "subject";
      for (let i = 0; i < CANDIDATES; i++) {
        const seed = r * 100 + i;
        const view = character
          ? (["01_threequarter", "02_side", "03_back", "04_face"] as const)[i % 4]
          : null;
        const voice = ref.family === "voice";
        const bytes = voice ? wav(120, 220 + i * 10) : await png(64, 64, seed);
        await addTake(services, place, ref, {
          view,
          ext: voice ? "wav" : "png",
          write: (tmp) => writeFile(tmp, bytes),
          fields: voice
            ? { source: "imported", original_name: `${ref.name}_line${i + 1}.wav` }
            : {
                source: "generated",
                seed: 1_000_000 + seed,
                seed_source: "stable",
                prompt: `${text} ${view ?? ""} take ${i + 1}, a flat 2D cartoon, plain background`,
                model: "flux2_klein_9b.safetensors",
                loras: [],
                steps: 8,
                cfg: 1,
                width: 64,
                height: 64,
                target: "flux2_klein",
                backend_prompt_id: `job-${seed}`,
                save_notes: "ok",
              },
        });
        n++;
      }
    }),
  );
  if (n !== ids.length * CANDIDATES) throw new Error(`added ${n} candidates`);
  return {
    dir,
    root,
    ep: eps[0],
    env: {
      STUDIO_HOME: home,
      STUDIO_ROOTS: root,
      STUDIO_LOG: "warn",
      STUDIO_HOST: "127.0.0.1",
      STUDIO_ROLES: "api",
    },
  };
}

/** A process's CPU time so far in ms (user + system from /proc, ticks of 10 ms), or null where /proc is not there. */
async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (text === null) return null;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** VmRSS and VmHWM of a process in KB, or null where /proc is not there. */
async function memoryKb(pid: number | undefined): Promise<{ rss: number; hwm: number } | null> {
  if (pid === undefined) return null;
  const text = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  if (text === null) return null;
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/** Starts the peak (VmHWM) over from the current RSS; false when the kernel does not let us. */
async function resetPeak(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return false;
  return writeFile(`/proc/${pid}/clear_refs`, "5").then(
    () => true,
    () => false,
  );
}

interface Warm {
  median: number;
  p95: number;
  min: number;
  max: number;
  runs: number;
  /** The server's CPU ms per request over the runs, when known. */
  cpu: number | null;
  bytes: number;
}

/** `runs` requests one after another on one kept-alive connection, after two unmeasured ones. */
async function warm(
  url: string,
  pid: number | undefined,
  headers: Record<string, string> = {},
  runs = WARM_RUNS,
): Promise<Warm> {
  const dispatcher = new Agent({ connections: 1, pipelining: 1 });
  let bytes = 0;
  const once = async () => {
    const res = await request(url, { dispatcher, headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200)
      throw new Error(`${url} answered ${res.statusCode}: ${body.toString().slice(0, 300)}`);
    bytes = body.length;
  };
  await once();
  await once();
  const before = await cpuMs(pid);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await once();
    samples.push(performance.now() - t0);
  }
  const after = await cpuMs(pid);
  await dispatcher.close();
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(runs / 2)],
    p95: samples[Math.floor(runs * 0.95)],
    min: samples[0],
    max: samples[runs - 1],
    runs,
    cpu: before === null || after === null ? null : (after - before) / runs,
    bytes,
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

function warmLine(label: string, w: Warm, base?: Warm, goal?: number): string {
  const ratio = base ? `  ${(w.median / base.median).toFixed(2)}x baseline` : "";
  const toGoal = goal ? `, ${(w.median / goal).toFixed(2)}x of the ${goal} ms goal` : "";
  const cpu = w.cpu === null ? "" : `  server cpu ${w.cpu.toFixed(2)} ms/req`;
  return `  ${label.padEnd(46)} median ${w.median.toFixed(2).padStart(7)} ms  p95 ${w.p95.toFixed(2)}  min ${w.min.toFixed(2)}  max ${w.max.toFixed(2)}  n=${w.runs}  ${kb(w.bytes)}${cpu}${ratio}${toGoal}`;
}

/** A picture of about `bytes` bytes that a decoder reads: random pixels, stored without compression. */
async function bigPng(file: string, bytes: number): Promise<number> {
  const width = 2000;
  const height = Math.floor(bytes / (width * 3 + 1)) - 8;
  await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toFile(file);
  return (await stat(file)).size;
}

/** POST /studio/refs/import as a multipart form whose file part is streamed from disk; answers status and body. */
function upload(
  base: string,
  fields: Record<string, string>,
  file: string,
  size: number,
): Promise<{ status: number; body: string }> {
  const boundary = `----bench${randomBytes(8).toString("hex")}`;
  let head = "";
  for (const [k, v] of Object.entries(fields))
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: image/png\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/studio/refs/import`, {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(length),
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.write(head);
    const stream = createReadStream(file);
    stream.on("error", reject);
    stream.on("end", () => req.end(tail));
    stream.pipe(req, { end: false });
  });
}

interface Growth {
  size: number;
  /** RSS after minus RSS before, KB. */
  after: number;
  /** The peak during the upload minus RSS before, KB (null when the peak could not be reset). */
  peak: number | null;
  ms: number;
}

async function importGrowth(
  base: string,
  pid: number | undefined,
  ep: string,
  file: string,
): Promise<Growth> {
  const size = (await stat(file)).size;
  // Let the previous request's garbage go first, so the figure is this upload's.
  await new Promise((r) => setTimeout(r, 500));
  const canPeak = await resetPeak(pid);
  const before = await memoryKb(pid);
  const t0 = performance.now();
  const res = await upload(base, { ep, ref: "subject:lamp", pick: "0" }, file, size);
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.body.slice(0, 300)}`);
  const after = await memoryKb(pid);
  if (!before || !after) throw new Error("no /proc: the server's memory cannot be read here");
  return { size, after: after.rss - before.rss, peak: canPeak ? after.hwm - before.rss : null, ms };
}

const mb = (k: number) => `${(k / 1024).toFixed(1)} MB`;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export async function run(): Promise<void> {
  const t0 = performance.now();
  const show = await makeShow();
  const setup = performance.now() - t0;
  const server = await startListening(["runtime/serve.js", "--port", "0"], show.env);
  const pid = server.child.pid;
  try {
    const q = `ep=${encodeURIComponent(show.ep)}`;
    const refsUrl = `${server.url}/studio/refs?${q}`;
    // The first answer starts auto-pick of every reference without a live file (sheets stitched from four
    // views): wait until it has settled, so the warm runs list a show whose live files are in place.
    const c0 = performance.now();
    const first = await request(refsUrl);
    const firstText = await first.body.text();
    const cold = performance.now() - c0;
    if (first.statusCode !== 200)
      throw new Error(`GET /studio/refs answered ${first.statusCode}: ${firstText}`);
    // biome-ignore lint/suspicious/noExplicitAny: only counts are read from the answer
    let refs = (JSON.parse(firstText) as { refs: any[] }).refs;
    for (let i = 0; i < 100 && refs.some((r) => r.kind !== "keyframe" && !r.exists); i++) {
      await new Promise((r) => setTimeout(r, 200));
      refs = JSON.parse(await (await request(refsUrl)).body.text()).refs;
    }
    const listed = refs.filter((r) => r.kind !== "keyframe");
    const candidates = (r: { takes: unknown[]; views: { takes: unknown[] }[] }) =>
      r.takes.length + r.views.reduce((n, v) => n + v.takes.length, 0);
    const total = listed.reduce((n, r) => n + candidates(r), 0);
    const live = listed.filter((r) => r.exists).length;

    console.log(
      `refs: ${listed.length} references (${refs.length - listed.length} keyframes besides) with ${total} candidates, ${live} live files after auto-pick; ` +
        `real server process (node runtime/serve.js) on loopback, one kept-alive connection; set-up ${(setup / 1000).toFixed(1)} s; load average ${load()} on ${os.cpus().length} cores`,
    );
    console.log(`  GET /studio/refs cold (first request of the process)    ${cold.toFixed(0)} ms`);
    const info = await warm(`${server.url}/studio/info`, pid);
    const episode = await warm(`${server.url}/studio/episode?${q}&pass=final`, pid);
    const refsPlain = await warm(refsUrl, pid);
    const refsGzip = await warm(refsUrl, pid, { "accept-encoding": "gzip" });
    console.log(warmLine("GET /studio/info (baseline)", info));
    console.log(warmLine("GET /studio/episode 40 shots (baseline)", episode));
    console.log(warmLine("GET /studio/refs warm (JSON)", refsPlain, episode, 30));
    console.log(warmLine("GET /studio/refs warm (gzip, as a browser asks)", refsGzip, episode, 30));

    const files = path.join(show.dir, "uploads");
    await mkdir(files);
    const small = await bigPng(path.join(files, "small.png"), 1024 * 1024);
    const big = await bigPng(path.join(files, "big.png"), BIG_UPLOAD - 64 * 1024);
    if (small <= 0 || big > BIG_UPLOAD) throw new Error(`upload files of ${small} and ${big} bytes`);
    const growths = async (file: string) => {
      const out: Growth[] = [];
      for (let i = 0; i < UPLOADS; i++) out.push(await importGrowth(server.url, pid, show.ep, file));
      return out;
    };
    const one = await growths(path.join(files, "small.png"));
    const sixtyFour = await growths(path.join(files, "big.png"));
    const mem = await memoryKb(pid);
    const row = (label: string, gs: Growth[], goalKb?: number) => {
      const worst = (f: (g: Growth) => number | null) => Math.max(...gs.map((g) => f(g) ?? Number.NaN));
      const peak = worst((g) => g.peak);
      const peaks = Number.isNaN(peak)
        ? "peak not measurable"
        : `peak +${mb(peak)} (worst of ${gs.map((g) => `+${mb(g.peak ?? 0)}`).join(", ")})`;
      const goal =
        goalKb && !Number.isNaN(peak) ? `, ${(peak / goalKb).toFixed(2)}x of the ${mb(goalKb)} goal` : "";
      const ms = gs.map((g) => g.ms).sort((a, b) => a - b)[Math.floor(gs.length / 2)];
      const after = worst((g) => g.after);
      return `  ${label.padEnd(46)} ${(gs[0].size / 1024 / 1024).toFixed(1)} MB, median ${ms.toFixed(0)} ms  RSS after ${after >= 0 ? "+" : ""}${mb(after)}  ${peaks}${goal}`;
    };
    console.log(
      `refs import: the server's memory around one multipart upload streamed from disk (VmRSS before and after, peak VmHWM reset before each), ${UPLOADS} of each size; RSS now ${mem ? mb(mem.rss) : "?"}`,
    );
    console.log(row("POST /studio/refs/import 1 MB (baseline)", one));
    console.log(row("POST /studio/refs/import 64 MB", sixtyFour, 16 * 1024));
    console.log(`refs: load average ${load()} after the runs`);
  } finally {
    server.child.kill("SIGKILL");
    await rm(show.dir, { recursive: true, force: true });
  }
}
