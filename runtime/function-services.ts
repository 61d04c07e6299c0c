// The services of a per-function deployment on a platform with no file system and no worker threads: the shipped
// targets bundled with the code, compiles in line, and no job store, engines, settings folder or show folders.
// A route that needs those is not served there; reaching one anyway answers 501 saying so.
import type { EventSink, Logger, Services } from "../lib/context.ts";
import { createInlineCompiler } from "../lib/episode/compile-inline.ts";
import { StudioError } from "../lib/errors.ts";
import { createJobSignals } from "../lib/jobs/wake.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import pkg from "../package.json" with { type: "json" };

const NEEDS_HOST = "needs the shared storage of a studio host (node runtime/function.js or the full server)";

/** A service this platform does not have: any use of it is a 501 naming it. */
function absent<T extends object>(name: string): T {
  const refuse = (): never => {
    throw new StudioError(501, `${name} ${NEEDS_HOST}`);
  };
  return new Proxy({} as T, { get: refuse, apply: refuse });
}

export function functionServices(opts: {
  env: Record<string, string | undefined>;
  log: Logger;
  events: EventSink;
}): Services {
  const targets = shippedRegistry();
  return {
    home: "",
    env: opts.env,
    roles: ["api"],
    version: pkg.version,
    log: opts.log,
    events: opts.events,
    now: () => new Date(),
    jobs: () => Promise.reject(new StudioError(501, `the job store ${NEEDS_HOST}`)),
    jobSignals: createJobSignals(),
    jobKinds: () => Promise.reject(new StudioError(501, `job kinds ${NEEDS_HOST}`)),
    engines: absent("rendering engines"),
    compile: createInlineCompiler(targets),
    targets,
    caches: absent("the caches of show files"),
    locks: absent("episode locks"),
    media: absent("ffmpeg and ffprobe"),
  };
}
