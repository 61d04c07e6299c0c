// The compile thread: build, check and preview run there so a long script never stalls other requests.
import { defaultVideoTarget, readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { ThreadPool } from "../threads/pool.ts";
import type { CheckResult } from "./check.ts";
import type * as Tasks from "./compile-task.ts";
import { readSources } from "./sources.ts";

export type CompileMethod = "compileBoth" | "check" | "preview";

/** The compile thread of a process (its services hold one); the thread starts on the first task. */
export interface CompilePool {
  /** Run one task of compile-task.ts on the compile thread. */
  run<K extends CompileMethod>(
    method: K,
    arg: Parameters<(typeof Tasks)[K]>[0],
  ): ReturnType<(typeof Tasks)[K]>;
  /** Start the thread now (it loads the compile modules meanwhile), so the first task does not wait for it. */
  warm(): void;
  close(): Promise<void>;
}

export function createCompilePool(): CompilePool {
  let pool: ThreadPool | null = null;
  const thread = () => {
    // Built into dist/ this module is JavaScript, and so is its task module beside it.
    const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
    pool ??= new ThreadPool(new URL(`./compile-task.${ext}`, import.meta.url), 1);
    return pool;
  };
  return {
    run(method, arg) {
      return thread().run(method, arg) as ReturnType<(typeof Tasks)[typeof method]>;
    },
    warm() {
      thread().warm();
    },
    async close() {
      const open = pool;
      pool = null;
      await open?.close();
    },
  };
}

/** The editor's check of `text` as the episode's `file`, the other file read from disk, on the compile thread. */
export async function runCheck(
  services: Pick<Services, "home" | "compile" | "caches">,
  ep: string,
  file: "script" | "series",
  text: string,
): Promise<CheckResult> {
  const sources = await readSources(ep);
  return services.compile.run("check", {
    showDir: sources.showDir ?? ep,
    defaultTarget: defaultVideoTarget(await readSettings(services)),
    file,
    scriptText: file === "script" ? text : (sources.script?.text ?? null),
    seriesText: file === "series" ? text : (sources.series?.text ?? null),
  });
}
