// One target's compile for a pass: the shot-list document and its report (script format 4.14).
import {
  CEILING,
  dialogueSyllables,
  MIN_SPEAKING_WINDOW,
  PACE_RATES,
  pauses,
  TIGHT_MARGIN,
} from "../script/pacing.ts";
import { roundHalfEven, roundHalfEvenTo } from "../script/rounding.ts";
import { shotSeed } from "../script/seeds.ts";
import { continues, keyframeMethod } from "../script/story.ts";
import type { DialogueLine } from "../script/types.ts";
import { snapFrames } from "../targets/grid.ts";
import { type KeyframeEnd, type TargetSpec, takesNegative } from "../targets/registry.ts";
import { audioIntent, defaultPolicy, renderAudio } from "./audio.ts";
import { type BuildCtx, checkRefsBlock, shotPace } from "./context.ts";
import { gridOf, paddingWarning, shotLength } from "./length.ts";
import { writePrompt } from "./prompts/index.ts";
import { plateRef, subjectRef, voiceRef } from "./refs.ts";
import { type PassSettings, passSettings, passStepWarning, presetExtras, shotSettings } from "./settings.ts";
import { checkLocations, type Panel, panelsFor, slotInfo, slotted, voiceRefs } from "./slots.ts";
import type { Entry, NeededRef, Report, ShotCtx, ShotlistDoc } from "./types.ts";

export interface TargetCompile {
  doc: ShotlistDoc;
  report: Report;
  pass: PassSettings;
}

const MAX_PANELS = 4;
const SAFE_ID = /[^A-Za-z0-9_.-]/g;

/** `refs/shots/<shot>/<end>.png`, the shot id made safe for a folder name. */
export function keyframePath(spec: TargetSpec, shotId: string, end: KeyframeEnd): string {
  const template = spec.recipe.keyframe_path ?? "refs/shots/{shot}/{end}.png";
  return template.replaceAll("{shot}", shotId.replace(SAFE_ID, "_")).replaceAll("{end}", end);
}

const s2 = (n: number) => n.toFixed(2);

/** The layout of a reference picture composed at queue time, when the target requires one (VACE, ingredients). */
function requiredLayout(spec: TargetSpec) {
  if (spec.recipe.reference_image) return spec.recipe.reference_image;
  const sheet = spec.recipe.reference_sheet;
  return sheet?.required ? sheet : undefined;
}

/** Targets whose shots need pictures made by the image target: subject sheets, composed references, Wan keyframes. */
function needsImageTarget(spec: TargetSpec): boolean {
  const r = spec.recipe;
  return (
    r.subject_slots !== undefined ||
    r.reference_image !== undefined ||
    r.keyframe_required !== undefined ||
    spec.capabilities.audio === "none"
  );
}

interface Collect {
  needed: Record<string, NeededRef>;
  blocked: Record<string, string[]>;
}

function need(c: Collect, path: string, ref: NeededRef, shot: string): void {
  if (!path) return;
  if (!c.needed[path]) c.needed[path] = ref;
  block(c, path, shot);
}

function block(c: Collect, path: string, shot: string): void {
  const list = c.blocked[path];
  if (!list) c.blocked[path] = [shot];
  else if (!list.includes(shot)) list.push(shot);
}

/** Syllables and pauses of a shot's lines, counted once per build (every target of the pass reuses them). */
function measure(ctx: BuildCtx, dialogue: readonly DialogueLine[]): { syl: number; pauses: number } {
  const measures = ctx.memo.measures;
  let m = measures.get(dialogue);
  if (!m) {
    m = { syl: dialogueSyllables(dialogue), pauses: pauses(dialogue) };
    measures.set(dialogue, m);
  }
  return m;
}

function paceWarning(
  ctx: BuildCtx,
  sc: ShotCtx,
  spec: TargetSpec,
  length: number,
  fps: number,
): string | null {
  const { shot } = sc;
  if (shot.dialogue.length === 0) return null;
  const { syl, pauses: air } = measure(ctx, shot.dialogue);
  if (syl === 0) return null;
  const pace = shotPace(ctx, shot);
  const held = length / fps;
  // The pacing verdict (pacing.ts `verdict`), on the cached counts.
  const rate = syl / Math.max(MIN_SPEAKING_WINDOW, held - air);
  const crammed = rate > CEILING;
  if (!crammed && rate <= PACE_RATES[pace] + TIGHT_MARGIN) return null;
  if (!crammed && !slotted(spec)) return null;
  const grid = gridOf(spec);
  const fits = snapFrames(roundHalfEven((syl / PACE_RATES[pace] + air) * fps), grid) / fps;
  if (crammed) {
    const holds = Math.trunc(PACE_RATES[pace] * Math.max(0, held - air));
    const room = slotted(spec) ? `; the window holds about ${holds} syllables` : "";
    return (
      `${shot.id}: CRAMMED: ${syl} syllables in ${s2(held)} s (${s2(rate)}/s, over the ceiling of ${CEILING})${room}; ` +
      `the lines fit in ${s2(fits)} s`
    );
  }
  return (
    `${shot.id}: tight: ${syl} syllables in ${s2(held)} s (${s2(rate)}/s at ${pace} pace, ${PACE_RATES[pace]}/s): ` +
    `write dur: ${s2(fits)} or pace: fast`
  );
}

export function compileTarget(
  ctx: BuildCtx,
  spec: TargetSpec,
  shots: readonly ShotCtx[],
  seriesTarget: string,
  storyWarnings: readonly string[] = [],
): TargetCompile {
  const ps = passSettings(ctx, spec, seriesTarget);
  if (needsImageTarget(spec)) checkRefsBlock(ctx);
  const h3 = slotted(spec);
  const fps = ps.fps;
  const layout = requiredLayout(spec);
  const negative = takesNegative(spec)
    ? typeof ps.preset.negative === "string"
      ? ps.preset.negative
      : ""
    : undefined;
  const readsKeyframes = (spec.recipe.keyframes?.length ?? 0) > 0;
  const required = spec.recipe.keyframe_required ?? {};
  const trained = spec.template.trained_frames;
  const trainedExact = spec.recipe.trained_frames;

  const warnings: string[] = [...ps.warnings];
  const stepWarning = passStepWarning(ps, ctx.pass);
  if (stepWarning) warnings.push(stepWarning);
  warnings.push(...storyWarnings);

  const collect: Collect = { needed: {}, blocked: {} };
  const policies: Record<string, number> = {};
  const fallbacks = new Map<string, string[]>();
  const fallbackWhy = new Map<string, string>();
  const silentLines: string[] = [];
  const keyframeBlocked = new Map<KeyframeEnd, string[]>();
  const seqIds = new Set<string>();
  let requestedTotal = 0;
  let lengthTotal = 0;
  const entries: Entry[] = [];

  for (const sc of shots) {
    const { shot, sequence } = sc;
    const id = shot.id;
    seqIds.add(sequence.id);
    checkLocations(ctx, sc, spec);
    const info = slotInfo(ctx, sc, spec);
    const len = shotLength(ctx, sc, spec, fps);
    const settings = shotSettings(ctx, sc, ps);
    const intent = audioIntent(ctx, shot);
    const audio = renderAudio(ctx, spec, shot, intent, len.window);
    const refs = h3 && audio.policy === "clone" ? voiceRefs(ctx, spec, shot, info.voices) : undefined;
    const panels: Panel[] | undefined = layout ? panelsFor(ctx, shot, layout, info) : undefined;
    const continuing = continues(shot, sequence, sc.index);

    requestedTotal += len.requested;
    lengthTotal += len.length;
    policies[audio.policy] = (policies[audio.policy] ?? 0) + 1;

    warnings.push(...len.warnings);
    if (h3) {
      const pad = paddingWarning(id, len, fps, spec.short);
      if (pad) warnings.push(pad);
    }
    if (trained !== undefined && len.length > trained) {
      warnings.push(
        `${id}: ${len.length} frames is past ${spec.short}'s trained length of ${trained} frames ` +
          `(${s2(trained / fps)} s): motion may repeat or wander`,
      );
    }
    if (trainedExact !== undefined && len.length !== trainedExact) {
      warnings.push(
        `${id}: ${len.length} frames; ${spec.short} was trained at ${trainedExact} frames, other lengths may drift`,
      );
    }
    const pace = paceWarning(ctx, sc, spec, len.length, fps);
    if (pace) warnings.push(pace);
    warnings.push(...audio.warnings, ...settings.warnings);
    if (panels && panels.length > MAX_PANELS) {
      warnings.push(`${id}: ${panels.length} reference panels: more than ${MAX_PANELS} make each one small`);
    }
    if (audio.intent !== undefined) {
      const list = fallbacks.get(audio.intent) ?? [];
      list.push(id);
      fallbacks.set(audio.intent, list);
      fallbackWhy.set(audio.intent, audio.note ?? "");
    }
    if (audio.policy === "silent" && shot.dialogue.length) silentLines.push(id);

    // References this shot cannot render without.
    if (h3) {
      for (const sid of info.subjects) {
        const r = subjectRef(ctx, sid);
        need(collect, r.path, r.ref, id);
      }
      if (info.background) need(collect, info.background, plateRef(ctx, info.plateKey), id);
      for (const v of refs ?? []) {
        // A speaker without a voice_sample has no file to make yet: a picked voice names its own path.
        if (!v.sample) {
          warnings.push(
            `${id}: clone: ${v.subject} has no voice_sample in series.json: its voice slot stays empty until one is picked`,
          );
          continue;
        }
        need(collect, v.sample, voiceRef(ctx, v.subject).ref, id);
      }
    } else if (panels) {
      for (const p of panels) {
        if (p.subject !== undefined) need(collect, p.path, subjectRef(ctx, p.subject).ref, id);
        else if (p.location !== undefined) need(collect, p.path, plateRef(ctx, p.location), id);
      }
    }

    let keyframes: Record<string, string> | undefined;
    if (readsKeyframes) {
      keyframes = {};
      for (const end of spec.recipe.keyframes ?? []) {
        const isRequired = required[end] !== undefined;
        if (keyframeMethod(shot, end, sequence, sc.index) === "none" && !isRequired) continue;
        const path = keyframePath(spec, id, end);
        keyframes[end] = path;
        if (isRequired) {
          block(collect, path, id);
          const list = keyframeBlocked.get(end) ?? [];
          list.push(id);
          keyframeBlocked.set(end, list);
        }
      }
    }

    const prompt = writePrompt({
      ctx,
      sc,
      spec,
      info,
      policy: audio.policy,
      retention: audio.retention,
      panels,
      continuing,
    });

    const e: Entry = {
      id,
      sequence: sequence.id,
      subjects: info.subjects,
      background: info.background,
      size: shot.size,
    };
    if (h3) {
      e.panels = spec.recipe.panels ?? 1;
      e.panel_view = info.panelView;
    }
    e.length = len.length;
    if (len.hold !== undefined) e.hold = len.hold;
    e.seed = shotSeed(ctx.story.episode, sequence.id, id);
    e.steps = settings.steps;
    e.audio_policy = audio.policy;
    if (h3) {
      e.audio_retention = audio.retention ?? "";
      e.voices = info.voices;
      e.voice_subject = info.voices[0] ?? "";
      e.voice_refs = refs ?? [];
    }
    e.prompt = prompt;
    if (!h3) {
      if (negative !== undefined) e.negative = negative;
      if (keyframes) e.keyframes = keyframes;
      if (panels) e.panels = panels;
      if (audio.intent !== undefined) {
        e.audio_intent = audio.intent;
        e.audio_note = audio.note;
      }
    }
    if (settings.model !== undefined) e.model = settings.model;
    if (settings.lora !== undefined) e.lora = settings.lora;
    else if (settings.loras !== undefined) e.loras = settings.loras;
    if (settings.profile !== undefined) e.profile = settings.profile;
    Object.assign(e, len.fields);
    entries.push(e);
  }

  for (const [intent, ids] of fallbacks) {
    warnings.push(
      `${ids.length} shot${ids.length === 1 ? "" : "s"} (${ids.join(", ")}): ${fallbackWhy.get(intent)}`,
    );
  }
  if (silentLines.length) {
    warnings.push(
      `${spec.short} renders silent: the lines of ${silentLines.join(", ")} will be acted silently`,
    );
  }
  for (const [end, ids] of keyframeBlocked) {
    warnings.push(
      `${spec.short} needs a ${end} frame for every shot (${required[end]}): ${ids.length} ` +
        `shot${ids.length === 1 ? " is" : "s are"} blocked until theirs exist: ${ids.join(", ")}`,
    );
  }

  const defaults: Record<string, unknown> = { width: ps.width, height: ps.height };
  if (!h3) defaults.fps = fps;
  defaults.steps = ps.steps;
  defaults.model = ps.model;
  defaults.lora = ps.lora;
  if (h3) {
    defaults.sheet_panels = spec.recipe.sheet_panels ?? 4;
    defaults.ref_image_size = ps.preset.ref_image_size ?? (ctx.pass === "final" ? "max" : "match");
    defaults.audio_policy = "generate";
    defaults.master_track = ctx.audio.track;
  } else {
    defaults.audio_policy = defaultPolicy(spec);
    defaults.master_track = ctx.audio.track;
    if (ps.loras !== undefined) defaults.loras = ps.loras;
    Object.assign(defaults, presetExtras(ps.preset));
  }

  const subjects: Record<string, Record<string, unknown>> = {};
  for (const [sid, s] of Object.entries(ctx.series.subjects)) {
    const row: Record<string, unknown> = {
      kind: s.kind ?? "character",
      sheet: typeof s.sheet === "string" ? s.sheet : "",
      voice_sample: typeof s.voice_sample === "string" ? s.voice_sample : "",
    };
    if (h3 && s.sheet_panels !== undefined) row.sheet_panels = s.sheet_panels;
    subjects[sid] = row;
  }

  const doc: ShotlistDoc = h3
    ? {
        episode: ctx.story.episode,
        title: ctx.story.title,
        prompt_prefix: "",
        defaults,
        subjects,
        shots: entries,
      }
    : {
        episode: ctx.story.episode,
        title: ctx.story.title,
        target: spec.id,
        defaults,
        subjects,
        shots: entries,
      };

  const everyShot = shots.length === ctx.shots.length;
  const report: Report = {
    episode: ctx.story.episode,
    title: ctx.story.title,
    mode: ctx.pass,
    resolution: `${ps.width}x${ps.height}`,
    steps: ps.steps,
    model: ps.model,
    lora: ps.lora,
    fps,
    shots: shots.length,
    sequences: everyShot ? ctx.story.sequences.length : seqIds.size,
    target_s: roundHalfEvenTo(requestedTotal / fps, 3),
    delivered_s: roundHalfEvenTo(lengthTotal / fps, 3),
    pad_frames: lengthTotal - requestedTotal,
    policies,
    needed: collect.needed,
    blocked_shots: collect.blocked,
    warnings,
    target: spec.id,
    size_hints: { ...(spec.recipe.size_hints ?? {}) },
  };
  return { doc, report, pass: ps };
}
