// The kind → handler table of a worker, and the extension hook that adds handler modules named in the environment.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { JobKind } from "../lib/jobs/types.ts";
import { assembleJob } from "./jobs/assemble.ts";
import { renderJob } from "./jobs/render.ts";
import type { HandlerTable } from "./pool.ts";
import type { JobHandler } from "./types.ts";

export const handlers: Partial<Record<JobKind, JobHandler>> = {
  assemble: assembleJob,
  render: renderJob,
};

/** A module named in STUDIO_WORKER_EXTRA_HANDLERS default-exports one of these. */
export interface ExtraHandler {
  kind: string;
  handler: JobHandler;
}

/**
 * The table plus the modules in `STUDIO_WORKER_EXTRA_HANDLERS` (comma-separated paths or file: URLs): a hook for
 * tests and extensions, so a worker can run a kind the service itself does not ship. A module's kind replaces the
 * built-in handler of the same kind.
 */
export async function loadHandlers(env: Record<string, string | undefined>): Promise<HandlerTable> {
  const table: Record<string, JobHandler | undefined> = { ...handlers };
  const specs = (env.STUDIO_WORKER_EXTRA_HANDLERS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const spec of specs) {
    const url = spec.startsWith("file:") ? spec : pathToFileURL(path.resolve(spec)).href;
    const mod = (await import(url)) as { default?: Partial<ExtraHandler> };
    const extra = mod.default;
    if (!extra || typeof extra.kind !== "string" || !extra.kind || typeof extra.handler !== "function")
      throw new Error(
        `STUDIO_WORKER_EXTRA_HANDLERS: ${spec} must default-export {kind: string, handler: function}`,
      );
    table[extra.kind] = extra.handler;
  }
  return table;
}
