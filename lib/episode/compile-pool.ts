// The compile thread: build, check and preview run there so a long script never stalls other requests.
import { ThreadPool } from "../threads/pool.ts";
import type * as Tasks from "./compile-task.ts";

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
