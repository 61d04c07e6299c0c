// The main job on a fresh machine: a demo show made from the starter episode, built, its missing references made on
// the built-in engine and picked, its proxy pass rendered on the built-in animatic target with them, assembled into
// one mp4, and served.
import { copyFile, mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { main } from "../runtime/serve.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
// Built, this module runs from dist/scripts/: the demo folder still belongs beside the repository's own files.
const repo =
  path.basename(path.dirname(here)) === "dist" ? path.join(here, "..", "..") : path.join(here, "..");
const starter = path.join(repo, "lib", "episode", "starter");
/** How long the demo waits for its renders (the animatic makes each shot in about a second). */
const RENDER_WAIT_MS = 10 * 60_000;
/** How long the demo waits for its reference candidates (a built-in card takes a fraction of a second). */
const REFS_WAIT_MS = 5 * 60_000;

interface BuildAnswer {
  ok: boolean;
  error?: string;
  passes: Record<
    string,
    { ok: boolean; error: string | null; report: { shots?: number; warnings?: string[] } | null }
  >;
}

interface StatusRow {
  shot: string;
  orphan: boolean;
  cut: { usable: boolean; out: boolean };
  takes: { take: number; status: string }[];
}

interface MissingAnswer {
  queued: { ref: string; view: string | null; take: number | null; prompt_id: string | null }[];
  picked: { ref: string; take: number | null }[];
  skipped: { ref: string; reason: string }[];
  errors: { ref?: string; error: string }[];
}

interface JobRow {
  id: string;
  status: string;
  error: string | null;
}

interface AssembleAnswer {
  ok: boolean;
  output: string | null;
  error?: string;
  report: { clips: number; seconds: number; missing: string[] } | null;
}

const out = (text: string) => process.stdout.write(`${text}\n`);

export async function demo(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const once = argv.includes("--once");
  const rest = argv.filter((a) => a !== "--once");
  const dir = path.resolve(env.STUDIO_DEMO_DIR ?? path.join(repo, ".studio-demo"));
  const shows = path.join(dir, "shows");
  const ep = path.join(shows, "gold_path", "ep01");
  await mkdir(ep, { recursive: true });
  // Keep the writer's edits: the starter is copied only where a file is missing.
  await copyIfMissing(path.join(starter, "series.json"), path.join(ep, "series.json"));
  await copyIfMissing(path.join(starter, "starter.md"), path.join(ep, "ep01.md"));

  const running = await main(rest, {
    ...env,
    STUDIO_HOME: env.STUDIO_HOME ?? path.join(dir, "home"),
    STUDIO_ROOTS: env.STUDIO_ROOTS ?? shows,
  });
  const api: Api = async <T>(method: Method, route: string, body: Record<string, unknown>): Promise<T> => {
    const query = method === "GET" ? `?${new URLSearchParams(body as Record<string, string>)}` : "";
    const res = await fetch(`${running.url}/studio${route}${query}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: method === "GET" ? undefined : JSON.stringify(body),
    });
    const answer = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${method} /studio${route}: ${answer.error ?? res.status}`);
    return answer;
  };

  const build = await api<BuildAnswer>("POST", "/build", { ep });
  out(`demo episode: ${ep}`);
  for (const [pass, result] of Object.entries(build.passes ?? {})) {
    const warnings = result.report?.warnings?.length ?? 0;
    out(
      `  ${pass}: ${result.ok ? `built, ${result.report?.shots ?? "?"} shots, ${warnings} warnings` : `failed: ${result.error}`}`,
    );
  }
  let mp4: string | null = null;
  if (!build.ok) out(`  build failed: ${build.error ?? "see the passes above"}`);
  else {
    await makeReferences(api, ep);
    mp4 = await renderAndAssemble(api, ep);
  }
  out(`editor: ${running.url}/studio/?ep=${encodeURIComponent(ep)} (Ctrl-C stops)`);
  if (once) running.stop(mp4 && (await isFile(mp4)) ? 0 : 1);
}

type Method = "GET" | "POST" | "PUT";
type Api = <T>(method: Method, route: string, body: Record<string, unknown>) => Promise<T>;

/**
 * The proxy pass's missing series references (the characters' views, props, locations) drawn as cards on the
 * built-in engine, waited for and picked explicitly, so the animatic composes each shot from its plate and figures.
 * Picking here rather than leaving it to the listing's auto-pick keeps the renders from racing the picks.
 * Keyframes are left out: a still of the shot would stand in for the composed plate and figures.
 */
async function makeReferences(api: Api, ep: string): Promise<void> {
  const missing = await api<MissingAnswer>("POST", "/refs/generate-missing", {
    ep,
    pass: "proxy",
    kinds: ["series"],
  });
  for (const e of missing.errors) out(`    ${e.ref ?? "references"}: ${e.error}`);
  const queued = missing.queued.filter((q) => q.prompt_id !== null && q.take !== null);
  if (queued.length === 0) {
    out("  references: nothing missing");
    return;
  }
  const refs = new Set(queued.map((q) => q.ref)).size;
  out(`  drawing ${queued.length} reference picture(s) for ${refs} reference(s) on the built-in engine`);
  const ids = new Set(queued.map((q) => q.prompt_id as string));
  const until = Date.now() + REFS_WAIT_MS;
  let ended: Map<string, JobRow>;
  for (;;) {
    const { jobs } = await api<{ jobs: JobRow[] }>("GET", "/jobs", {});
    ended = new Map(
      jobs.filter((j) => ids.has(j.id) && !["queued", "running"].includes(j.status)).map((j) => [j.id, j]),
    );
    if (ended.size === ids.size) break;
    if (Date.now() > until) {
      out(`  references still drawing after ${REFS_WAIT_MS / 60_000} minutes; rendering without them`);
      break;
    }
    await sleep(150);
  }
  let picked = 0;
  for (const q of queued) {
    const job = ended.get(q.prompt_id as string);
    if (job?.status !== "succeeded") {
      out(`    ${q.ref}${q.view ? ` ${q.view}` : ""}: ${job ? (job.error ?? job.status) : "not finished"}`);
      continue;
    }
    try {
      await api("PUT", "/refs/pick", { ep, ref: q.ref, view: q.view, take: q.take });
      picked++;
    } catch (err) {
      out(`    ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  out(`  picked ${picked} of ${queued.length} reference picture(s)`);
}

/** Render the proxy shots that have no usable take yet, wait for them, assemble; the mp4's path or null. */
async function renderAndAssemble(api: Api, ep: string): Promise<string | null> {
  const shots = async () =>
    (await api<{ shots: StatusRow[] }>("GET", "/episode", { ep, pass: "proxy" })).shots.filter(
      (s) => !s.orphan && !s.cut.out,
    );
  const todo = (await shots()).filter((s) => !s.cut.usable).map((s) => s.shot);
  if (todo.length) {
    const render = await api<{ queued: unknown[]; errors: { shot: string; error: string }[] }>(
      "POST",
      "/render",
      {
        ep,
        pass: "proxy",
        shots: todo,
      },
    );
    out(`  rendering ${render.queued.length} proxy shot(s) on the animatic target`);
    for (const e of render.errors) out(`    ${e.shot}: ${e.error}`);
    const until = Date.now() + RENDER_WAIT_MS;
    for (;;) {
      const now = await shots();
      const waiting = now.filter((s) => !s.cut.usable && s.takes.some((t) => t.status === "queued"));
      if (waiting.length === 0) {
        const bad = now.filter((s) => !s.cut.usable).map((s) => s.shot);
        out(
          `  rendered: ${now.length - bad.length} of ${now.length} shots usable${bad.length ? ` (not: ${bad.join(", ")})` : ""}`,
        );
        break;
      }
      if (Date.now() > until) {
        out(
          `  still rendering after ${RENDER_WAIT_MS / 60_000} minutes: ${waiting.map((s) => s.shot).join(", ")}`,
        );
        break;
      }
      await sleep(500);
    }
  }
  const assembled = await api<AssembleAnswer>("POST", "/assemble", { ep, pass: "proxy" });
  if (!assembled.ok || !assembled.output) {
    out(`  not assembled: ${assembled.error ?? "no output"}`);
    return null;
  }
  const file = path.join(ep, ...assembled.output.split("/"));
  out(`  assembled ${assembled.report?.clips ?? "?"} clips (${assembled.report?.seconds ?? "?"} s):`);
  out(file);
  return file;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false;
}

async function copyIfMissing(from: string, to: string): Promise<void> {
  try {
    await stat(to);
  } catch {
    await copyFile(from, to);
  }
}
