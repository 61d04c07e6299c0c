// Whether the engines can run the posts about to be queued, asked before anything is written: the built-in lane
// needs ffmpeg; the local ComfyUI must answer its node list (502 when it does not) and offer every node class and
// model file the posts' graphs load (409 naming each one missing, and the pack that brings it).
import type { Services } from "../context.ts";
import { mediaTools } from "../media/ffmpeg.ts";
import { BUILTIN_LANE } from "../upscale/finish-run.ts";
import type { GraphNeeds, SourceVideo } from "../upscale/graphs/types.ts";
import { refuseMissing } from "../upscale/readiness.ts";
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

/** The node classes and model files a post's graph loads. */
export const postNeeds = (a: ReadyAsk): GraphNeeds =>
  postGraph(postGraphRequest(a.plan.settings, a.source, a.seed, a.stem)).needs;

export async function checkPostReadiness(services: ReadyServices, asks: readonly ReadyAsk[]): Promise<void> {
  if (asks.some((a) => a.plan.lane === BUILTIN_LANE)) await mediaTools(services.media);
  const local = asks.filter((a) => a.plan.lane === "local");
  if (local.length) await refuseMissing(services, local.map(postNeeds), "posts");
}
