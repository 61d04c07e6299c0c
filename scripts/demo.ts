// The main job on a fresh machine: a demo show made from the starter episode, built, and served.
import { copyFile, mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../runtime/serve.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const starter = path.join(here, "..", "lib", "episode", "starter");

interface BuildAnswer {
  ok: boolean;
  error?: string;
  passes: Record<
    string,
    { ok: boolean; error: string | null; report: { shots?: number; warnings?: string[] } | null }
  >;
}

export async function demo(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const once = argv.includes("--once");
  const rest = argv.filter((a) => a !== "--once");
  const dir = path.resolve(env.STUDIO_DEMO_DIR ?? path.join(here, "..", ".studio-demo"));
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
  const res = await fetch(`${running.url}/studio/build`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ep }),
  });
  const build = (await res.json()) as BuildAnswer;
  process.stdout.write(`demo episode: ${ep}\n`);
  for (const [pass, result] of Object.entries(build.passes ?? {})) {
    const warnings = result.report?.warnings?.length ?? 0;
    process.stdout.write(
      `  ${pass}: ${result.ok ? `built, ${result.report?.shots ?? "?"} shots, ${warnings} warnings` : `failed: ${result.error}`}\n`,
    );
  }
  if (!build.ok) process.stdout.write(`  build failed: ${build.error ?? "see the passes above"}\n`);
  process.stdout.write(`open ${running.url}/studio/episodes (Ctrl-C stops)\n`);
  if (once) running.stop(build.ok ? 0 : 1);
}

async function copyIfMissing(from: string, to: string): Promise<void> {
  try {
    await stat(to);
  } catch {
    await copyFile(from, to);
  }
}
