// The compile thread: build, check and preview run there so a long script never stalls other requests. Nothing
// here loads the compile modules or zod: a process starts the thread first and loads the rest meanwhile.
import { ThreadPool } from "../threads/pool.ts";
import type * as Tasks from "./compile-task.ts";

export type CompileMethod = "compileBoth" | "check" | "preview" | "matchWindows";

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
