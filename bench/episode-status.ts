// Episode status benchmark: GET /studio/episode on a synthetic 300-shot episode with 10 takes per shot
// (sidecars only, no media), built with the real build. Figures and ratios to the goals, never pass/fail.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gzip as gzipCb } from "node:zlib";
import { functions } from "../functions/index.ts";
import { buildFolder } from "../lib/episode/run-build.ts";
import { readBuild } from "../lib/episode/shotlists.ts";
import { presetHash, storyHash } from "../lib/script/canonical.ts";
import { writeFileAtomic } from "../lib/store/atomic.ts";
import type { WithCaches } from "../lib/store/caches.ts";
import { createApp } from "../runtime/app.ts";
import { syntheticScript } from "./build.ts";
import { benchSeries, benchServices } from "./show.ts";
import { line, type Timing, time } from "./stats.ts";

const gzip = promisify(gzipCb);
const TAKES = 10;
const COLD_SAMPLES = 7;

const SERIES = benchSeries({ target: "minimax_h3_ref2va", proxy: { width: 512, height: 288 } });

function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], runs: s.length };
}

/** The timing with this process's CPU time per run (user + system; the machine may be shared). */
async function cpuTimed(run: () => Promise<Timing>): Promise<Timing & { cpu: number }> {
  const before = process.cpuUsage();
  const t = await run();
  const used = process.cpuUsage(before);
  // `time` warms up 3 times before its runs.
  return { ...t, cpu: (used.user + used.system) / 1000 / (t.runs + 3) };
}

/** A finished take's sidecar as a render writes it (seed as an integer literal). */
function sidecarText(fields: Record<string, unknown>, seed: bigint): string {
  return JSON.stringify({ ...fields, seed: "SEED" }, null, 2).replace('"SEED"', seed.toString());
}

async function writeTakes(
  services: WithCaches,
  ep: string,
): Promise<{ shots: string[]; sidecar(shot: string, take: number, note: string): Promise<void> }> {
  const build = (await readBuild(services, ep, "proxy"))!;
  const texts = new Map<string, (take: number, note: string) => string>();
  for (const [id, s] of build.shots) {
    const defaults = build.docs[s.target].defaults;
    const subjects = Array.isArray(s.entry.subjects) ? (s.entry.subjects as string[]) : [];
    const refs = subjects.map((sub, i) => ({
      slot: `Picture ${i + 1}`,
      kind: "image",
      path: `refs/${sub}.png`,
      sha1: null,
    }));
    const base = {
      version: 1,
      shot: id,
      pass: "proxy",
      target: s.target,
      status: "ok",
      queued: "2025-01-01T10:00:00+00:00",
      finished: "2025-01-01T10:01:00+00:00",
      backend_prompt_id: "job",
      seed_source: "stable",
      model: defaults.model,
      loras: [],
      steps: defaults.steps,
      width: defaults.width,
      height: defaults.height,
      length: s.entry.length,
      frames: s.entry.length,
      fps: 24,
      length_source: "script",
      shot_hash: storyHash(s.entry),
      preset_hash: presetHash(defaults, s.entry),
      overrides: [],
      refs,
      missing_refs: [],
      save_notes: "ok",
    };
    texts.set(id, (take, note) => sidecarText({ ...base, take, note }, s.entry.seed as bigint));
  }
  const dir = (shot: string) => path.join(ep, "renders_proxy", shot);
  await Promise.all(
    [...texts.entries()].map(async ([id, text]) => {
      await mkdir(dir(id), { recursive: true });
      for (let t = 1; t <= TAKES; t++) {
        await writeFile(path.join(dir(id), `${id}_t${String(t).padStart(2, "0")}.json`), text(t, ""));
      }
    }),
  );
  return {
    shots: build.order,
    sidecar: (shot, take, note) =>
      writeFileAtomic(
        path.join(dir(shot), `${shot}_t${String(take).padStart(2, "0")}.json`),
        texts.get(shot)!(take, note),
      ),
  };
}

/** A temp show with the 300-shot synthetic episode built and 10 finished takes (sidecars) per shot. */
export async function syntheticEpisode(name: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `studio-bench-${name}-`));
  const root = path.join(dir, "shows");
  const ep = path.join(root, "show", "bench01");
  await mkdir(ep, { recursive: true });
  await writeFile(path.join(ep, "series.json"), JSON.stringify(SERIES, null, 2));
  await writeFile(path.join(ep, "bench01.md"), syntheticScript());
  const services = benchServices(path.join(dir, "home"), { STUDIO_ROOTS: root });
  const built = await buildFolder(services, ep);
  if (!built.ok) throw new Error(`the synthetic episode does not build: ${built.error}`);
  const takes = await writeTakes(services, ep);
  return { dir, root, ep, services, takes };
}

export async function run(): Promise<void> {
  const { dir, root, ep, services, takes } = await syntheticEpisode("status");

  // Cold: each sample is the first request on a fresh copy of the episode (every file cache misses).
  const copies: string[] = [];
  for (let i = 0; i < COLD_SAMPLES; i++) {
    const copy = path.join(root, `copy${i}`, "bench01");
    await cp(ep, copy, { recursive: true });
    copies.push(copy);
  }
  const app = createApp(services, functions);
  const get = async (folder: string) => {
    const res = await app.request(`/studio/episode?ep=${encodeURIComponent(folder)}&pass=proxy`);
    if (res.status !== 200)
      throw new Error(`GET /studio/episode answered ${res.status}: ${await res.text()}`);
    return res.text();
  };
  const coldSamples: number[] = [];
  for (const copy of copies) {
    const t0 = performance.now();
    await get(copy);
    coldSamples.push(performance.now() - t0);
  }
  const cold = summarize(coldSamples);

  const text = await get(ep);
  const url = `/studio/episode?ep=${encodeURIComponent(ep)}&pass=proxy`;
  // The service's side of a warm answer: the body is taken as bytes, as a socket would send them (decoding
  // 1.5 MB into a string is the client's work, not the answer's).
  const warm = await cpuTimed(() =>
    time(
      async () => {
        const res = await app.request(url);
        if (res.status !== 200) throw new Error(`GET /studio/episode answered ${res.status}`);
        await res.arrayBuffer();
      },
      30,
      3,
    ),
  );
  // The same bytes from a bare Response, for scale (what any answer of that size costs in this process).
  const bytes = Buffer.from(text, "utf8");
  const bare = await cpuTimed(() =>
    time(
      async () => {
        await new Response(bytes, { headers: { "content-type": "application/json" } }).arrayBuffer();
      },
      30,
      3,
    ),
  );
  // The page re-reading an unchanged episode: it sends the tag it holds and gets 304 without a body.
  const etag = (await app.request(url)).headers.get("etag") ?? "";
  const notModified = await cpuTimed(() =>
    time(
      async () => {
        const res = await app.request(url, { headers: { "if-none-match": etag } });
        if (res.status !== 304)
          throw new Error(`GET /studio/episode with its own ETag answered ${res.status}`);
      },
      30,
      3,
    ),
  );

  // One sidecar rewritten (atomically, as the saver does) before each request, a different shot each time.
  const changeSamples: number[] = [];
  for (let i = 0; i < 30; i++) {
    await takes.sidecar(takes.shots[(i * 37) % takes.shots.length], 3, `edit ${i}`);
    const t0 = performance.now();
    await get(ep);
    changeSamples.push(performance.now() - t0);
  }
  const change = summarize(changeSamples);

  const zipped = await gzip(bytes);
  const gz = await time(() => gzip(bytes), 15, 2);
  await rm(dir, { recursive: true, force: true });

  const shots = (JSON.parse(text) as { shots: unknown[] }).shots.length;
  console.log(
    `episode status (${shots} shots x ${TAKES} takes, sidecars only; answer ${(bytes.length / 1024).toFixed(0)} KB JSON, ${(zipped.length / 1024).toFixed(0)} KB gzipped)`,
  );
  console.log(line("  GET /studio/episode cold (fresh episode copy)", cold));
  console.log(
    `${line("  GET /studio/episode warm (JSON, no gzip)", warm, 10)}  cpu ${warm.cpu.toFixed(2)} ms`,
  );
  console.log(`${line("  the same bytes from a bare Response", bare)}  cpu ${bare.cpu.toFixed(2)} ms`);
  console.log(
    `${line("  GET /studio/episode unchanged (If-None-Match: 304)", notModified, 3)}  cpu ${notModified.cpu.toFixed(2)} ms`,
  );
  console.log(line("  GET /studio/episode after one sidecar changed", change, 40));
  console.log(line("  gzip of the answer (separately)", gz));
}
