// Whether the engines can run the posts about to be queued, asked before anything is written: the built-in lane
// needs ffmpeg; the local ComfyUI must answer its node list (502 when it does not) and offer every node class and
// model file the posts' graphs load (409 naming each one missing, and the pack that brings it).
import type { Services } from "../context.ts";
import type { NodeInfo } from "../engines/comfyui/readiness.ts";
import { localAddress } from "../engines/registry.ts";
import { StudioError } from "../errors.ts";
import { mediaTools } from "../media/ffmpeg.ts";
import { errorMessage } from "../store/json-guards.ts";
import { BUILTIN_LANE } from "../upscale/finish-run.ts";
import { missingSentences } from "../upscale/graphs/missing.ts";
import type { SourceVideo } from "../upscale/graphs/types.ts";
import { postGraphRequest } from "./comfy.ts";
import { postGraph } from "./graphs/index.ts";
import type { PlannedPost } from "./plan.ts";

export interface ReadyAsk {
  plan: PlannedPost;
  source: SourceVideo;
  seed: string | null;
  stem: string;
}

type ReadyServices = Pick<Services, "media" | "home" | "env" | "caches" | "engines">;

/** What the local ComfyUI lacks to run these posts, as sentences; throws 502 when it does not answer. */
export async function localMissing(services: ReadyServices, asks: readonly ReadyAsk[]): Promise<string[]> {
  const url = await localAddress(services);
  const lookups = services.engines.lookups;
  let info: Record<string, NodeInfo>;
  try {
    info = await lookups.objectInfo(url);
  } catch (err) {
    throw new StudioError(502, `the ComfyUI at ${url} didn't answer its node list: ${errorMessage(err)}`);
  }
  const needs = asks.map((a) => postGraph(postGraphRequest(a.plan.settings, a.source, a.seed, a.stem)).needs);
  const folders: Record<string, readonly string[] | null> = {};
  for (const folder of new Set(needs.flatMap((n) => n.models.map((m) => m.folder)))) {
    // A folder the server does not list is judged from its loader's choices instead.
    folders[folder] = await lookups.models(url, folder).catch(() => null);
  }
  const out: string[] = [];
  for (const n of needs)
    for (const s of missingSentences(n, info, folders)) if (!out.includes(s)) out.push(s);
  return out;
}

export async function checkPostReadiness(services: ReadyServices, asks: readonly ReadyAsk[]): Promise<void> {
  if (asks.some((a) => a.plan.lane === BUILTIN_LANE)) await mediaTools(services.media);
  const local = asks.filter((a) => a.plan.lane === "local");
  if (local.length === 0) return;
  const missing = await localMissing(services, local);
  if (missing.length) throw new StudioError(409, `this ComfyUI can't run these posts: ${missing.join("; ")}`);
}
