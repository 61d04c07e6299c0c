// History copies: the previous bytes of a file go to `<ep>/_history/<name>.<YYYYmmdd-HHMMSS>[-N]`, newest 30 kept.
import path from "node:path";
import {
  createShowFile,
  episodeFence,
  type Fence,
  mkdirShow,
  readShowDir,
  removeShow,
} from "../paths/guarded.ts";
import { errorCode } from "../store/json-guards.ts";

export const HISTORY_KEEP = 30;

/** Local time as `YYYYmmdd-HHMMSS`. */
export function historyStamp(now: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return (
    `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-` +
    `${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`
  );
}

/**
 * Keep `bytes` (the file's content before a change) as a history copy of `fileName`; returns the copy's path
 * relative to the episode. Names are claimed with an exclusive create, so two saves in one second get -2, -3.
 */
export async function saveHistory(
  ep: string,
  fileName: string,
  bytes: Uint8Array,
  now: Date,
): Promise<string> {
  // Copies of a parent config are kept in the episode too, and never through a link out of it.
  const fence = episodeFence(ep);
  const dir = path.join(ep, "_history");
  await mkdirShow(fence, dir);
  const base = `${fileName}.${historyStamp(now)}`;
  // Continue after the highest counter of this second: a pruned low number must not be taken again, or the
  // new copy would sort as the oldest and be pruned at once.
  const taken = (await readShowDir(fence, dir)).filter((n) => n === base || n.startsWith(`${base}-`));
  const highest = Math.max(0, ...taken.map((n) => (n === base ? 1 : Number(n.slice(base.length + 1)) || 0)));
  for (let n = highest + 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    try {
      await createShowFile(fence, path.join(dir, name), bytes);
      await prune(fence, dir, fileName);
      return `_history/${name}`;
    } catch (err) {
      if (errorCode(err) !== "EEXIST") throw err;
    }
  }
}

const COPY = /^(\d{8}-\d{6})(?:-(\d+))?$/;

async function prune(fence: Fence, dir: string, fileName: string): Promise<void> {
  const prefix = `${fileName}.`;
  const copies = (await readShowDir(fence, dir))
    .filter((n) => n.startsWith(prefix))
    .map((n) => ({ name: n, m: COPY.exec(n.slice(prefix.length)) }))
    .filter((c): c is { name: string; m: RegExpExecArray } => c.m !== null)
    .map((c) => ({ name: c.name, stamp: c.m[1], n: c.m[2] ? Number(c.m[2]) : 1 }))
    .sort((a, b) => (a.stamp === b.stamp ? a.n - b.n : a.stamp < b.stamp ? -1 : 1));
  const drop = copies.slice(0, Math.max(0, copies.length - HISTORY_KEEP));
  await Promise.all(drop.map((c) => removeShow(fence, path.join(dir, c.name))));
}
