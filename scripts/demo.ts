// The main job on a fresh machine: a demo show made from the starter episode, built, its proxy pass rendered on
// the built-in animatic target, assembled into one mp4, and served.
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
  const api = async <T>(method: "GET" | "POST", route: string, body: Record<string, unknown>): Promise<T> => {
    const query = method === "GET" ? `?${new URLSearchParams(body as Record<string, string>)}` : "";
    const res = await fetch(`${running.url}/studio${route}${query}`, {
      method,
      headers: method === "POST" ? { "content-type": "application/json" } : {},
      body: method === "POST" ? JSON.stringify(body) : undefined,
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
  else mp4 = await renderAndAssemble(api, ep);
  out(`editor: ${running.url}/studio/?ep=${encodeURIComponent(ep)} (Ctrl-C stops)`);
  if (once) running.stop(mp4 && (await isFile(mp4)) ? 0 : 1);
}

type Api = <T>(method: "GET" | "POST", route: string, body: Record<string, unknown>) => Promise<T>;

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
