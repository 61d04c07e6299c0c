// The References view's logic without a browser: references grouped by kind, a character's view columns in sheet
// order, what a missing picture's placeholder says, which actions a candidate offers, upload progress, and how a
// `studio.ref` event changes the list before the next read confirms it.
import type { RefEvent, RefInfo, RefKind, RefTakeInfo, RefViewInfo, RefViewName } from "../../types.ts";

/** Groups in the order the list shows them, with their headings. */
export const GROUPS: readonly { kind: RefKind; title: string }[] = [
  { kind: "character", title: "Characters" },
  { kind: "prop", title: "Props" },
  { kind: "vehicle", title: "Vehicles" },
  { kind: "location", title: "Locations" },
  { kind: "voice", title: "Voices" },
  { kind: "keyframe", title: "Keyframes" },
];

export interface RefGroup {
  kind: RefKind;
  title: string;
  refs: RefInfo[];
}

/** The four views of a character, left to right as the stitched sheet has them. */
export const CHARACTER_VIEWS = ["01_threequarter", "02_side", "03_back", "04_face"] as const;
/** The columns a character shows side by side: its four views, then the sheet. */
export const COLUMNS: readonly RefViewName[] = [...CHARACTER_VIEWS, "sheet"];

const VIEW_TITLES: Record<RefViewName, string> = {
  "01_threequarter": "Three-quarter",
  "02_side": "Side",
  "03_back": "Back",
  "04_face": "Face",
  sheet: "Sheet",
  pano: "Panorama",
  tour: "Tour hold",
};

export function viewTitle(view: RefViewName | null): string {
  return view ? VIEW_TITLES[view] : "";
}

/** Keyframes sort by shot then first before last; the rest by name, so a list reads the same after every read. */
function order(a: RefInfo, b: RefInfo): number {
  if (a.kind === "keyframe" && b.kind === "keyframe") {
    const s = (a.shot ?? a.id).localeCompare(b.shot ?? b.id, undefined, { numeric: true });
    if (s) return s;
    return a.which === b.which ? 0 : a.which === "first" ? -1 : 1;
  }
  return a.name.localeCompare(b.name, undefined, { sensitivity: "base" }) || a.id.localeCompare(b.id);
}

/** Words of `filter` that must all appear in a ref's id, name or path (case apart). */
function matches(ref: RefInfo, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const hay = `${ref.id} ${ref.name} ${ref.path}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The refs in their groups (empty groups left out), each group in a stable order. */
export function groupRefs(refs: readonly RefInfo[], filter = ""): RefGroup[] {
  const groups: RefGroup[] = [];
  for (const g of GROUPS) {
    const list = refs.filter((r) => r.kind === g.kind && matches(r, filter)).sort(order);
    if (list.length) groups.push({ kind: g.kind, title: g.title, refs: list });
  }
  // A kind the page does not know yet still shows, under its own name.
  const known = new Set(GROUPS.map((g) => g.kind as string));
  const other = refs.filter((r) => !known.has(r.kind) && matches(r, filter)).sort(order);
  if (other.length) groups.push({ kind: other[0].kind, title: "Other", refs: other });
  return groups;
}

/** The ids in the order the list shows them (for moving up and down with the keyboard). */
export function listOrder(groups: readonly RefGroup[]): string[] {
  return groups.flatMap((g) => g.refs.map((r) => r.id));
}

/** The id `step` places away from `current` in `ids`, kept inside the list; the first one when none is chosen. */
export function stepRef(ids: readonly string[], current: string | null, step: number): string | null {
  if (!ids.length) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return ids[step < 0 ? ids.length - 1 : 0];
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))];
}

export const isCharacter = (ref: RefInfo) => ref.kind === "character";
export const isVoice = (ref: RefInfo) => ref.kind === "voice";

/** One column of a character: the view's candidates and its pick. */
export interface ViewColumn {
  view: RefViewName;
  title: string;
  picked: number | null;
  takes: RefTakeInfo[];
  cleared: boolean;
}

const byTake = (a: RefTakeInfo, b: RefTakeInfo) => a.take - b.take;

/**
 * A character's columns in sheet order, every view present even before it has a take. Sheet takes are read from a
 * `sheet` entry of `views` when the listing gives one, else from the ref's own takes.
 */
export function viewColumns(ref: RefInfo): ViewColumn[] {
  return COLUMNS.map((view) => {
    const listed: RefViewInfo | undefined = ref.views.find((v) => v.view === view);
    const takes = listed
      ? listed.takes
      : view === "sheet"
        ? ref.takes.filter((t) => t.view === "sheet")
        : ref.takes.filter((t) => t.view === view);
    const picked = listed ? listed.picked : view === "sheet" && ref.live_from === "sheet" ? ref.picked : null;
    const cleared = listed ? !!listed.cleared : view === "sheet" ? !!ref.sheet_cleared : false;
    return { view, title: VIEW_TITLES[view], picked, takes: [...takes].sort(byTake), cleared };
  });
}

/** The candidates of a reference without views: its takes, panoramas and tour holds apart. */
export function plainTakes(ref: RefInfo): RefTakeInfo[] {
  return ref.takes.filter((t) => t.view !== "pano" && t.view !== "tour").sort(byTake);
}

/** Panoramas and tour holds: listed on their own (`panos`, `tour_holds`) or among the takes. */
export function sideTakes(ref: RefInfo, view: "pano" | "tour"): RefTakeInfo[] {
  const own = view === "pano" ? ref.panos : ref.tour_holds;
  return [...(own?.length ? own : ref.takes.filter((t) => t.view === view))].sort(byTake);
}

/** The shots that read a reference, final pass first, each pass's list as given. */
export function usedByText(ref: RefInfo): string {
  const parts: string[] = [];
  const { final = [], proxy = [] } = ref.used_by ?? {};
  const same = final.length === proxy.length && final.every((s, i) => s === proxy[i]);
  const list = (shots: readonly string[]) =>
    shots.length > 6 ? `${shots.slice(0, 6).join(", ")} and ${shots.length - 6} more` : shots.join(", ");
  if (same && final.length) return `used by ${list(final)}`;
  if (final.length) parts.push(`final ${list(final)}`);
  if (proxy.length) parts.push(`proxy ${list(proxy)}`);
  return parts.length ? `used by ${parts.join("; ")}` : "used by no shot yet";
}

/** How many shots read the ref in either pass. */
export function useCount(ref: RefInfo): number {
  return new Set([...(ref.used_by?.final ?? []), ...(ref.used_by?.proxy ?? [])]).size;
}

/** What a reference without its live file lacks, in a sentence the placeholder shows; null when it has its file. */
export function missingText(ref: RefInfo): string | null {
  if (ref.exists) return null;
  const what = isVoice(ref) ? "No voice sample" : "No picture";
  let why = "";
  if (isCharacter(ref)) {
    const picked = viewColumns(ref).filter((c) => c.view !== "sheet" && c.picked !== null);
    if (picked.length > 0) {
      const lacking = viewColumns(ref)
        .filter((c) => c.view !== "sheet" && c.picked === null)
        .map((c) => c.title.toLowerCase());
      why = `: ${picked.length} of 4 views picked, ${lacking.join(", ")} missing`;
    }
  }
  if (ref.cleared) why = `${why}; cleared by hand, nothing is picked until you pick`;
  const need = ref.kind === "keyframe" && ref.need ? ` (${ref.need})` : "";
  return `${what} at ${ref.path}${need}${why}; ${usedByText(ref)}`;
}

/** A short state for the list row. */
export function refState(ref: RefInfo): { text: string; tone: "ok" | "warn" | "bad" | "muted" } {
  if (ref.exists) return { text: "live", tone: "ok" };
  if (ref.cleared) return { text: "cleared", tone: "muted" };
  const queued = allTakes(ref).some((t) => t.status === "queued");
  if (queued) return { text: "queued", tone: "muted" };
  if (ref.kind === "keyframe" && ref.need !== "required") return { text: "not made", tone: "muted" };
  // Missing and read by a shot is a problem; missing and read by none is only a note.
  return useCount(ref) ? { text: "missing", tone: "bad" } : { text: "missing", tone: "muted" };
}

/** Every candidate of a ref, whichever view it belongs to. */
export function allTakes(ref: RefInfo): RefTakeInfo[] {
  const seen = new Set<string>();
  const out: RefTakeInfo[] = [];
  for (const t of [...ref.takes, ...ref.views.flatMap((v) => v.takes)]) {
    const k = `${t.view ?? ""}:${t.take}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(t);
  }
  return out;
}

export interface TakeActions {
  pick: boolean;
  discard: boolean;
  /** A finished picture can be copied into another reference. */
  copy: boolean;
}

/** What a candidate offers: pick when usable, not the pick already and not a panorama or tour hold; discard unless queued. */
export function takeActions(take: RefTakeInfo, picked: boolean): TakeActions {
  const pseudo = take.view === "pano" || take.view === "tour";
  return {
    pick: take.usable && !picked && !pseudo,
    discard: take.status !== "queued",
    copy: take.usable && !!take.image,
  };
}

/** The take's name as the page writes it: `t03`, `side t03`. */
export function takeLabel(take: Pick<RefTakeInfo, "take" | "view">): string {
  const n = `t${String(take.take).padStart(2, "0")}`;
  return take.view ? `${viewTitle(take.view).toLowerCase()} ${n}` : n;
}

/** Where a candidate can be copied: references that hold pictures, other than the take's own place. */
export interface CopyDestination {
  ref: string;
  view: RefViewName | null;
  label: string;
}

export function copyDestinations(
  refs: readonly RefInfo[],
  from: RefInfo,
  view: RefViewName | null,
): CopyDestination[] {
  const out: CopyDestination[] = [];
  for (const r of refs) {
    if (r.kind === "voice") continue;
    if (isCharacter(r)) {
      for (const v of COLUMNS) {
        if (r.id === from.id && v === view) continue;
        out.push({ ref: r.id, view: v, label: `${r.name} · ${VIEW_TITLES[v].toLowerCase()}` });
      }
    } else if (r.id !== from.id) {
      out.push({ ref: r.id, view: null, label: r.kind === "keyframe" ? r.id : `${r.name} (${r.kind})` });
    }
  }
  return out;
}

/** POST /studio/refs/copy-take's body: the take (by ref, view and number) and where it goes. */
export function copyBody(
  ep: string,
  ref: string,
  take: Pick<RefTakeInfo, "take" | "view">,
  to: Pick<CopyDestination, "ref" | "view">,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ep, ref, take: take.take, to: to.ref };
  if (take.view) body.view = take.view;
  if (to.view) body.to_view = to.view;
  return body;
}

/** Upload progress as a whole percentage, null while the size is unknown; never past 100. */
export function uploadPercent(loaded: number, total: number | null): number | null {
  if (!total || total <= 0 || !Number.isFinite(total)) return null;
  return Math.max(0, Math.min(100, Math.floor((loaded / total) * 100)));
}

/** A byte count as a person reads it. */
export function byteSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The service refuses uploads over 64 MB: the page says so before sending one. */
export const UPLOAD_LIMIT = 64 * 1024 * 1024;

const IMAGE = ["png", "jpg", "jpeg", "webp"];
const AUDIO = ["wav", "mp3", "flac", "ogg", "m4a"];

/** Why a file cannot be imported into `ref` (judged by its name and size, as the service does), or null. */
export function importRefusal(ref: RefInfo, name: string, size: number): string | null {
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  const wanted = isVoice(ref) ? AUDIO : IMAGE;
  if (!wanted.includes(ext)) {
    return `${name}: ${isVoice(ref) ? "a voice takes a sound" : "this reference takes a picture"} (${wanted.join(", ")})`;
  }
  if (size > UPLOAD_LIMIT) return `${name} is ${byteSize(size)}; uploads stop at 64 MB`;
  return null;
}

/** The text fields of a multipart import, in the order the service reads them. */
export function importFields(
  ep: string,
  ref: string,
  view: RefViewName | null,
  pick: boolean | null,
): [string, string][] {
  const fields: [string, string][] = [
    ["ep", ep],
    ["ref", ref],
  ];
  if (view) fields.push(["view", view]);
  if (pick !== null) fields.push(["pick", pick ? "1" : "0"]);
  return fields;
}

/** The list with one ref replaced by its newer listing (added when new). */
export function withRef(refs: readonly RefInfo[], ref: RefInfo): RefInfo[] {
  const at = refs.findIndex((r) => r.id === ref.id);
  if (at < 0) return [...refs, ref];
  const out = refs.slice();
  out[at] = ref;
  return out;
}

function patchTakes(takes: RefTakeInfo[], e: RefEvent): RefTakeInfo[] {
  if (e.take === null) return takes;
  const same = (t: RefTakeInfo) => t.take === e.take && (t.view ?? null) === (e.view ?? null);
  if (e.status === "discarded") return takes.filter((t) => !same(t));
  if (e.status !== "queued" && e.status !== "ok" && e.status !== "failed") return takes;
  const status = e.status;
  const at = takes.findIndex(same);
  if (at < 0) {
    // A new candidate: shown at once as its status, its picture arriving with the next read.
    if (status !== "queued") return takes;
    return [...takes, { take: e.take, view: e.view, status, usable: false, seed: null, source: null }];
  }
  return takes.map((t, i) => (i === at ? { ...t, status, usable: status === "ok" ? t.usable : false } : t));
}

/**
 * The list as a `studio.ref` event leaves it, before the next read brings the whole ref: a candidate's status, a
 * discarded one gone, a pick or a clear marked. Null when the event names no ref of the list.
 */
export function withRefEvent(refs: readonly RefInfo[], e: RefEvent): RefInfo[] | null {
  const at = refs.findIndex((r) => r.id === e.ref);
  if (at < 0) return null;
  const ref = refs[at];
  let next: RefInfo = ref;
  const viewed = e.view !== null && ref.views.some((v) => v.view === e.view);
  if (viewed) {
    next = {
      ...ref,
      views: ref.views.map((v) => {
        if (v.view !== e.view) return v;
        if (e.status === "picked") return { ...v, picked: e.take, cleared: null };
        if (e.status === "cleared") return { ...v, picked: null, cleared: true };
        const takes = patchTakes(v.takes, e);
        const picked = e.status === "discarded" && v.picked === e.take ? null : v.picked;
        return { ...v, takes, picked };
      }),
    };
  } else if (e.status === "picked") {
    next = { ...ref, picked: e.take, cleared: null };
  } else if (e.status === "cleared") {
    next = { ...ref, picked: null, cleared: true, exists: false };
  } else {
    const takes = patchTakes(ref.takes, e);
    next = takes === ref.takes ? ref : { ...ref, takes };
  }
  if (next === ref) return null;
  const out = refs.slice();
  out[at] = next;
  return out;
}

/** An event concerns this episode: its own, or a sibling's change to a live file this episode shares. */
export function eventConcerns(refs: readonly RefInfo[] | null, ep: string, e: RefEvent): boolean {
  if (e.ep === ep) return true;
  const ref = refs?.find((r) => r.id === e.ref);
  // Siblings may be named absolutely or from this episode (`../ep02`): compare the folders' tails.
  const tail = (s: string) => s.replace(/^(\.\.[\\/])+/, "").replaceAll("\\", "/");
  const other = e.ep.replaceAll("\\", "/");
  return !!ref?.shared_with?.some((s) => s === e.ep || other.endsWith(`/${tail(s)}`));
}

/** The keyframe refs of one shot, first before last. */
export function keyframesOf(refs: readonly RefInfo[], shot: string): RefInfo[] {
  return refs
    .filter((r) => r.kind === "keyframe" && (r.shot === shot || r.id.startsWith(`shot:${shot}:`)))
    .sort((a, b) => (a.which === b.which ? 0 : a.which === "first" ? -1 : 1));
}

/** The override fields the form edits, in its order. */
export const REF_OVERRIDE_FIELDS = [
  "prompt",
  "negative",
  "seed",
  "steps",
  "cfg",
  "size",
  "model",
  "loras",
  "target",
  "note",
] as const;
export type RefOverrideField = (typeof REF_OVERRIDE_FIELDS)[number];
export type RefOverrideText = Record<RefOverrideField, string>;

/** The fields a reference of this kind may override (`size` is not for keyframes or voices). */
export function overrideFieldsFor(kind: RefInfo["kind"]): RefOverrideField[] {
  return REF_OVERRIDE_FIELDS.filter((f) => f !== "size" || (kind !== "keyframe" && kind !== "voice"));
}

function fieldText(field: RefOverrideField, v: unknown): string {
  if (v === null || v === undefined) return "";
  if (field === "loras" && Array.isArray(v)) {
    return v
      .map((l) => {
        if (typeof l === "string") return l;
        if (l && typeof l === "object" && "name" in l) {
          const { name, strength } = l as { name: unknown; strength?: unknown };
          return typeof strength === "number" ? `${name}:${strength}` : String(name);
        }
        return "";
      })
      .filter(Boolean)
      .join(", ");
  }
  if (field === "size" && Array.isArray(v)) return v.join("x");
  return String(v);
}

/** An override's values as the form's text. */
export function refOverrideText(values: Record<string, unknown> | null | undefined): RefOverrideText {
  const text = {} as RefOverrideText;
  for (const f of REF_OVERRIDE_FIELDS) text[f] = fieldText(f, values?.[f]);
  return text;
}

/** PUT /studio/refs/override's `fields` for what changed; a blank field clears its override. */
export function refOverrideChange(before: RefOverrideText, after: RefOverrideText): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const f of REF_OVERRIDE_FIELDS) {
    const now = f === "prompt" || f === "negative" || f === "note" ? after[f] : after[f].trim();
    if (now === before[f]) continue;
    if (now.trim() === "") fields[f] = null;
    // Text that is not a number goes as typed, so the service's refusal names the field.
    else if (f === "steps" || f === "cfg") fields[f] = Number.isFinite(Number(now)) ? Number(now) : now;
    else if (f === "loras")
      fields[f] = now
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    else fields[f] = now;
  }
  return fields;
}
