// Every route of the API contract, as "METHOD /path" below /studio (`:name` for a path parameter). A contract
// route with no module in the table answers 501 "not built yet", so a client can tell it from a typo (404).
import { StudioError } from "../lib/errors.ts";
import { defineFunction, type Method, type StudioFunction } from "./fn.ts";

export const CONTRACT_ROUTES: readonly string[] = [
  // configuration, episodes, shots
  "POST /server/stop",
  "GET /config",
  "PUT /config",
  "GET /browse",
  "GET /episodes",
  "GET /episode",
  "GET /shot",
  "POST /build",
  "GET /episode/new",
  "POST /episode/new",
  "POST /import",
  // issues and files
  "GET /issues",
  "POST /issues",
  "DELETE /issues",
  "GET /issues/export",
  "GET /file",
  "GET /thumb",
  // rendering, cut, overrides
  "POST /render",
  "POST /cancel",
  "PUT /pick",
  "PUT /cut",
  "POST /cut/reset",
  "POST /cut/copy",
  "PUT /override",
  "DELETE /override",
  "POST /discard",
  "PUT /episode-target",
  // assemble, upscale, post, master
  "POST /assemble",
  "POST /upscale",
  "DELETE /upscale",
  "GET /upscale/options",
  "PUT /upscale/keep",
  "PUT /upscale/recipe",
  "POST /post",
  "DELETE /post",
  "GET /post/options",
  "POST /master",
  "GET /master/job",
  // dialogue audio
  "GET /peaks",
  "GET /align/ready",
  "POST /track",
  "POST /align",
  "POST /audio/import",
  // references
  "GET /refs",
  "GET /refs/owner-takes",
  "POST /refs/generate",
  "POST /refs/generate-missing",
  "POST /refs/keyframe",
  "POST /refs/tour",
  "POST /refs/tour-frame",
  "POST /refs/copy-take",
  "POST /refs/relight",
  "POST /refs/from-frame",
  "POST /refs/video",
  "GET /refs/videos",
  "PUT /refs/pick",
  "DELETE /refs/pick",
  "PUT /refs/override",
  "DELETE /refs/override",
  "PUT /refs/defaults",
  "POST /refs/import",
  "POST /refs/discard",
  "POST /refs/match",
  "POST /refs/voice-from-take",
  "GET /drafts",
  "POST /clip/queue",
  "POST /clips/ensure",
  "POST /clips/new",
  // targets, presets, workflows, hosted models
  "GET /targets",
  "GET /models",
  "GET /presets",
  "GET /presets/image",
  "POST /presets/own",
  "POST /presets/own/picture",
  "POST /presets/own/render",
  "POST /presets/own/delete",
  "POST /workflow/install",
  "DELETE /workflow/install",
  "GET /workflows",
  "POST /targets/inspect",
  "PUT /targets/custom",
  "DELETE /targets/custom",
  "GET /router/models",
  "POST /targets/router-inspect",
  "POST /targets/router-dryrun",
  "PUT /targets/limits",
  // source editing and promote
  "GET /source",
  "PUT /source",
  "POST /source/check",
  "POST /shot/preview",
  "GET /promote",
  "POST /promote",
  // queue, backends, settings, features
  "GET /info",
  "GET /jobs",
  "POST /jobs/:action",
  "GET /backends",
  "GET /settings",
  "PUT /settings",
  "POST /sdk/install",
  "GET /features",
  "GET /features/sizes",
  "POST /features/install",
  "POST /features/cancel",
];

/**
 * The file of a route module below functions/, without its extension, by the naming rule of functions/index.ts:
 * `GET /models` is `models/get`, `PUT /refs/pick` is `refs/pick.put`, `POST /jobs/:action` is `jobs/action.post`,
 * and a route mounted at the server's root sits under `root/`.
 */
export function routeFile(fn: Pick<StudioFunction, "method" | "path" | "root">): string {
  const [first, ...rest] = fn.path
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/^:/, ""));
  const method = fn.method.toLowerCase();
  const name = rest.length ? `${rest.join("/")}.${method}` : method;
  return `${fn.root ? "root/" : ""}${first}/${name}`;
}

const QUEUE_PREFIXES = ["/info", "/jobs", "/backends", "/settings", "/sdk/", "/features"];

/** The contract's queue section (info, jobs, backends, settings, sdk, features): no /api/studio alias standalone. */
export function isQueueRoute(path: string): boolean {
  return QUEUE_PREFIXES.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`));
}

/** A 501 route for each contract route the table does not serve yet. */
export function notBuiltYet(built: readonly StudioFunction[]): StudioFunction[] {
  const have = new Set(built.filter((f) => !f.root).map((f) => `${f.method} ${f.path}`));
  return CONTRACT_ROUTES.filter((r) => !have.has(r)).map((route) => {
    const [method, path] = route.split(" ") as [Method, string];
    return defineFunction({
      method,
      path,
      summary: "Not built yet: answers 501",
      queue: isQueueRoute(path),
      handler() {
        throw new StudioError(501, `${method} /studio${path} is not built yet`);
      },
    });
  });
}
