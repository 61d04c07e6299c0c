// The job kinds table: each kind's payload schema, how a worker runs it and how it is retried. Adding a kind is
// one module in this folder and one line in `jobKinds`. Modules named in STUDIO_WORKER_EXTRA_HANDLERS add kinds
// the service does not ship (tests, extensions).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { JobHandler, JobKinds } from "../../lib/jobs/kinds.ts";
import { isObject } from "../../lib/store/json-guards.ts";
import { alignJob } from "./align.ts";
import { assembleJob } from "./assemble.ts";
import { installJob } from "./install.ts";
import { masterJob } from "./master.ts";
import { postJob } from "./post.ts";
import { presetJob } from "./preset.ts";
import { refJob } from "./ref.ts";
import { renderJob } from "./render.ts";
import { stepJob } from "./step.ts";
import { tourJob } from "./tour.ts";
import { upscaleJob } from "./upscale.ts";

export const jobKinds = {
  align: alignJob,
  assemble: assembleJob,
  install: installJob,
  master: masterJob,
  post: postJob,
  preset: presetJob,
  ref: refJob,
  render: renderJob,
  step: stepJob,
  tour: tourJob,
  upscale: upscaleJob,
} satisfies JobKinds;

/** The payload of a job of one of the shipped kinds, as its worker receives it. */
export type JobPayload<K extends keyof typeof jobKinds> = z.infer<(typeof jobKinds)[K]["payload"]>;

/** A module named in STUDIO_WORKER_EXTRA_HANDLERS default-exports one of these; its payload is not checked. */
export interface ExtraHandler {
  kind: string;
  handler: JobHandler;
}

/** A kind whose payload is taken as it is (extension kinds, tests). */
export function plainKind(handler: JobHandler): JobKinds[string] {
  return { payload: z.unknown(), run: handler };
}

/**
 * The table plus the modules in `STUDIO_WORKER_EXTRA_HANDLERS` (comma-separated paths or file: URLs). A module's
 * kind replaces the shipped kind of the same name.
 */
export async function loadJobKinds(env: Record<string, string | undefined>): Promise<JobKinds> {
  const table: Record<string, JobKinds[string]> = { ...jobKinds };
  const specs = (env.STUDIO_WORKER_EXTRA_HANDLERS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const spec of specs) {
    const url = spec.startsWith("file:") ? spec : pathToFileURL(path.resolve(spec)).href;
    const mod: unknown = await import(url);
    const extra = isObject(mod) ? mod.default : undefined;
    if (
      !isObject(extra) ||
      typeof extra.kind !== "string" ||
      !extra.kind ||
      typeof extra.handler !== "function"
    )
      throw new Error(
        `STUDIO_WORKER_EXTRA_HANDLERS: ${spec} must default-export {kind: string, handler: function}`,
      );
    const handler = extra.handler;
    table[extra.kind] = plainKind((job, ctx) => Promise.resolve(handler(job, ctx)));
  }
  return table;
}
