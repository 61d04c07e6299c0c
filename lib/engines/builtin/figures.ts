// The animatic's figures: each subject's live picture (its sheet's panel, or the whole picture) as a tile in a
// centred row low on the card, above the captions, with the subject's name under it.
import path from "node:path";
import { type Fence, readShowFile } from "../../paths/guarded.ts";
import { errorMessage } from "../../store/json-guards.ts";
import type { JobFigure } from "../types.ts";
import { svgLines, textWidth, wrapText } from "./text.ts";

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Overlay {
  input: Buffer;
  left: number;
  top: number;
}

/** Shorter than this, a row of figures would be unreadable at any size: the card is drawn without it. */
export const MIN_ROW = 24;

/**
 * Slots for `count` figures in the band between `top` and `bottom`: a centred row resting on `bottom`, at most
 * half the card tall, each slot at most a little wider than tall (a sheet panel is about square). A drawn tile
 * hugs its picture inside its slot's bounds, and the tiles are packed centred. Null when the band is too short to
 * draw anything readable.
 */
export function figureTiles(
  count: number,
  card: { width: number; height: number },
  band: { top: number; bottom: number },
  margin: number,
): Rect[] | null {
  if (count < 1) return [];
  const height = Math.min(band.bottom - band.top, Math.round(card.height / 2));
  if (height < MIN_ROW) return null;
  const gap = Math.max(2, Math.round(margin / 2));
  const room = card.width - 2 * margin - (count - 1) * gap;
  const width = Math.floor(Math.min(room / count, height * 1.25));
  if (width < MIN_ROW / 2) return null;
  const row = count * width + (count - 1) * gap;
  const left0 = Math.round((card.width - row) / 2);
  const top = band.bottom - height;
  return Array.from({ length: count }, (_, i) => ({ left: left0 + i * (width + gap), top, width, height }));
}

/** The panel's columns of a `width`-wide sheet cut into `of` equal panels side by side. */
export function panelColumns(
  width: number,
  panel: { index: number; of: number },
): { left: number; width: number } {
  const left = Math.round((width * panel.index) / panel.of);
  return { left, width: Math.max(1, Math.round((width * (panel.index + 1)) / panel.of) - left) };
}

interface Picture {
  figure: JobFigure;
  png: Buffer;
  what: string;
}

/** The figure's picture, cut to its panel when the file is a strip, tightened to the figure on a flat background. */
async function readPicture(fence: Fence, figure: JobFigure, file: string): Promise<Picture> {
  const { default: sharp } = await import("sharp");
  // Read into memory: libvips caches decoded files by name and would miss a picture replaced by a new pick.
  const upright = await sharp(await readShowFile(fence, file), { animated: false })
    .rotate()
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  let png = upright.data;
  const { width, height } = upright.info;
  let what = `${path.basename(file)} whole`;
  // Only a picture wider than tall is a sheet's strip of views; anything else is drawn whole.
  if (figure.panel && figure.panel.of > 1 && width > height) {
    const cols = panelColumns(width, figure.panel);
    png = await sharp(png)
      .extract({ left: cols.left, top: 0, width: Math.min(cols.width, width - cols.left), height })
      .png({ compressionLevel: 1 })
      .toBuffer();
    what = `panel ${figure.panel.index + 1} of ${figure.panel.of} of ${path.basename(file)}`;
  }
  try {
    png = await sharp(png).trim().png({ compressionLevel: 1 }).toBuffer();
  } catch {
    // Nothing to trim against (a busy background): the panel is drawn as it is.
  }
  return { figure, png, what };
}

/**
 * Overlays drawing the figures whose pictures are there, in the band above the captions; notes say what each
 * figure showed and which were left out (no picture yet, unreadable, no room).
 */
export async function drawFigures(opts: {
  figures: readonly JobFigure[];
  inputs: Record<string, string>;
  fence: Fence;
  card: { width: number; height: number };
  band: { top: number; bottom: number };
  margin: number;
  /** Whether a font draws the names. */
  text: boolean;
  notes: string[];
}): Promise<Overlay[]> {
  const { default: sharp } = await import("sharp");
  const { figures, inputs, notes } = opts;
  const read: Picture[] = [];
  for (const f of figures) {
    const file = inputs[f.input];
    if (!file) {
      notes.push(`figure: ${f.name} has no picture yet; not drawn`);
      continue;
    }
    try {
      read.push(await readPicture(opts.fence, f, file));
    } catch (err) {
      notes.push(
        `figure: ${f.name}'s picture ${path.basename(file)} could not be read (${errorMessage(err)}); not drawn`,
      );
    }
  }
  if (read.length === 0) return [];
  const tiles = figureTiles(read.length, opts.card, opts.band, opts.margin);
  if (!tiles) {
    notes.push(
      `figures: no room above the captions for ${read.map((p) => p.figure.name).join(", ")}; not drawn`,
    );
    return [];
  }
  const fontSize = Math.max(8, Math.min(48, Math.round(opts.card.height / 24)));
  const pad = Math.max(2, Math.round(fontSize / 4));
  const gap = Math.max(2, Math.round(opts.margin / 2));
  const sized: {
    p: Picture;
    lines: string[];
    picture: { data: Buffer; width: number; height: number };
    width: number;
    box: number;
  }[] = [];
  for (const [i, p] of read.entries()) {
    const slot = tiles[i];
    const lines = opts.text ? wrapText(p.figure.name, fontSize, slot.width - 2 * pad, 1) : [];
    const nameHeight = lines.length ? Math.round(fontSize * 1.3) : 0;
    const box = { width: slot.width - 2 * pad, height: slot.height - 2 * pad - nameHeight };
    if (box.width < 4 || box.height < 4) continue;
    const { data, info } = await sharp(p.png)
      .resize(box.width, box.height, { fit: "inside" })
      .png({ compressionLevel: 1 })
      .toBuffer({ resolveWithObject: true });
    // The tile hugs the figure (or its name, when wider).
    const nameWidth = lines.length ? Math.ceil(textWidth(lines[0], fontSize)) : 0;
    const width = Math.min(slot.width, Math.max(info.width, nameWidth) + 2 * pad);
    sized.push({
      p,
      lines,
      picture: { data, width: info.width, height: info.height },
      width,
      box: box.height,
    });
  }
  // The tiles side by side, the row centred on the card.
  const row = sized.reduce((sum, t) => sum + t.width, 0) + gap * Math.max(0, sized.length - 1);
  let left = Math.round((opts.card.width - row) / 2);
  const top = tiles[0].top;
  const height = tiles[0].height;
  const out: Overlay[] = [];
  for (const { p, lines, picture, width, box } of sized) {
    // A translucent backing keeps the figure and its name apart from a busy plate or keyframe.
    const backing =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect x="0" y="0" width="${width}" height="${height}" rx="${pad}" fill="#000000" fill-opacity="0.55"/>` +
      (lines.length
        ? svgLines(lines, {
            x: width / 2,
            y: height - pad - Math.round(fontSize * 0.3),
            fontSize,
            lineHeight: fontSize,
            fill: "#ffffff",
            anchor: "middle",
          })
        : "") +
      "</svg>";
    out.push({ input: await sharp(Buffer.from(backing)).png().toBuffer(), left, top });
    out.push({
      input: picture.data,
      // Centred across the tile, standing on the name.
      left: left + Math.round((width - picture.width) / 2),
      top: top + pad + (box - picture.height),
    });
    notes.push(`figure: ${p.figure.name} (${p.what})`);
    left += width + gap;
  }
  return out;
}
