// The compile thread: build, check and preview run there so a long script never stalls other requests.
import { defaultVideoTarget, readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { ThreadPool } from "../threads/pool.ts";
import type { CheckResult } from "./check.ts";
import type * as Tasks from "./compile-task.ts";
import { readSources } from "./sources.ts";

let pool: ThreadPool | undefined;

function compilePool(): ThreadPool {
  pool ??= new ThreadPool(new URL("./compile-task.ts", import.meta.url), 1);
  return pool;
}

/** Run one task of compile-task.ts on the compile thread. */
export function runCompile<K extends "compileBoth" | "check" | "preview">(
  method: K,
  arg: Parameters<(typeof Tasks)[K]>[0],
): ReturnType<(typeof Tasks)[K]> {
  return compilePool().run(method, arg) as ReturnType<(typeof Tasks)[K]>;
}

/** The §5.2 check of `text` as the episode's `file`, the other file read from disk, on the compile thread. */
export async function runCheck(
  services: Pick<Services, "home">,
  ep: string,
  file: "script" | "series",
  text: string,
): Promise<CheckResult> {
  const sources = await readSources(ep);
  return runCompile("check", {
    showDir: sources.showDir ?? ep,
    defaultTarget: defaultVideoTarget(await readSettings(services)),
    file,
    scriptText: file === "script" ? text : (sources.script?.text ?? null),
    seriesText: file === "series" ? text : (sources.series?.text ?? null),
  });
}
