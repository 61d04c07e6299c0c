// The shot list's rows from the episode answer: script order (the answer comes in cut order), the take a row
// shows, and the selection rules of the list (one shot, ctrl toggles, shift takes a range).
import type { Pass } from "../../route.ts";
import type { ShotEntry, TakeStatus, TakeSummary } from "../../types.ts";

export interface ShotRow {
  entry: ShotEntry;
  /** The take whose thumbnail the row shows: the cut's take of this pass, else the newest with a picture. */
  shown: TakeSummary | null;
  /** The newest take: its status is the shot's state (queued while it renders, failed when it failed). */
  latest: TakeSummary | null;
  status: TakeStatus | "none";
  /** The cut plays a take of this pass that was picked by hand. */
  picked: boolean;
  /** Why the shown take is out of date, and `override` when the shot's override was made on an older script. */
  stale: string[];
}

/** Script order: by `cut.script_index`, shots the script no longer has (orphans) last, each group in cut order. */
export function scriptOrder(shots: readonly ShotEntry[]): ShotEntry[] {
  const key = (s: ShotEntry) =>
    s.orphan || s.cut.script_index === null ? Number.POSITIVE_INFINITY : s.cut.script_index;
  return shots
    .map((s, i) => ({ s, i }))
    .sort((a, b) => key(a.s) - key(b.s) || a.i - b.i)
    .map((x) => x.s);
}

export function shotRow(entry: ShotEntry, pass: Pass): ShotRow {
  const takes = entry.takes;
  const latest = takes.length ? takes.reduce((a, b) => (b.take > a.take ? b : a)) : null;
  const own = entry.cut.take !== null && !entry.cut.placeholder && (entry.cut.pass ?? pass) === pass;
  const cutTake = own ? (takes.find((t) => t.take === entry.cut.take) ?? null) : null;
  const withPicture = [...takes].reverse().find((t) => t.thumb) ?? null;
  const shown = cutTake ?? withPicture;
  const stale = [...(shown?.stale ?? [])];
  if (entry.override?.stale) stale.push("override");
  return {
    entry,
    shown,
    latest,
    status: latest ? latest.status : "none",
    picked: own && entry.cut.picked,
    stale,
  };
}

export function shotRows(shots: readonly ShotEntry[], pass: Pass): ShotRow[] {
  return scriptOrder(shots).map((s) => shotRow(s, pass));
}

/** The sequences of the rows, in the order they first appear. */
export function sequencesOf(rows: readonly ShotRow[]): string[] {
  return [...new Set(rows.map((r) => r.entry.sequence).filter(Boolean))];
}

/** The shot `step` rows away from `current` (the first row when none is current), held at the ends. */
export function stepShot(ids: readonly string[], current: string | null, step: number): string | null {
  if (!ids.length) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return step >= 0 ? ids[0] : ids[ids.length - 1];
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))];
}

export type ClickMode = "one" | "toggle" | "range";

export interface Selection {
  ids: ReadonlySet<string>;
  /** Where a shift-click range starts: the last shot clicked without shift. */
  anchor: string | null;
}

/**
 * The selection after a click on `id`: `one` selects it alone, `toggle` (ctrl/cmd or its checkbox) adds or drops
 * it, `range` (shift) adds every shot from the anchor to it, in list order.
 */
export function clickSelect(
  sel: Selection,
  order: readonly string[],
  id: string,
  mode: ClickMode,
): Selection {
  if (mode === "one") return { ids: new Set([id]), anchor: id };
  if (mode === "toggle") {
    const ids = new Set(sel.ids);
    if (ids.has(id)) ids.delete(id);
    else ids.add(id);
    return { ids, anchor: id };
  }
  const from = sel.anchor === null ? -1 : order.indexOf(sel.anchor);
  const to = order.indexOf(id);
  if (from < 0 || to < 0) return { ids: new Set([...sel.ids, id]), anchor: id };
  const [a, b] = from <= to ? [from, to] : [to, from];
  return { ids: new Set([...sel.ids, ...order.slice(a, b + 1)]), anchor: sel.anchor };
}
