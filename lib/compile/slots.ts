// Subjects, reference slots and panels, and the location checks (script format 4.9, 4.15).
import { canonicalSize } from "../script/sizes.ts";
import type { Shot } from "../script/types.ts";
import type { Subject } from "../series/types.ts";
import type { PanelLayout, TargetSpec } from "../targets/registry.ts";
import { type BuildCtx, locationOf, shotSubjects, speakers, subjectOf } from "./context.ts";
import { type ShotCtx, sequenceError, seriesError, shotError } from "./types.ts";

export interface Panel {
  subject?: string;
  location?: string;
  kind: string;
  path: string;
  view?: "face" | "body";
}

export interface SlotInfo {
  subjects: string[];
  /** Location key of the shot (its plate or the sequence's location). */
  plateKey: string;
  /** Plate path, "" when the location has none. */
  background: string;
  panelView: "face" | "body";
  voices: string[];
}

const sorted = (xs: Iterable<string>) => [...xs].sort().join(", ");

/** The target reads subject pictures through fixed slots (H3 Ref2VA). */
export const slotted = (spec: TargetSpec) => spec.recipe.subject_slots !== undefined;

/** What the file rules read of a subject: a built shot list's subject entry will do too. */
type SubjectFiles =
  | Pick<Subject, "sheet" | "kind" | "members">
  | { sheet?: unknown; kind?: unknown; members?: unknown };

export function isGroup(s: SubjectFiles | undefined): boolean {
  return typeof s?.members === "number";
}

/** A subject's reference picture: its `sheet`, else a conventional path the work order proposes. */
export function sheetPath(id: string, s: SubjectFiles | undefined): string {
  if (typeof s?.sheet === "string" && s.sheet.trim() !== "") return s.sheet;
  if (s?.kind === "prop" || s?.kind === "vehicle") return `refs/props/${id}.png`;
  if (isGroup(s)) return `refs/${id}/${id}_group.png`;
  return `refs/${id}/${id}_sheet_4panel.png`;
}

/** The subject's `voice_sample` as the series config names it, "" when it names none. */
export function declaredVoiceSample(s: Subject | undefined): string {
  return typeof s?.voice_sample === "string" && s.voice_sample.trim() !== "" ? s.voice_sample : "";
}

/** Where a subject's voice is or would be kept: its `voice_sample`, else where a picked voice is written. */
export function voiceSamplePath(id: string, s: Subject | undefined): string {
  return declaredVoiceSample(s) || `refs/voices/${id}.wav`;
}

/** Kind of the reference file a subject needs (the work order's words). */
export function refKind(s: Subject | undefined): string {
  if (s?.kind === "prop") return "prop reference";
  if (s?.kind === "vehicle") return "vehicle reference";
  if (isGroup(s)) return "group picture";
  return "character sheet";
}

/** Face panel only for a single character subject at one of the target's face sizes (canonicalised). */
export function faceOrBody(
  ctx: BuildCtx,
  shot: Shot,
  subjects: string[],
  faceSizes: readonly string[],
): "face" | "body" {
  return panelView((id) => subjectOf(ctx, id), shot.size, subjects, faceSizes);
}

/** What the panel rules read of a subject: the loaded series config's subject will do. */
export type PanelSubject = SubjectFiles & { kind?: unknown; sheet_panels?: unknown };

/** faceOrBody on any subject lookup (a render reads the series config, not a build). */
export function panelView(
  subjectFor: (id: string) => PanelSubject | undefined,
  shotSize: string,
  subjects: readonly string[],
  faceSizes: readonly string[],
): "face" | "body" {
  if (subjects.length !== 1) return "body";
  if (subjectFor(subjects[0])?.kind !== "character") return "body";
  const size = canonicalSize(shotSize);
  if (size === null) return "body";
  return faceSizes.some((f) => canonicalSize(f) === size) ? "face" : "body";
}

/** Locations must exist (every target); H3 Ref2VA also needs their plates, the sequence's own included. */
export function checkLocations(ctx: BuildCtx, sc: ShotCtx, spec: TargetSpec): void {
  const { shot, sequence } = sc;
  const known = () => sorted(Object.keys(ctx.series.locations));
  const seqLoc = locationOf(ctx, sequence.location);
  if (!seqLoc) {
    throw sequenceError(
      sequence.id,
      `location '${sequence.location}' is not in series.json locations (known: ${known()})`,
      "location",
    );
  }
  const loc = locationOf(ctx, shot.plate);
  if (!loc) {
    throw shotError(
      shot.id,
      `location '${shot.plate}' is not in series.json locations (known: ${known()})`,
      "plate",
    );
  }
  if (spec.recipe.plate_slot) {
    for (const [key, l] of [
      [shot.plate, loc],
      [sequence.location, seqLoc],
    ] as const) {
      if (typeof l.plate !== "string" || l.plate.trim() === "") {
        throw seriesError(
          `series.json location '${key}' has no plate: ${spec.short} needs one for every location its shots use (shot ${shot.id})`,
          `locations.${key}`,
        );
      }
    }
  }
}

/** Every subject on screen must have a design to be drawn from (script format 4.1 step 4). */
export function checkDesigns(ctx: BuildCtx, shot: Shot): void {
  for (const id of shotSubjects(shot)) {
    const s = subjectOf(ctx, id);
    if (!s || typeof s.design !== "string" || s.design.trim() === "") {
      throw shotError(
        shot.id,
        `${id} is on screen but has no design in series.json (a subject with only a voice can speak as V.O./O.S.)`,
        shot.cast.includes(id) ? "who" : "with",
      );
    }
  }
}

export function slotInfo(ctx: BuildCtx, sc: ShotCtx, spec: TargetSpec): SlotInfo {
  const { shot } = sc;
  const subjects = shotSubjects(shot);
  const slots = spec.recipe.subject_slots;
  if (slots && subjects.length > slots.length) {
    throw shotError(
      shot.id,
      `${subjects.length} subjects (${subjects.join(", ")}) but ${spec.short} has ${slots.length} picture slots ` +
        `(the last picture is the plate): drop one from who:/with: or describe it in the action`,
      "with",
    );
  }
  const plate = locationOf(ctx, shot.plate)?.plate;
  return {
    subjects,
    plateKey: shot.plate,
    background: typeof plate === "string" ? plate : "",
    panelView: faceOrBody(ctx, shot, subjects, spec.recipe.face_sizes ?? ["close", "cu"]),
    voices: speakers(shot),
  };
}

/** The clone policy reads one voice sample per speaker ("" for one the config names none); more speakers than slots is an error. */
export function voiceRefs(
  ctx: BuildCtx,
  spec: TargetSpec,
  shot: Shot,
  voices: string[],
): { subject: string; sample: string }[] {
  const slots = spec.recipe.voice_slots ?? [];
  if (voices.length > slots.length) {
    throw shotError(
      shot.id,
      `policy clone needs one voice sample per speaker: ${voices.length} speakers (${voices.join(", ")}) ` +
        `but ${spec.short} has ${slots.length} voice slots`,
      "policy",
    );
  }
  return voices.map((v) => ({ subject: v, sample: declaredVoiceSample(subjectOf(ctx, v)) }));
}

/** The composed reference picture of VACE / the ingredients sheet: characters, then props; the plate last if the layout has it. */
export function panelsFor(ctx: BuildCtx, shot: Shot, layout: PanelLayout, info: SlotInfo): Panel[] {
  const out = subjectPanels((id) => subjectOf(ctx, id), shot.size, info.subjects, layout);
  if (layout.plate && info.background)
    out.push({ location: info.plateKey, kind: "plate", path: info.background });
  return out;
}

/**
 * The subjects' panels of a composed picture, characters first: a character's sheet shows one view (the face for a
 * lone character at a face size, else the three-quarter body); a prop, vehicle, group or one-panel sheet is whole.
 */
export function subjectPanels(
  subjectFor: (id: string) => PanelSubject | undefined,
  shotSize: string,
  subjects: readonly string[],
  layout: PanelLayout,
): Panel[] {
  const chars = subjects.filter((id) => subjectFor(id)?.kind === "character");
  const others = subjects.filter((id) => subjectFor(id)?.kind !== "character");
  const sheetPanels = layout.sheet_panels ?? 4;
  const view =
    chars.length === 1 && subjects.length === chars.length
      ? panelView(subjectFor, shotSize, chars, layout.face_sizes ?? ["close", "cu"])
      : "body";
  const out: Panel[] = [];
  for (const id of [...chars, ...others]) {
    const s = subjectFor(id);
    const kind = typeof s?.kind === "string" ? s.kind : "character";
    const panel: Panel = { subject: id, kind, path: sheetPath(id, s) };
    const whole = (s?.sheet_panels ?? (s?.kind === "character" ? sheetPanels : 1)) === 1 || isGroup(s);
    if (s?.kind === "character" && !whole) panel.view = view;
    out.push(panel);
  }
  return out;
}
