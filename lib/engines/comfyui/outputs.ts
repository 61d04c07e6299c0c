// What a finished ComfyUI prompt produced: its history entry's state, the file items of every output shape
// (`images` incl. animated video, `gifs`, `audio`, savers' own keys), the media kind of each, and a frame count.

import { isObject } from "../../store/json-guards.ts";
import { type ExecutionError, readExecutionError } from "./messages.ts";

const posInt = (v: unknown): number | null =>
  typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null;

export type MediaKind = "video" | "image" | "audio" | "other";

export interface OutputItem {
  node: string;
  /** The output key it came from (`images`, `gifs`, `audio`, ...). */
  key: string;
  filename: string;
  subfolder: string;
  /** `output`, `temp` or `input`: passed back to `/view` verbatim. */
  type: string;
  kind: MediaKind;
  /** The node set `animated: [true]`. */
  animated: boolean;
  /** VHS `format` (`video/h264-mp4`). */
  format?: string;
  frameRate?: number;
  /** A frame count the node reported for this item. */
  frames?: number;
}

const VIDEO = new Set(["mp4", "webm", "mov", "mkv", "avi", "m4v", "mpg", "mpeg"]);
const IMAGE = new Set(["png", "jpg", "jpeg", "webp", "gif", "bmp", "tif", "tiff", "exr"]);
const AUDIO = new Set(["wav", "flac", "mp3", "ogg", "opus", "m4a", "aac"]);

/** Kind by extension, then by a VHS `format` (`video/...`, `audio/...`, `image/...`). */
export function mediaKind(filename: string, format?: string): MediaKind {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  if (VIDEO.has(ext)) return "video";
  if (AUDIO.has(ext)) return "audio";
  if (IMAGE.has(ext)) return "image";
  const f = format?.split("/")[0];
  if (f === "video" || f === "audio" || f === "image") return f;
  return "other";
}

/** Every file item in a prompt's `outputs` (any key whose entries carry `filename`), in node order, deduplicated. */
export function outputItems(outputs: unknown): OutputItem[] {
  if (!isObject(outputs)) return [];
  const items: OutputItem[] = [];
  const seen = new Set<string>();
  const nodes = Object.keys(outputs).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  for (const node of nodes) {
    const out = outputs[node];
    if (!isObject(out)) continue;
    const animatedFlags = Array.isArray(out.animated) ? out.animated : [];
    for (const [key, list] of Object.entries(out)) {
      if (key === "animated" || !Array.isArray(list)) continue;
      list.forEach((it, i) => {
        if (!isObject(it) || typeof it.filename !== "string" || it.filename === "") return;
        const subfolder = typeof it.subfolder === "string" ? it.subfolder : "";
        const type = typeof it.type === "string" && it.type !== "" ? it.type : "output";
        const id = `${type}\u0000${subfolder}\u0000${it.filename}`;
        if (seen.has(id)) return;
        seen.add(id);
        const format = typeof it.format === "string" ? it.format : undefined;
        const item: OutputItem = {
          node,
          key,
          filename: it.filename,
          subfolder,
          type,
          kind: mediaKind(it.filename, format),
          animated: key === "images" && animatedFlags[Math.min(i, animatedFlags.length - 1)] === true,
        };
        if (format) item.format = format;
        if (typeof it.frame_rate === "number" && Number.isFinite(it.frame_rate))
          item.frameRate = it.frame_rate;
        const frames = posInt(it.frames) ?? posInt(it.frame_count);
        if (frames) item.frames = frames;
        items.push(item);
      });
    }
  }
  return items;
}

/** A frame count reported by an output node (`frames: [n]`, `frame_count: n`, or on a video item). */
export function reportedFrames(
  outputs: unknown,
  items: readonly OutputItem[],
  video?: OutputItem,
): number | undefined {
  if (video?.frames) return video.frames;
  if (!isObject(outputs)) return undefined;
  const nodes = video ? [video.node] : Object.keys(outputs);
  for (const node of nodes) {
    const out = outputs[node];
    if (!isObject(out)) continue;
    for (const key of ["frames", "frame_count"]) {
      const v = out[key];
      const n = posInt(Array.isArray(v) ? v[0] : v);
      if (n) return n;
    }
  }
  return items.find((i) => i.kind === "video" && i.frames)?.frames;
}

/** Order of preference within a kind: saved (`output`) before previews, then the later node (the final output). */
function rank(item: OutputItem): number {
  return item.type === "output" ? 0 : item.type === "temp" ? 1 : 2;
}

/** The best item of `kind`: saved over preview, then the last node that produced one. */
export function pick(items: readonly OutputItem[], kind: MediaKind): OutputItem | undefined {
  let best: OutputItem | undefined;
  for (const it of items) {
    if (it.kind !== kind) continue;
    if (!best || rank(it) <= rank(best)) best = it;
  }
  return best;
}

export type HistoryState =
  | { state: "absent" }
  | { state: "success"; outputs: Record<string, unknown> }
  | { state: "error"; error: ExecutionError }
  | { state: "interrupted" }
  | { state: "unknown"; outputs: Record<string, unknown> };

/** What `/history/<id>` says of the prompt: `{}` is absent (queued, running, lost, or never known). */
export function historyState(body: unknown, promptId: string): HistoryState {
  if (!isObject(body)) return { state: "absent" };
  const entry = body[promptId];
  if (!isObject(entry)) return { state: "absent" };
  const outputs = isObject(entry.outputs) ? entry.outputs : {};
  const status = isObject(entry.status) ? entry.status : null;
  const messages = status && Array.isArray(status.messages) ? status.messages : [];
  const last = [...messages]
    .reverse()
    .find((m): m is unknown[] => Array.isArray(m) && typeof m[0] === "string");
  if (status?.status_str === "success") return { state: "success", outputs };
  if (status?.status_str === "error") {
    if (last?.[0] === "execution_interrupted") return { state: "interrupted" };
    const err = [...messages]
      .reverse()
      .find((m): m is unknown[] => Array.isArray(m) && m[0] === "execution_error");
    return { state: "error", error: readExecutionError(err?.[1]) };
  }
  if (status?.completed === true) return { state: "success", outputs };
  return { state: "unknown", outputs };
}

/** Where the prompt sits in `/queue`: running, pending (with its 0-based place), or absent. */
export function queuePlace(
  body: unknown,
  promptId: string,
): { state: "running" | "absent" } | { state: "pending"; ahead: number } {
  if (!isObject(body)) return { state: "absent" };
  const running = Array.isArray(body.queue_running) ? body.queue_running : [];
  if (running.some((it) => Array.isArray(it) && it[1] === promptId)) return { state: "running" };
  const pending = (Array.isArray(body.queue_pending) ? body.queue_pending : []).filter(
    (it): it is unknown[] => Array.isArray(it),
  );
  const mine = pending.find((it) => it[1] === promptId);
  if (!mine) return { state: "absent" };
  const key = (it: unknown[]) => (typeof it[0] === "number" ? it[0] : 0);
  const ahead = pending.filter(
    (it) => key(it) < key(mine) || (key(it) === key(mine) && String(it[1]) < promptId),
  ).length;
  return { state: "pending", ahead: ahead + running.length };
}

/** A file name safe to write into the work folder (the item's base name, no separators or leading dots). */
export function localName(item: Pick<OutputItem, "filename">): string {
  const base = item.filename.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[^\w.\- ()[\]]+/g, "_").replace(/^\.+/, "");
  return clean || "output";
}
