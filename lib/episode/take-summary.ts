// One take as GET /studio/episode lists it (contract "Take summary"): read from the sidecar
// and the file names of the take, with its upscale and post records; never opens the media itself.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { isObject, objectOr, positive, str } from "../store/json-guards.ts";
import { judgeVersions } from "../upscale/fresh.ts";
import { type RecipeInputs, upscaleRecipeMatch } from "../upscale/recipe-match.ts";
import type { FileProbe, StaleReason } from "./staleness.ts";
import { hasVideo, passFolder, safeShot, type TakeRecord, type TakeStatus, takeStatus } from "./takes.ts";

/** Draft takes last 7 days; after that the final cannot be made from them (contract rendering rule 9). */
export const DRAFT_LIFE_MS = 7 * 24 * 3600 * 1000;

export interface TakeSummary {
  take: number;
  status: TakeStatus;
  has_video: boolean;
  seed: string | null;
  seed_source: string | null;
  frames: number | null;
  fps: number | null;
  width: number | null;
  height: number | null;
  note: string;
  overrides: string[];
  stale: StaleReason[];
  thumb: string | null;
  strip: string | null;
  mp4: string | null;
  queued: string | null;
  finished: string | null;
  backend_prompt_id: string | null;
  save_notes: string;
  target: string | null;
  audio: string | null;
  draft: Record<string, unknown> | null;
  from_draft: unknown;
  upscale: Record<string, unknown> | null;
  post: Record<string, unknown> | null;
}

export interface TakeExtras {
  upscale: Record<string, unknown> | null;
  post: Record<string, unknown> | null;
}

/** A deep copy where every value under a `seed` key is a string (seeds are 63-bit: the wire carries text). */
export function seedsOut(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(seedsOut);
  if (typeof value === "bigint") return value.toString();
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === "seed" && (typeof v === "bigint" || typeof v === "number") ? String(v) : seedsOut(v);
  }
  return out;
}

/** `renders[_proxy]/<shot>/<name>`: how the episode names a file of a take. */
export const takeFileRel = (pass: Pass, shot: string, name: string) =>
  `${passFolder(pass)}/${safeShot(shot)}/${name}`;

/** The file `name` (or the sidecar's own name for it) when the take folder has it, episode-relative. */
function present(
  t: TakeRecord,
  pass: Pass,
  shot: string,
  conventional: string,
  recorded: unknown,
): string | null {
  const own = str(recorded);
  const name = own && t.files.includes(own) ? own : t.files.includes(conventional) ? conventional : null;
  return name ? takeFileRel(pass, shot, name) : null;
}

/**
 * The file whose sound the cut plays for the take, without probing: a silent target's mp4 has no sound, so
 * its `_h3.wav` (if any) is the sound; otherwise the mp4, else the wav.
 */
export function takeAudio(t: TakeRecord, pass: Pass, shot: string, silent: boolean): string | null {
  const wav = t.files.includes(`${t.stem}_h3.wav`) ? takeFileRel(pass, shot, `${t.stem}_h3.wav`) : null;
  if (silent) return wav;
  return hasVideo(t) ? takeFileRel(pass, shot, `${t.stem}.mp4`) : wav;
}

export function draftView(draft: unknown, now: Date): Record<string, unknown> | null {
  if (!isObject(draft)) return null;
  const madeAt = str(draft.made);
  const made = madeAt ? Date.parse(madeAt) : Number.NaN;
  const expired = Number.isFinite(made) ? made + DRAFT_LIFE_MS < now.getTime() : false;
  return { ...objectOr(seedsOut(draft)), expired };
}

export interface SummaryContext {
  pass: Pass;
  shot: string;
  stale: StaleReason[];
  extras: TakeExtras;
  now: Date;
  /** The take's target renders no sound (its mp4 carries none). */
  silent: boolean;
}

export function takeSummary(t: TakeRecord, c: SummaryContext): TakeSummary {
  const sc = t.sidecar ?? {};
  const seed = sc.seed;
  return {
    take: t.take,
    status: takeStatus(t),
    has_video: hasVideo(t),
    seed: typeof seed === "bigint" || typeof seed === "number" ? String(seed) : str(seed),
    seed_source: str(sc.seed_source),
    frames: positive(sc.frames),
    fps: positive(sc.fps),
    width: positive(sc.width),
    height: positive(sc.height),
    note: typeof sc.note === "string" ? sc.note : "",
    overrides: Array.isArray(sc.overrides) ? sc.overrides.filter((x) => typeof x === "string") : [],
    stale: c.stale,
    thumb: present(t, c.pass, c.shot, `${t.stem}.jpg`, sc.thumb),
    strip: present(t, c.pass, c.shot, `${t.stem}_strip.jpg`, sc.strip),
    mp4: present(t, c.pass, c.shot, `${t.stem}.mp4`, sc.mp4),
    queued: str(sc.queued),
    finished: str(sc.finished),
    backend_prompt_id: str(sc.backend_prompt_id) ?? str(sc.comfy_prompt_id),
    save_notes: typeof sc.save_notes === "string" ? sc.save_notes : "",
    target: str(sc.target),
    audio: takeAudio(t, c.pass, c.shot, c.silent),
    draft: draftView(sc.draft, c.now),
    from_draft: sc.from_draft === undefined ? null : seedsOut(sc.from_draft),
    upscale: c.extras.upscale,
    post: c.extras.post,
  };
}

// ------------------------------------------------------------------------------------------- upscale, post

const UPSCALE_FIELDS = [
  "width",
  "height",
  "route",
  "start_step",
  "method",
  "pixel_model",
  "seedvr2_model",
  "then_pixel",
  "deliver",
  "keep",
  "on_upscale",
  "encoder",
  "precision",
  "finish",
  "quality",
  "save_notes",
] as const;

/** The take's `.up.json` and `.post.json` summaries (api extras 1.6, 1.9), or null when absent. */
export async function takeExtras(
  services: Pick<Services, "caches"> & RecipeInputs,
  ep: string,
  pass: Pass,
  shot: string,
  t: TakeRecord,
  probe: FileProbe,
): Promise<TakeExtras> {
  if (!t.files.some((f) => f.endsWith(".up.json") || f.endsWith(".post.json")))
    return { upscale: null, post: null };
  const v = await judgeVersions(services, { ep, pass, shot, stem: t.stem, files: t.files }, probe);
  let upscale: Record<string, unknown> | null = null;
  if (v.upscale) {
    const rec: Record<string, unknown> = v.upscale.record ?? { unreadable: true };
    upscale = { status: v.upscale.status, fresh: v.upscale.fresh };
    for (const k of UPSCALE_FIELDS) if (rec[k] !== undefined) upscale[k] = seedsOut(rec[k]);
    upscale.recipe_match = await upscaleRecipeMatch(services, shot, t, v.upscale, probe);
    upscale.backend_prompt_id = str(rec.backend_prompt_id) ?? str(rec.comfy_prompt_id);
    upscale.mp4 = v.upscale.mp4 ? takeFileRel(pass, shot, path.basename(v.upscale.mp4)) : null;
  }
  let post: Record<string, unknown> | null = null;
  if (v.post) {
    const rec: Record<string, unknown> = v.post.record ?? { unreadable: true };
    post = {
      status: v.post.status,
      fresh: v.post.fresh,
      recipe: seedsOut(rec.recipe ?? null),
      width: rec.width ?? null,
      height: rec.height ?? null,
      backend_prompt_id: str(rec.backend_prompt_id) ?? str(rec.comfy_prompt_id),
      mp4: v.post.mp4 ? takeFileRel(pass, shot, path.basename(v.post.mp4)) : null,
      save_notes: typeof rec.save_notes === "string" ? rec.save_notes : "",
    };
  }
  return { upscale, post };
}
