// What a built-in render step receives from the engine, and the helpers its three renderers share.
import path from "node:path";
import type { MediaTools } from "../../media/tools.ts";
import { type Fence, removeShow, renameShow } from "../../paths/guarded.ts";
import { tempPath } from "../../store/temp-names.ts";

export interface WorkContext {
  media: MediaTools;
  /** Whether a font draws text here (checked once per engine). */
  fontsUsable(): Promise<boolean>;
  /** The episode folder the job's files must really lie in (a take folder linked out of it is refused). */
  fence: Fence;
  /** Aborted by cancel() or by the caller's hooks.signal. */
  signal: AbortSignal;
  /** Progress of the render as a fraction (the engine keeps it below 1 until collect has the outputs). */
  report(fraction: number): void;
  /** Notes for the take (what was drawn, what was skipped). */
  notes: string[];
}

/** The one error a canceled render rejects with. */
export const canceled = () => new Error("canceled");

export function throwIfCanceled(signal: AbortSignal): void {
  if (signal.aborted) throw canceled();
}

/** A hidden temporary name beside `file` keeping its extension (ffmpeg picks nothing from it: formats are forced). */
export function tempBeside(file: string): string {
  return tempPath(file, path.extname(file));
}

/** Move finished temporaries over their final names (same folder, so each rename is atomic). */
export async function commit(fence: Fence, pairs: readonly [tmp: string, final: string][]): Promise<void> {
  for (const [tmp, final] of pairs) await renameShow(fence, tmp, final);
}

export async function discard(fence: Fence, files: readonly string[]): Promise<void> {
  await Promise.all(files.map((f) => removeShow(fence, f, { recursive: true })));
}

// Broadcast rates are written as exact fractions so frame times do not drift over long shots.
const NTSC: Record<string, string> = {
  "23.976": "24000/1001",
  "29.97": "30000/1001",
  "59.94": "60000/1001",
  "47.952": "48000/1001",
  "119.88": "120000/1001",
};

/** `fps` as ffmpeg reads it (`24`, `30000/1001`, `12.5`). */
export function fpsArg(fps: number): string {
  if (Number.isInteger(fps)) return String(fps);
  return NTSC[fps.toFixed(3).replace(/0+$/, "").replace(/\.$/, "")] ?? NTSC[fps.toFixed(2)] ?? String(fps);
}

/** Seconds for ffmpeg expressions and options: fixed point, no exponent. */
export function secs(n: number): string {
  return n.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
}
