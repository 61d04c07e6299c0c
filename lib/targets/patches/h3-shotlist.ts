// Where a shot-list loader target's pack nodes find the take: the show folder, the frozen shot list and the take's
// folder and sidecar relative to it (targets 3.12.1 steps 3 and 8), as patch options for the take's graph.
import path from "node:path";
import type { EngineJob } from "../../engines/types.ts";
import { frozenPath } from "../../render/queue.ts";
import { sidecarPath, takeDir } from "../../render/sidecar.ts";
import { isObject } from "../../store/json-guards.ts";
import type { PatchOptions } from "../graph.ts";
import type { TargetSpec } from "../registry.ts";

/** `options` with the loader's and the pack saver's values for `job` when the target reads a shot list. */
export function shotListOptions(
  spec: TargetSpec,
  job: Pick<EngineJob, "ep" | "pass" | "subject" | "take">,
  options: PatchOptions = {},
): PatchOptions {
  if (!isObject(spec.binding.loader)) return options;
  const t = { ep: job.ep, pass: job.pass, shot: job.subject, take: job.take };
  // The show folder holds the episode, so every path the pack reads or writes is relative to one root.
  const root = path.dirname(job.ep);
  const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
  return {
    ...options,
    saverValues: {
      project_root: root,
      shotlist_file: rel(frozenPath(t)),
      index: 0,
      subfolder: rel(takeDir(t)),
      take: job.take,
      sidecar: rel(sidecarPath(t)),
      ...options.saverValues,
    },
  };
}
