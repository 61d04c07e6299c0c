// Which reference slot each dropped file belongs to, judged by its name alone (nothing is read or written).
//
// A file's slug is its name without the extension, in lower case, with every run of characters other than letters
// and digits as one `_` (and none at either end). The extension decides the slot's medium: pictures png, jpg,
// jpeg, webp go to picture slots, sounds wav, mp3, flac, ogg, m4a to voices. A file matches a slot when its slug
// is one of the slot's names (each name slugged the same way):
//
//   subject <id> (character, prop, vehicle): <id>, its name, its live file's base name, <id>_sheet; a character
//     with four views takes these as a ready-made sheet (view `sheet`)
//   each view of a character: <id>_<view>, <id>_<short> and <name>_<short>, where <view> is 01_threequarter,
//     02_side, 03_back, 04_face and <short> is threequarter, side, back, face
//   location <id>: <id>, <id>_plate, its plate's base name
//   voice <id> (sounds only): <id>, <id>_voice, <name>_voice, its sample's base name
//   keyframe of shot <shot>: <shot>_first or <shot>_last
//
// A wardrobe variant carries its base's name, so names made from the name are left to the base.
//
// When nothing matches, trailing revision markers (`_v2`, `_3`, `_final`, `_copy`, `_new`, `_edit`, `_fixed`) are
// set aside one at a time until something does. A slug that names two slots, or two files that want one slot,
// leave everything involved unmatched with the reason.
import { z } from "zod";
import { badRequest } from "../errors.ts";

/** Most names one request may ask about. */
export const MAX_MATCH_NAMES = 500;
/** Longest file name asked about (the longest most file systems allow). */
export const MAX_MATCH_NAME = 255;

export const PICTURE_EXTENSIONS = ["png", "jpg", "jpeg", "webp"] as const;
export const SOUND_EXTENSIONS = ["wav", "mp3", "flac", "ogg", "m4a"] as const;

// A name is a file's own name: no folder, separator or control character.
const FILE_NAME = /^[^/\\\p{Cc}]+$/u;

/** The request's `names`: at most 500 file names (no folders). */
export const matchNames = z
  .array(
    z
      .string()
      .min(1, "a file name cannot be empty")
      .max(MAX_MATCH_NAME, `a file name has at most ${MAX_MATCH_NAME} characters`)
      .regex(FILE_NAME, "must be a file's name alone: no folder, / or \\, or control character")
      .refine((v) => v !== "." && v !== "..", "must be a file's name, not . or .."),
  )
  .max(MAX_MATCH_NAMES, `at most ${MAX_MATCH_NAMES} file names at once`)
  .describe(`File names to match to reference slots, like dean_side_v2.png (at most ${MAX_MATCH_NAMES})`);

/** A place a file can go: a reference (a view of it) and the names a file may carry to go there. */
export interface MatchSlot {
  ref: string;
  view: string | null;
  /** The reference's display name. */
  name: string;
  kind: string;
  /** A sound slot (voices); every other slot takes pictures. */
  audio: boolean;
  /** Where the file would go: the reference's live file as listed. */
  path: string;
  names: string[];
}

export interface Matched {
  file: string;
  ref: string;
  view: string | null;
  name: string;
  kind: string;
  audio: boolean;
  path: string;
  why: string;
}

export interface Unmatched {
  file: string;
  why: string;
}

/** The parts of a catalogued reference its slots are made from. */
export interface SlotSource {
  /** `name` is the subject, location or voice id, or the keyframe's shot; `which` a keyframe's end. */
  ref: { id: string; name: string; which?: string };
  kind: string;
  name: string;
  of?: string;
  /** The live file as listed. */
  path: string;
  /** A character's four views; empty for every other reference. */
  views: readonly { view: string }[];
}

/** Lower case, each run of characters other than letters and digits as one `_`, none at the ends. */
export function slugOf(text: string): string {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}

/** A file name's stem and lower-case extension (a leading dot starts no extension). */
export function splitName(file: string): { stem: string; ext: string } {
  const dot = file.lastIndexOf(".");
  if (dot <= 0) return { stem: file, ext: "" };
  return { stem: file.slice(0, dot), ext: file.slice(dot + 1).toLowerCase() };
}

const baseSlug = (p: string) => slugOf(splitName(p.split(/[/\\]/).pop() ?? "").stem);

const SHORT_VIEWS: Record<string, string> = {
  "01_threequarter": "threequarter",
  "02_side": "side",
  "03_back": "back",
  "04_face": "face",
};

/** The slots a catalogued reference offers, with their names (see the top of this file). */
export function slotsOf(source: SlotSource): MatchSlot[] {
  const id = slugOf(source.ref.name);
  // A variant's name is its base's: names made from it belong to the base.
  const named = source.of === undefined ? slugOf(source.name) : "";
  const slot = (view: string | null, audio: boolean, names: string[]): MatchSlot => ({
    ref: source.ref.id,
    view,
    name: source.name,
    kind: source.kind,
    audio,
    path: source.path,
    // A name part that slugs to nothing (an id of punctuation) would leave a bare suffix like `side`: dropped.
    names: [...new Set(names.filter((n) => n !== "" && !n.startsWith("_") && !n.endsWith("_")).map(slugOf))],
  });
  switch (source.kind) {
    case "keyframe":
      return [slot(null, false, [`${id}_${source.ref.which ?? ""}`])];
    case "location":
      return [slot(null, false, [id, `${id}_plate`, baseSlug(source.path)])];
    case "voice":
      return [slot(null, true, [id, `${id}_voice`, named && `${named}_voice`, baseSlug(source.path)])];
    default: {
      const whole = [id, named, baseSlug(source.path), `${id}_sheet`];
      if (source.views.length === 0) return [slot(null, false, whole)];
      return [
        slot("sheet", false, whole),
        ...source.views.map(({ view }) => {
          const short = SHORT_VIEWS[view] ?? view;
          return slot(view, false, [`${id}_${view}`, `${id}_${short}`, named && `${named}_${short}`]);
        }),
      ];
    }
  }
}

// One marker at the end of a slug; set aside one at a time.
const MARKER = /_(v\d+|\d+|final|copy|new|edit|fixed)$/;

const slotLabel = (s: MatchSlot) => `${s.ref}${s.view ? ` view ${s.view}` : ""}`;

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

type Verdict = { slot: MatchSlot; slug: string; markers: string[] } | { why: string };

/** What one file name asks for, before other files are considered. */
function judge(
  file: string,
  picture: Map<string, MatchSlot[]>,
  sound: Map<string, MatchSlot[]>,
  note: string,
): Verdict {
  const { stem, ext } = splitName(file);
  const audio = (SOUND_EXTENSIONS as readonly string[]).includes(ext);
  if (!audio && !(PICTURE_EXTENSIONS as readonly string[]).includes(ext)) {
    return {
      why: `${JSON.stringify(file)} is neither a picture (${PICTURE_EXTENSIONS.join(", ")}) nor a sound (${SOUND_EXTENSIONS.join(", ")})`,
    };
  }
  const slug = slugOf(stem);
  if (slug === "") return { why: `${JSON.stringify(file)} has no letters or digits to match a reference by` };
  const own = audio ? sound : picture;
  const markers: string[] = [];
  let rest = slug;
  for (;;) {
    const found = own.get(rest);
    if (found) {
      if (found.length === 1) return { slot: found[0], slug: rest, markers };
      return {
        why: `"${rest}" could be ${listed(found.map(slotLabel))}: rename the file to a name only one of them has`,
      };
    }
    const m = MARKER.exec(rest);
    if (!m || m.index === 0) break;
    markers.unshift(m[0]);
    rest = rest.slice(0, m.index);
  }
  // Nothing of the file's medium: say so when the other medium has the name.
  const other = (audio ? picture : sound).get(slug);
  if (other) {
    return {
      why: `"${slug}" names ${listed(other.map(slotLabel))}, which takes ${audio ? "a picture" : "a sound"}, not ${audio ? "a sound" : "a picture"}`,
    };
  }
  return { why: `no ${audio ? "voice" : "picture reference"} of this episode is called "${slug}"${note}` };
}

function index(slots: readonly MatchSlot[], audio: boolean): Map<string, MatchSlot[]> {
  const byName = new Map<string, MatchSlot[]>();
  for (const slot of slots) {
    if (slot.audio !== audio) continue;
    for (const name of slot.names) {
      const key = slugOf(name);
      if (key === "") continue;
      const list = byName.get(key) ?? [];
      if (!list.includes(slot)) list.push(slot);
      byName.set(key, list);
    }
  }
  return byName;
}

/**
 * Match file names to slots: each file once, in the order given. 400 beyond 500 names. `note` is added to the
 * reason of a file no slot is named after (why the slots may be fewer than expected).
 */
export function matchFiles(
  files: readonly string[],
  slots: readonly MatchSlot[],
  note?: string,
): { matched: Matched[]; unmatched: Unmatched[] } {
  if (files.length > MAX_MATCH_NAMES) {
    throw badRequest(`names: at most ${MAX_MATCH_NAMES} file names at once; got ${files.length}`);
  }
  const picture = index(slots, false);
  const sound = index(slots, true);
  const verdicts = files.map((file) => judge(file, picture, sound, note ? ` (${note})` : ""));
  const wanting = new Map<MatchSlot, string[]>();
  for (const [i, v] of verdicts.entries()) {
    if (!("slot" in v)) continue;
    const list = wanting.get(v.slot) ?? [];
    list.push(files[i]);
    wanting.set(v.slot, list);
  }
  const matched: Matched[] = [];
  const unmatched: Unmatched[] = [];
  for (const [i, v] of verdicts.entries()) {
    const file = files[i];
    if (!("slot" in v)) {
      unmatched.push({ file, why: v.why });
      continue;
    }
    const rivals = wanting.get(v.slot) ?? [];
    if (rivals.length > 1) {
      unmatched.push({
        file,
        why: `${rivals.length} files want ${slotLabel(v.slot)} (${rivals.join(", ")}): drop all but one`,
      });
      continue;
    }
    const { slot } = v;
    const set = v.markers.join("");
    matched.push({
      file,
      ref: slot.ref,
      view: slot.view,
      name: slot.name,
      kind: slot.kind,
      audio: slot.audio,
      path: slot.path,
      why:
        set === ""
          ? `"${v.slug}" is a name of ${slotLabel(slot)}`
          : `"${v.slug}${set}" is "${v.slug}", a name of ${slotLabel(slot)}, with the revision ${v.markers.length > 1 ? "markers" : "marker"} "${set}" set aside`,
    });
  }
  return { matched, unmatched };
}
