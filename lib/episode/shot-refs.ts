// The reference files a shot's render reads (slot pictures, keyframes, voices): its slots, which of them are
// missing, and the inspector's `refs_used` rows (targets 3.8–3.9; script format 4.9, 4.11).

import { sheetPath, voiceSamplePath } from "../compile/slots.ts";
import type { Entry, ShotlistDoc } from "../compile/types.ts";
import type { SeriesConfig } from "../series/types.ts";
import { isObject, textOf } from "../store/json-guards.ts";
import type { TargetSpec } from "../targets/registry.ts";

export type RefRole = "subject" | "plate" | "first" | "last" | "voice" | "recording";

export interface RefSlot {
  slot: string;
  kind: "image" | "audio";
  /** As the entry or the config names it. */
  path: string;
  role: RefRole;
  /** `subject:<id>`, `location:<id>`, `voice:<id>`, `shot:<shot>:<end>`; null for a recording or an unnamed plate. */
  id: string | null;
  subject?: string;
  location?: string;
  optional: boolean;
  /** False: the shot cannot render without it even with allow_missing_refs. */
  anyway?: boolean;
  why?: string;
}

export interface SlotSources {
  shot: string;
  entry: Entry;
  spec: TargetSpec | undefined;
  /** The document the entry belongs to (its `subjects` and `defaults`), when the build has one. */
  doc: ShotlistDoc | undefined;
  series: SeriesConfig | null;
  /** The shot's location key (its plate, else the sequence's location), when the story knows it. */
  plateKey: string | null;
}

const DUB = new Set(["dub", "dub_keep_foley"]);

function subjectSheet(id: string, s: SlotSources): string {
  const built = s.doc?.subjects?.[id]?.sheet;
  if (typeof built === "string" && built.trim() !== "") return built;
  const subject = s.series?.subjects[id] ?? { kind: s.doc?.subjects?.[id]?.kind };
  return sheetPath(id, subject);
}

/** A variant shares its base's voice reference (there is no `voice:<variant>`). */
function voiceId(id: string, series: SeriesConfig | null): string {
  return series?.variants[id] ?? id;
}

function recording(s: SlotSources): string | null {
  return textOf(s.doc?.defaults?.master_track);
}

function panelSlots(s: SlotSources, name: string, optional: boolean): RefSlot[] {
  const out: RefSlot[] = [];
  const panels = Array.isArray(s.entry.panels) ? s.entry.panels : null;
  if (panels) {
    panels.forEach((p, i) => {
      if (!isObject(p)) return;
      const file = textOf(p.path);
      if (!file) return;
      const slot = `${name} ${i + 1}`;
      if (typeof p.subject === "string") {
        out.push({
          slot,
          kind: "image",
          path: file,
          role: "subject",
          id: `subject:${p.subject}`,
          subject: p.subject,
          optional,
        });
      } else {
        const loc = typeof p.location === "string" ? p.location : null;
        out.push({
          slot,
          kind: "image",
          path: file,
          role: "plate",
          id: loc ? `location:${loc}` : null,
          ...(loc ? { location: loc } : {}),
          optional,
        });
      }
    });
    return out;
  }
  // A sheet composed opportunistically at queue time (LTX-2): the subjects' sheets, each optional.
  const subjects = Array.isArray(s.entry.subjects) ? s.entry.subjects : [];
  subjects.forEach((id, i) => {
    if (typeof id !== "string") return;
    out.push({
      slot: `${name} ${i + 1}`,
      kind: "image",
      path: subjectSheet(id, s),
      role: "subject",
      id: `subject:${id}`,
      subject: id,
      optional,
    });
  });
  return out;
}

/** Every file the entry's render reads on its target, in slot order. */
export function refSlots(s: SlotSources): RefSlot[] {
  const { entry, spec } = s;
  const recipe = spec?.recipe ?? {};
  const out: RefSlot[] = [];
  const policy = typeof entry.audio_policy === "string" ? entry.audio_policy : "";
  if (recipe.subject_slots) {
    const subjects = Array.isArray(entry.subjects) ? entry.subjects : [];
    subjects.forEach((id, i) => {
      if (typeof id !== "string") return;
      const slot = recipe.subject_slots?.[i] ?? `Picture ${i + 1}`;
      out.push({
        slot,
        kind: "image",
        path: subjectSheet(id, s),
        role: "subject",
        id: `subject:${id}`,
        subject: id,
        optional: false,
      });
    });
    const plate = textOf(entry.background);
    if (recipe.plate_slot && plate) {
      out.push({
        slot: recipe.plate_slot,
        kind: "image",
        path: plate,
        role: "plate",
        id: s.plateKey ? `location:${s.plateKey}` : null,
        ...(s.plateKey ? { location: s.plateKey } : {}),
        optional: false,
      });
    }
    const voices = recipe.voice_slots ?? [];
    if (policy === "clone" && Array.isArray(entry.voice_refs)) {
      entry.voice_refs.forEach((v, i) => {
        if (!isObject(v) || typeof v.subject !== "string") return;
        // A speaker the build found no voice_sample for reads the voice the series config holds now, else the file
        // a picked voice is written to.
        const sample = textOf(v.sample) || voiceSamplePath(v.subject, s.series?.subjects[v.subject]);
        out.push({
          slot: voices[i] ?? `Audio ${i + 1}`,
          kind: "audio",
          path: sample,
          role: "voice",
          id: `voice:${voiceId(v.subject, s.series)}`,
          subject: v.subject,
          optional: false,
        });
      });
    }
    const track = recording(s);
    if (DUB.has(policy) && track) {
      out.push({
        slot: voices[0] ?? "Audio 1",
        kind: "audio",
        path: track,
        role: "recording",
        id: null,
        optional: false,
      });
    }
    return out;
  }
  if (recipe.reference_image) out.push(...panelSlots(s, "reference panel", false));
  else if (recipe.reference_sheet)
    out.push(...panelSlots(s, "sheet panel", !recipe.reference_sheet.required));
  const keyframes = isObject(entry.keyframes) ? entry.keyframes : {};
  for (const end of ["first", "last"] as const) {
    const file = textOf(keyframes[end]);
    if (!file) continue;
    const why = recipe.keyframe_required?.[end];
    out.push({
      slot: `${end} frame`,
      kind: "image",
      path: file,
      role: end,
      id: `shot:${s.shot}:${end}`,
      optional: why === undefined,
      ...(why !== undefined ? { anyway: false, why } : {}),
    });
  }
  const drawnPlate = recipe.plate_drawn && s.plateKey ? textOf(s.series?.locations[s.plateKey]?.plate) : null;
  if (drawnPlate && s.plateKey) {
    out.push({
      slot: "plate",
      kind: "image",
      path: drawnPlate,
      role: "plate",
      id: `location:${s.plateKey}`,
      location: s.plateKey,
      optional: true,
    });
  }
  const anchor = isObject(recipe.audio_anchor) ? textOf(recipe.audio_anchor.slot) : null;
  const track = recording(s);
  if (anchor && DUB.has(policy) && track) {
    out.push({ slot: anchor, kind: "audio", path: track, role: "recording", id: null, optional: false });
  }
  return out;
}

export interface MissingRef {
  slot: string;
  kind: "image" | "audio";
  path: string;
  subject?: string;
  location?: string;
  anyway?: boolean;
  why?: string;
}

/** The required slots whose file is not there, with episode-relative paths. */
export function missingRefs(
  slots: readonly RefSlot[],
  exists: ReadonlyMap<RefSlot, boolean>,
  rel: (p: string) => string,
): MissingRef[] {
  const out: MissingRef[] = [];
  for (const s of slots) {
    if (s.optional || exists.get(s)) continue;
    const m: MissingRef = { slot: s.slot, kind: s.kind, path: rel(s.path) };
    if (s.subject !== undefined) m.subject = s.subject;
    if (s.location !== undefined) m.location = s.location;
    if (s.anyway !== undefined) m.anyway = s.anyway;
    if (s.why !== undefined) m.why = s.why;
    out.push(m);
  }
  return out;
}
