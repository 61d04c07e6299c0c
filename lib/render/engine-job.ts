// The engine job of a take: what an engine needs to render it, made from the take's sidecar, its frozen shot list
// and the episode (captions of the animatic, the location's plate, the subjects' pictures, the window of the series
// track), and the references the engine read once it ran.
import path from "node:path";
import type { Entry } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { captionPlan, shotBeats, titleLine } from "../engines/builtin/caption-plan.ts";
import type { EngineJob } from "../engines/types.ts";
import { hashFile, refResolver } from "../episode/staleness.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { episodeFence, fileInside, guardPath, readShowText, showFence } from "../paths/guarded.ts";
import { draftTaskOf, isRouterTarget, routerTask } from "../router/target.ts";
import { parseJson } from "../store/json-file.ts";
import { isObject, num, trimmed } from "../store/json-guards.ts";
import { loaderVariant, variantNote } from "../targets/patches/h3-core.ts";
import { type ChainHold, holdInGraph } from "./chain.ts";
import { takeGraph } from "./comfy-graph.ts";
import { dubSlice } from "./dub-slice.ts";
import { h3CoreRefs } from "./h3-core-refs.ts";
import { jobFigures } from "./job-figures.ts";
import { ltxSheetFor } from "./ltx-sheet.ts";
import type { RenderPayload } from "./payload.ts";
import { frozenPath } from "./queue.ts";
import { seedValue } from "./seed.ts";
import { readSidecarNow, type Sidecar, type TakeRef } from "./sidecar.ts";
import { vaceReferenceFor } from "./vace-reference.ts";

/** The frozen shot list's one entry (what the take renders). */
export async function frozenEntry(t: TakeRef): Promise<Entry> {
  const doc = parseJson(await readShowText(episodeFence(t.ep), frozenPath(t)));
  const shots = isObject(doc) && Array.isArray(doc.shots) ? doc.shots : [];
  const first: unknown = shots[0];
  if (!isObject(first)) throw new Error(`${path.basename(frozenPath(t))} holds no shot entry`);
  return first;
}

/**
 * What the animatic shows and says: its captions in script order (the shot's action and lines, each with its
 * stretch of the shot), the lines the built-in voice speaks (each speaker's `voice` brief and `design` steer the
 * voice), and its title line (shot, location, size, camera).
 */
export function shotScriptFor(
  vi: ViewInputs | null,
  shot: string,
  seconds: number,
): Pick<EngineJob, "captions" | "spoken" | "title"> {
  const subjects = isObject(vi?.seriesRaw?.subjects) ? vi.seriesRaw.subjects : {};
  const subject = (id: string) => (Object.hasOwn(subjects, id) && isObject(subjects[id]) ? subjects[id] : {});
  for (const seq of vi?.story?.sequences ?? []) {
    const s = seq.shots.find((x) => x.id === shot);
    if (!s) continue;
    const beats = shotBeats(s, (id) => trimmed(subject(id).name) ?? id);
    const { captions, spoken } = captionPlan(beats, seconds);
    return {
      captions,
      spoken: spoken.map((l) => {
        const who = subject(l.speaker);
        const voice = [trimmed(who.voice), trimmed(who.design)].filter(Boolean).join("; ");
        return { ...l, voice: voice || null };
      }),
      title: titleLine({ shot, location: s.plate || seq.location, size: s.size, camera: s.camera }),
    };
  }
  return { captions: [], spoken: [], title: shot };
}

/** The plate of the shot's location (`locations.<key>.plate`, from the series config's folder), when it exists. */
async function plateOf(vi: ViewInputs | null, shot: string): Promise<string | null> {
  if (!vi) return null;
  let key: string | null = null;
  for (const seq of vi.story?.sequences ?? []) {
    const s = seq.shots.find((x) => x.id === shot);
    if (s) key = s.plate || seq.location;
  }
  const locations = vi.seriesRaw?.locations;
  const loc = key && isObject(locations) ? locations[key] : undefined;
  const plate = isObject(loc) ? trimmed(loc.plate) : null;
  if (!plate) return null;
  const abs = refResolver(vi, vi.ep, vi.home)(plate);
  return fileInside(showFence(vi.ep), abs);
}

/** The window of the series track (`audio.track`) under a shot with `audio_in`/`audio_out`. */
async function audioOf(vi: ViewInputs | null, entry: Entry): Promise<EngineJob["audio"]> {
  const start = num(entry.audio_in);
  const end = num(entry.audio_out);
  const audio = vi?.seriesRaw?.audio;
  const track = isObject(audio) ? trimmed(audio.track) : null;
  if (!vi || start === null || end === null || !track) return null;
  // A track linked out of the show folder is never read: the shot gets silence instead.
  const real = await guardPath(showFence(vi.ep), refResolver(vi, vi.ep, vi.home)(track)).catch(() => null);
  return real ? { path: real, start, end } : null;
}

export interface EngineJobInput {
  services: Pick<Services, "env" | "targets" | "media">;
  t: TakeRef;
  payload: RenderPayload;
  /** The take's sidecar as queued. */
  sidecar: Sidecar;
  entry: Entry;
  /** The episode as the page sees it (null when it cannot be read: no captions, plate or track then). */
  vi: ViewInputs | null;
  workDir: string;
  /** A latent chain's hold of the previous take (ComfyUI targets only), or null. */
  hold?: ChainHold | null;
  /** The engine's node classes, when it listed them: a shot-list target without its pack there takes the core path. */
  known?: ReadonlySet<string> | null;
}

/**
 * The engine job of a take; for a ComfyUI target also its workflow patched with the take's values. Answers the
 * job and the notes the patching left.
 */
export async function engineJobFor(
  input: EngineJobInput,
): Promise<{ job: EngineJob; notes: string[]; lengthSource?: "predicted"; variant?: string }> {
  const { t, payload: p, sidecar, entry, vi, workDir } = input;
  const env = input.services.env;
  const inputs: Record<string, string> = {};
  const first = p.first_frame ? await fileInside(showFence(p.ep), p.first_frame) : null;
  if (first) inputs.first = first;
  const last = p.last_frame ? await fileInside(showFence(p.ep), p.last_frame) : null;
  if (last) inputs.last = last;
  const plate = await plateOf(vi, t.shot);
  if (plate) inputs.plate = plate;
  const spec = vi?.env.targets.get(p.target) ?? input.services.targets.get(p.target);
  // The built-in animatic draws the subjects' pictures its recipe reads; ComfyUI targets compose their own.
  const layout = spec?.backend === "builtin" ? spec.recipe.reference_sheet : undefined;
  const drawn = vi && layout ? await jobFigures(vi, layout, entry, sidecar.refs) : null;
  if (drawn) Object.assign(inputs, drawn.inputs);
  const fps = num(sidecar.fps) ?? 24;
  const frames = num(sidecar.length) ?? num(entry.length) ?? 1;
  const job: EngineJob = {
    kind: "video",
    target: p.target,
    ep: p.ep,
    pass: p.pass,
    subject: p.shot,
    take: p.take,
    stem: p.stem,
    width: num(sidecar.width) ?? num(entry.width) ?? 448,
    height: num(sidecar.height) ?? num(entry.height) ?? 256,
    fps,
    frames,
    seed: seedValue(sidecar.seed) ?? seedValue(entry.seed) ?? 0n,
    prompt: Array.isArray(entry.prompt) ? entry.prompt.map(String) : String(entry.prompt ?? ""),
    negative: typeof entry.negative === "string" ? entry.negative : null,
    entry,
    inputs,
    audio: await audioOf(vi, entry),
    ...shotScriptFor(vi, p.shot, frames / fps),
    ...(drawn ? { figures: drawn.figures } : {}),
    workDir,
  };
  // Router targets: the provider task (a final made from a draft names the draft's task alone).
  if (spec && isRouterTarget(spec)) {
    const task = await routerTask(spec, { ...job, fromDraft: draftTaskOf(sidecar.from_draft) });
    job.task = task.body;
    return { job, notes: task.notes };
  }
  // Wan VACE: the shot's subjects composed into one reference picture, uploaded as `inputs.reference`.
  const vace = spec?.backend !== "builtin" && vi ? spec?.recipe.reference_image : undefined;
  if (vace && vi) {
    const made = await vaceReferenceFor(vi, vace, { ...job, refs: sidecar.refs });
    if (made) inputs.reference = made.file;
  }
  // LTX reference sheets: the shot's subjects composed the same way at job start, uploaded as `inputs.sheet` (the
  // ltx2 patch adds it only when its IC-LoRA is installed; ltx2_ingredients renders text-only without one).
  const ltx = spec?.binding.keyframe_patch;
  const sheetLayout =
    vi && (ltx === "ltx2" || ltx === "ltx2_ingredients") ? spec?.recipe.reference_sheet : undefined;
  if (sheetLayout && vi) {
    const made = await ltxSheetFor(vi, sheetLayout, { ...job, refs: sidecar.refs }, plate);
    if (made) inputs.sheet = made;
  }
  // ComfyUI targets: the target's workflow patched with the take's values; the engine uploads and runs it.
  const notes: string[] = [];
  let lengthSource: "predicted" | undefined;
  let pathNote: string | undefined;
  if (spec && spec.backend !== "builtin" && p.backend !== "builtin") {
    const dub = await dubSlice(input.services.media, spec, entry, job);
    if (dub) inputs.audio = dub;
    // A shot-list target: the pack's path where the engine has the pack, else the core graph with uploaded refs.
    const variant = loaderVariant(spec, input.known);
    if (variant === "core" && vi) {
      const core = await h3CoreRefs(vi, spec, sidecar);
      Object.assign(inputs, core.inputs);
      notes.push(...core.notes);
    }
    if (variant) {
      pathNote = variantNote(spec, variant);
      notes.push(pathNote);
    }
    const patched = await takeGraph(spec, sidecar, job, env, p.workflow?.graph, {
      review: p.review_copy === true,
      ...(variant ? { variant } : {}),
    });
    job.graph = patched.graph;
    job.saver = patched.saver;
    notes.push(...patched.notes);
    // The duration head sets the length when the graph runs (`dur: model`): the take says so.
    if (patched.length_source) lengthSource = patched.length_source;
    if (input.hold) {
      inputs.hold = input.hold.file;
      job.graph = holdInGraph(spec, job.graph, input.hold);
      // Nothing trims the held frames off yet (the pack's H3ChainTrim is not spliced): the take says so.
      notes.push(
        `its first ${input.hold.overlap} frames repeat the end of ${input.hold.shot} (held by ${input.hold.via === "latent" ? "its kept latent" : "its frames"}; they are not trimmed off)`,
      );
    }
  }
  return {
    job,
    notes,
    ...(lengthSource ? { lengthSource } : {}),
    ...(pathNote ? { variant: pathNote } : {}),
  };
}

/**
 * SHA-1 of every recorded reference the engine read, by recorded path: a keyframe cut at job start did not
 * exist at queue time, and the take must not read as made without it. Matched against the engine job's own
 * inputs (files on this machine), not the prepared ones: those are upload names on ComfyUI.
 */
export async function usedRefs(
  services: Pick<Services, "caches">,
  t: TakeRef,
  home: string,
  job: Pick<EngineJob, "inputs">,
): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const sc = await readSidecarNow(t);
  const refs = Array.isArray(sc?.refs) ? sc.refs : [];
  const resolve = refResolver(services, t.ep, home);
  const read = new Set(Object.values(job.inputs).map((p) => path.resolve(p)));
  for (const r of refs) {
    if (!isObject(r) || typeof r.path !== "string") continue;
    const abs = resolve(r.path);
    if (read.has(abs)) out.set(r.path, await hashFile(showFence(t.ep), abs));
  }
  return out;
}
