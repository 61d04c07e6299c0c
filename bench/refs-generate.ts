// generate-missing benchmark, in process on the built-in engine: a show of 12 references the proxy pass reads (4
// characters of four views, 4 props, 4 locations: 24 candidates), POST /studio/refs/generate-missing through the
// route, a real job store and WorkerPool on the builtin lane; wall time from the request until every candidate's
// `ok` event. In the same run the engine's own work is measured alone: the same 24 cards rendered by the built-in
// engine one after another (the builtin lane runs one job at a time), so the difference is what the request, the
// queue, the sidecars and the placing cost. Goal: under 20 ms per reference beyond the engine. Figures, never
// pass/fail.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { functions } from "../functions/index.ts";
import { silentLogger } from "../lib/context.ts";
import type { EngineJob } from "../lib/engines/types.ts";
import { buildFolder } from "../lib/episode/run-build.ts";
import { jobWorkPath } from "../lib/store/temp-names.ts";
import { withServices } from "../runtime/services.ts";
import { callFunction } from "../test/support/call.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { WorkerPool } from "../workers/pool.ts";

const OVERHEAD_GOAL_MS = 20;
const RUNS = 3;
const CHARACTERS = ["ada", "bo", "cy", "dee"];
const PROPS = ["kettle", "lamp", "radio", "umbrella"];
const LOCATIONS = ["kitchen", "street", "stairwell", "rooftop"];

function series() {
  const subjects: Record<string, unknown> = {};
  CHARACTERS.forEach((id, i) => {
    subjects[id] = {
      name: id[0].toUpperCase() + id.slice(1),
      design: `a ${["tall", "short", "wiry", "broad"][i]} person in a ${["green", "red", "grey", "blue"][i]} coat`,
      sheet: `refs/${id}/${id}_sheet_4panel.png`,
    };
  });
  for (const id of PROPS)
    subjects[id] = { kind: "prop", name: `the ${id}`, design: `a worn ${id}`, sheet: `refs/props/${id}.png` };
  const locations: Record<string, unknown> = {};
  for (const id of LOCATIONS)
    locations[id] = { description: `the ${id} at night`, plate: `refs/_bg/${id}.png` };
  return {
    series: { id: "bench", title: "Bench", fps: 24, width: 1344, height: 768 },
    proxy: { width: 448, height: 256 },
    style: { look: "a flat 2D cartoon" },
    audio: { mode: "generate" },
    refs: { target: "card", keyframe_target: "card" },
    subjects,
    locations,
  };
}

/** One sequence per location, each shot with a character and a prop: every reference read by the proxy pass. */
function script(): string {
  const out = ["= ep01  Bench", ""];
  LOCATIONS.forEach((loc, q) => {
    out.push(`# sq${q + 1}0  ${loc}`, "", `## sh${q + 1}10`, `who: ${CHARACTERS[q]}`, `with: ${PROPS[q]}`);
    // No keyframes: the script turns them off, so only the 12 series references are missing.
    out.push("first: none", "dur: 2", "They wait.", "");
  });
  return out.join("\n");
}

interface Run {
  wallMs: number;
  engineMs: number;
  candidates: number;
  references: number;
  requestMs: number;
}

async function once(): Promise<Run> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-bench-refgen-")));
  const root = path.join(dir, "shows");
  const show = path.join(root, "show");
  const ep = path.join(show, "ep01");
  await mkdir(ep, { recursive: true });
  await writeFile(path.join(show, "series.json"), JSON.stringify(series(), null, 2));
  await writeFile(path.join(ep, "ep01.md"), script());
  const oks: number[] = [];
  const services = withServices({
    home: path.join(dir, "home"),
    env: { STUDIO_ROOTS: root },
    roles: ["api"],
    version: "bench",
    log: silentLogger,
    events: {
      emit(kind, data) {
        if (kind === "studio.ref" && (data as { status?: string }).status === "ok")
          oks.push(performance.now());
      },
    },
    now: () => new Date(),
  });
  const store = await services.jobs();
  let pool: WorkerPool | null = null;
  try {
    const built = await buildFolder(services, ep);
    if (!built.ok) throw new Error(`the bench episode does not build: ${built.error}`);
    pool = new WorkerPool({
      services,
      store,
      kinds: { ref: refJob },
      emit: (kind, data) => services.events.emit(kind, data),
    });
    pool.start();
    const fn = functions.find((f) => f.method === "POST" && f.path === "/refs/generate-missing");
    if (!fn) throw new Error("POST /refs/generate-missing is not in the route table");
    const t0 = performance.now();
    const res = await callFunction(fn, { ep, pass: "proxy" }, services);
    const requestMs = performance.now() - t0;
    const body = res.body as { queued: { ref: string; prompt_id: string }[]; errors: unknown[] };
    if (res.status !== 200 || body.errors.length)
      throw new Error(`generate-missing: ${JSON.stringify(res.body)}`);
    const n = body.queued.length;
    const until = Date.now() + 120_000;
    while (oks.length < n) {
      if (Date.now() > until) throw new Error(`only ${oks.length} of ${n} candidates ended ok`);
      await new Promise((r) => setTimeout(r, 2));
    }
    const wallMs = Math.max(...oks) - t0;
    await pool.stop({ graceful: true, timeoutMs: 5_000 });
    pool = null;

    // The engine's own work: the same candidates' cards, drawn one after another straight through the engine.
    const engine = services.engines.get("builtin");
    const jobs: EngineJob[] = [];
    for (const q of body.queued) {
      const job = await store.get(q.prompt_id);
      const p = job?.payload as Record<string, unknown>;
      const stem = `${String(p.stem)}_alone`;
      jobs.push({
        kind: "image",
        target: String(p.target),
        ep,
        pass: "final",
        subject: String(p.ref).replaceAll(":", "__"),
        take: Number(p.take),
        stem,
        width: Number(p.width),
        height: Number(p.height),
        fps: 24,
        frames: 0,
        seed: BigInt(String(p.seed)),
        prompt: String(p.prompt),
        negative: null,
        entry: {},
        inputs: {},
        workDir: jobWorkPath(ep, stem, `bench${q.prompt_id}`),
      });
    }
    const hooks = { signal: new AbortController().signal, onProgress() {} };
    const e0 = performance.now();
    for (const job of jobs) {
      await mkdir(job.workDir, { recursive: true });
      const prepared = await engine.prepare(job, hooks);
      const submitted = await engine.submit(job, prepared, hooks);
      const out = await engine.collect(job, submitted, hooks);
      if (!out.image) throw new Error(`the engine drew no card for ${job.stem}`);
      await readFile(out.image);
    }
    const engineMs = performance.now() - e0;
    const references = new Set(body.queued.map((q) => q.ref)).size;
    return { wallMs, engineMs, candidates: n, references, requestMs };
  } finally {
    await pool?.stop({ graceful: false, timeoutMs: 2_000 });
    await services.engines.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const runs: Run[] = [];
  await once(); // warm: module loading, fonts, sharp
  for (let i = 0; i < RUNS; i++) runs.push(await once());
  runs.sort((a, b) => a.wallMs - a.engineMs - (b.wallMs - b.engineMs));
  const r = runs[Math.floor(runs.length / 2)];
  const perRef = (r.wallMs - r.engineMs) / r.references;
  const perCandidate = (r.wallMs - r.engineMs) / r.candidates;
  console.log(
    `refs generate-missing (${r.references} references, ${r.candidates} candidates on the built-in card, one builtin lane; median of ${RUNS} runs by overhead)`,
  );
  console.log(`  request answered                     ${r.requestMs.toFixed(1).padStart(8)} ms`);
  console.log(`  request → every candidate ok         ${r.wallMs.toFixed(1).padStart(8)} ms`);
  console.log(`  the engine alone (same cards)        ${r.engineMs.toFixed(1).padStart(8)} ms`);
  console.log(
    `  overhead per reference               ${perRef.toFixed(1).padStart(8)} ms  (${(perRef / OVERHEAD_GOAL_MS).toFixed(2)}x of the ${OVERHEAD_GOAL_MS} ms goal; ${perCandidate.toFixed(1)} ms per candidate)`,
  );
}
