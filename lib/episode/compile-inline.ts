// Compiles in the calling thread, for a platform with no worker threads and no show folders (a per-function
// deployment): the same tasks as the compile thread, over the shipped targets it is handed.
import { matchScriptWindows } from "../align/match.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { checkSources } from "./check.ts";
import type { CompileMethod, CompilePool } from "./compile-pool.ts";
import type * as Tasks from "./compile-task.ts";
import type { EnvInput } from "./compile-task.ts";
import { compileTexts } from "./compile-texts.ts";
import type { CompileEnv } from "./prepare.ts";
import { previewShot } from "./preview.ts";

type TaskInput<K extends CompileMethod> = Parameters<(typeof Tasks)[K]>[0];
type TaskTable = { [K in CompileMethod]: (input: TaskInput<K>) => ReturnType<(typeof Tasks)[K]> };

export function createInlineCompiler(targets: TargetRegistryView): CompilePool {
  const envOf = (input: EnvInput): CompileEnv => {
    // A show's own targets live in its folder, which this platform cannot read: a caller naming one is a bug.
    if (input.showDir !== null || input.settingsDir !== null)
      throw new Error(
        "an in-line compile reads no show or settings folder: showDir and settingsDir must be null",
      );
    return { defaultTarget: input.defaultTarget, targets };
  };
  const tasks: TaskTable = {
    compileBoth: async (input) => compileTexts(input, envOf(input)),
    check: async (input) => checkSources(input, envOf(input)),
    preview: async (input) => previewShot(input, envOf(input)),
    matchWindows: async (input) => matchScriptWindows(input),
  };
  return {
    run<K extends CompileMethod>(method: K, arg: TaskInput<K>) {
      return tasks[method](arg);
    },
    // Nothing to start: compiles run in the calling thread.
    warm() {},
    async close() {},
  };
}
