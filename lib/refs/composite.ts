// Pictures composed for an image target at queue time: a keyframe's collage (figures side by side over the plate) for
// a target that reads one picture, a sheet panel cut onto white, a picture scaled to the asked size. Each is kept by
// content under the candidate's `_composites/` folder, so a job that runs later, or again, reads what was queued.
import { createHash } from "node:crypto";
import path from "node:path";
import sharp from "sharp";
import { readShowFile, statShowOrNull, writeShowFile } from "../paths/guarded.ts";
import type { RefId } from "./ids.ts";
import { type RefsPlace, takesDir, takesFence } from "./place.ts";

/** At most this many figures stand in one composite. */
export const MAX_FIGURES = 4;

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where figures of the given sizes stand in a frame: side by side at about two thirds of its height, 2% of its
 * width apart, standing on the bottom edge, centred; scaled down together when the row is wider than the frame
 * minus 3% on each side.
 */
export function figureBoxes(
  frame: { width: number; height: number },
  figures: readonly { width: number; height: number }[],
): Box[] {
  if (figures.length === 0) return [];
  const gap = frame.width * 0.02;
  let height = (frame.height * 2) / 3;
  const widths = (h: number) => figures.map((f) => (f.width / Math.max(1, f.height)) * h);
  const rowWidth = (h: number) => widths(h).reduce((a, b) => a + b, 0) + gap * (figures.length - 1);
  const room = frame.width * 0.94;
  const row = rowWidth(height);
  if (row > room) {
    const figuresOnly = row - gap * (figures.length - 1);
    height *= Math.max(0.01, (room - gap * (figures.length - 1)) / figuresOnly);
  }
  const ws = widths(height);
  let x = (frame.width - rowWidth(height)) / 2;
  return ws.map((w) => {
    const box = {
      left: Math.max(0, Math.round(x)),
      top: Math.max(0, Math.round(frame.height - height)),
      width: Math.max(1, Math.round(w)),
      height: Math.max(1, Math.round(height)),
    };
    x += w + gap;
    return box;
  });
}

/** A keyframe's composite: the figures (at most four) over the plate cover-fitted to the frame, or over white. */
export async function composeFigures(
  frame: { width: number; height: number },
  plate: Buffer | null,
  figures: readonly Buffer[],
): Promise<Buffer> {
  const chosen = figures.slice(0, MAX_FIGURES);
  const sizes = await Promise.all(chosen.map((f) => sharp(f).metadata()));
  const boxes = figureBoxes(
    frame,
    sizes.map((m) => ({ width: m.width ?? 1, height: m.height ?? 1 })),
  );
  const base = plate
    ? sharp(plate).resize(frame.width, frame.height, { fit: "cover" }).removeAlpha()
    : sharp({ create: { width: frame.width, height: frame.height, channels: 3, background: "#ffffff" } });
  const layers = await Promise.all(
    chosen.map(async (f, i) => ({
      input: await sharp(f).resize(boxes[i].width, boxes[i].height, { fit: "fill" }).png().toBuffer(),
      left: boxes[i].left,
      top: boxes[i].top,
    })),
  );
  const flat = await base.png().toBuffer();
  // Composited in one pass, then flattened back to RGB: the figures' PNGs bring an alpha channel.
  const layered = await sharp(flat).composite(layers).png().toBuffer();
  return sharp(layered).flatten({ background: "#ffffff" }).removeAlpha().png().toBuffer();
}

/** One panel of a four-panel sheet (panels side by side), centred on a white square of `side` pixels. */
export async function sheetPanel(sheet: Buffer, index: number, side = 1024): Promise<Buffer> {
  const meta = await sharp(sheet).metadata();
  const w = meta.width ?? 4;
  const h = meta.height ?? 1;
  const panel = Math.floor(w / 4);
  const cut = await sharp(sheet)
    .extract({ left: panel * index, top: 0, width: panel, height: h })
    .png()
    .toBuffer();
  return sharp(cut)
    .resize(side, side, { fit: "contain", background: "#ffffff" })
    .flatten({ background: "#ffffff" })
    .png()
    .toBuffer();
}

/** The picture at exactly `width`x`height`: stretched a little when the aspect barely differs, else fitted on white. */
export async function atSize(picture: Buffer, width: number, height: number): Promise<Buffer> {
  const meta = await sharp(picture).metadata();
  const aspect = (meta.width ?? width) / Math.max(1, meta.height ?? height);
  const close = Math.abs(aspect / (width / height) - 1) < 0.03;
  return sharp(picture)
    .resize(width, height, close ? { fit: "fill" } : { fit: "contain", background: "#ffffff" })
    .flatten({ background: "#ffffff" })
    .png()
    .toBuffer();
}

export const sha1Of = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");

/** The folder composed inputs of a reference's candidates are kept in. */
export const compositesDir = (place: RefsPlace, ref: RefId) => path.join(takesDir(place, ref), "_composites");

/** Keep a composed picture as `_composites/<sha1>.png` (once: the same content is the same file). */
export async function keepComposite(place: RefsPlace, ref: RefId, png: Buffer): Promise<string> {
  const file = path.join(compositesDir(place, ref), `${sha1Of(png)}.png`);
  const fence = takesFence(place, ref);
  if (!(await statShowOrNull(fence, file))) await writeShowFile(fence, file, png);
  return file;
}

/** A file's bytes and SHA-1, read through the fence it lives behind. */
export async function readPicture(
  fence: Parameters<typeof readShowFile>[0],
  file: string,
): Promise<{ data: Buffer; sha1: string; width: number; height: number }> {
  const data = await readShowFile(fence, file);
  const meta = await sharp(data).metadata();
  return { data, sha1: sha1Of(data), width: meta.width ?? 0, height: meta.height ?? 0 };
}
