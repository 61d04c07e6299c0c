// What a post request does to one take, decided from facts already read (no files, no engines): queue it with its
// recipe and hash, skip it (a fresh post with the same settings), or say why it cannot be done. A post may also be
// planned behind an upscale still on its way (the master's queue), from the size that upscale was planned at.
import type { TakeRecord } from "../episode/takes.ts";
import { positive, str } from "../store/json-guards.ts";
import { takeBackend } from "../upscale/facts.ts";
import { BUILTIN_LANE } from "../upscale/finish-run.ts";
import type { PostState, UpscaleState } from "../upscale/fresh.ts";
import { recipeHash } from "../upscale/recipe-hash.ts";
import { doesSomething, type Parsed, type PostSettings, postRecipe, recipeText } from "./recipe.ts";

/** What planning needs to know of one take's versions. */
export interface TakeVersions {
  shot: string;
  take: number;
  /** The lane its post runs on: the backend the take was rendered on. */
  lane: string;
  /** The take's upscale record, or null when it has none. */
  upscale: {
    status: "queued" | "ok" | "failed";
    fresh: boolean;
    /** Whether the take's own mp4 is still there (an upscale of a missing take is stale). */
    takeExists: boolean;
    mp4: boolean;
    width: number | null;
    height: number | null;
    quality: "review" | "master" | null;
  } | null;
  post: { status: "queued" | "ok" | "failed"; fresh: boolean; recipe_hash: string | null } | null;
}

/** A take's versions as planning reads them, from the take and its judged upscale and post. */
export function takeVersions(
  shot: string,
  t: TakeRecord,
  up: UpscaleState | null,
  post: PostState | null,
): TakeVersions {
  const rec = up?.record ?? null;
  return {
    shot,
    take: t.take,
    lane: takeBackend(t) ?? "local",
    upscale: up
      ? {
          status: up.status,
          fresh: up.fresh,
          takeExists: t.files.includes(`${t.stem}.mp4`),
          mp4: up.mp4 !== null,
          width: positive(rec?.width),
          height: positive(rec?.height),
          quality: rec?.quality ?? null,
        }
      : null,
    post: post
      ? { status: post.status, fresh: post.fresh, recipe_hash: str(post.record?.recipe_hash) }
      : null,
  };
}

export interface PlannedPost {
  shot: string;
  take: number;
  lane: string;
  settings: PostSettings;
  recipe: Record<string, unknown>;
  recipe_hash: string;
  quality: "review" | "master";
  encoder_asked: string;
  width: number;
  height: number;
  /** The post in words, for the answer and the queue's title. */
  what: string;
}

export type PostDecision =
  | { queue: PlannedPost }
  | { skip: { shot: string; take: number; reason: string } }
  | { error: { shot: string; take: number; error: string } };

/** Why an upscale cannot be posted now, in the words after "its upscale is stale or unfinished". */
function upscaleProblem(u: NonNullable<TakeVersions["upscale"]>): string | null {
  if (u.status === "queued") return "it is still being made: post it once it is done";
  if (u.status === "failed") return "its last upscale failed: upscale it again";
  if (!u.mp4) return "its .up.mp4 is missing: upscale it again";
  if (!u.takeExists) return "the take's own mp4 is missing";
  if (!u.fresh) return "it was made from an older take: upscale it again";
  return null;
}

/**
 * One take's decision. `settings` is the request's (or the take's merged recipe) as parsed; `quality` the one
 * asked (null: the recipe's, else the upscale's own). `behindUpscale`: the post is to wait for the queued upscale
 * job its record names, so an upscale still being made is no refusal (the job checks it once that one ends).
 */
export function planPost(
  v: TakeVersions,
  settings: Parsed<PostSettings>,
  ask: { redo: boolean; quality: "review" | "master" | null; behindUpscale?: boolean },
): PostDecision {
  const at = { shot: v.shot, take: v.take };
  if (!settings.ok) return { error: { ...at, error: settings.error } };
  const s = settings.value;
  if (!doesSomething(s)) return { error: { ...at, error: "nothing to do (no enhance, no motion blur)" } };
  if (!v.upscale)
    return { error: { ...at, error: "no upscale yet (a post is made from the upscale: upscale first)" } };
  const waits = ask.behindUpscale === true && v.upscale.status === "queued";
  const problem = waits ? null : upscaleProblem(v.upscale);
  if (problem) return { error: { ...at, error: `its upscale is stale or unfinished (${problem})` } };
  const { width, height } = v.upscale;
  if (width === null || height === null)
    return { error: { ...at, error: "its upscale record has no size: upscale it again" } };
  if (v.lane !== BUILTIN_LANE && v.lane !== "local") {
    return {
      error: {
        ...at,
        error: `posts run on the built-in engine or the local ComfyUI, and this take was rendered on ${v.lane}`,
      },
    };
  }
  if (v.lane === BUILTIN_LANE && s.enhance) {
    return {
      error: {
        ...at,
        error: `the built-in engine has no enhance step (${s.enhance.method} runs on ComfyUI): ask for motion blur alone, or render the take on ComfyUI`,
      },
    };
  }
  const quality = ask.quality ?? s.quality ?? v.upscale.quality ?? "review";
  const recipe = postRecipe(s, [width, height], quality);
  const hash = recipeHash(recipe);
  if (!ask.redo && v.post) {
    if (v.post.status === "queued" && v.post.recipe_hash === hash)
      return { skip: { ...at, reason: "a post with these settings is on its way" } };
    if (v.post.fresh && v.post.recipe_hash === hash)
      return { skip: { ...at, reason: "a fresh post with these settings" } };
  }
  return {
    queue: {
      ...at,
      lane: v.lane,
      settings: s,
      recipe,
      recipe_hash: hash,
      quality,
      encoder_asked: s.encoder ?? "auto",
      width,
      height,
      what: recipeText(s),
    },
  };
}
