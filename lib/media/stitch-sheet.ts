// A character's 4-panel sheet: four view pictures side by side (01_threequarter, 02_side, 03_back, 04_face, left to
// right), each scaled to the tallest picture's height and centred on a panel as wide as the widest scaled picture.
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp, { type Sharp } from "sharp";
import { StudioError } from "../errors.ts";
import { writeFileAtomic } from "../store/atomic.ts";
import { errorMessage } from "../store/json-guards.ts";

type Rgb = { r: number; g: number; b: number };

const WHITE: Rgb = { r: 255, g: 255, b: 255 };

/** The panels a sheet is made of, in the order they stand on it. */
export const SHEET_PANELS = 4;

// sharp's own default ceiling for a decoded picture: a sheet larger than this could not be read back either.
const MAX_SHEET_PIXELS = 268_402_689;

// Corners that differ by more than this on any channel are not one background: the padding falls back to white.
const CORNER_TOLERANCE = 24;

// A corner lighter than fully opaque shows what is behind it, not the picture's own colour.
const OPAQUE = 250;

interface Panel {
  /** The picture scaled to the sheet's height, RGBA. */
  pixels: Buffer;
  width: number;
  background: Rgb;
}

/**
 * Stitch four pictures (absolute paths, in view order) into one horizontal sheet written atomically at `out`.
 * The format follows `out`'s extension (png unless jpg, jpeg or webp). A file that is missing or not a picture
 * fails with a StudioError 500 naming the panel; nothing is written then.
 */
export async function stitchSheet(
  panels: readonly string[],
  out: string,
): Promise<{ width: number; height: number }> {
  if (panels.length !== SHEET_PANELS) {
    throw new StudioError(500, `a sheet is stitched from ${SHEET_PANELS} pictures, not ${panels.length}`);
  }
  const inputs = await Promise.all(panels.map((file, i) => readPanel(file, i)));
  const sizes = await Promise.all(inputs.map((input, i) => pictureSize(input, panels[i], i)));
  const height = Math.max(...sizes.map((s) => s.height));
  const scaled = await Promise.all(
    inputs.map((input, i) =>
      scalePanel(
        input,
        Math.max(1, Math.round((sizes[i].width * height) / sizes[i].height)),
        height,
        panels[i],
        i,
      ),
    ),
  );
  const panelWidth = Math.max(...scaled.map((p) => p.width));
  const width = panelWidth * SHEET_PANELS;
  if (width * height > MAX_SHEET_PIXELS) {
    throw new StudioError(
      500,
      `the sheet would be ${width}x${height} pixels, too large to stitch: the four views differ too much in shape`,
    );
  }
  const layers = await Promise.all(scaled.map((p) => padPanel(p, panelWidth, height)));
  const sheet = sharp({ create: { width, height, channels: 3, background: WHITE } }).composite(
    layers.map((input, i) => ({
      input,
      raw: { width: panelWidth, height, channels: 3 as const },
      left: i * panelWidth,
      top: 0,
    })),
  );
  const bytes = await encode(sheet, out).toBuffer();
  await writeFileAtomic(out, bytes);
  return { width, height };
}

function panelLabel(file: string, index: number): string {
  return `panel ${index + 1} (${path.basename(file)})`;
}

async function readPanel(file: string, index: number): Promise<Buffer> {
  try {
    // Read into memory rather than by name: libvips caches decoded files by name and would miss a rewrite.
    return await readFile(file);
  } catch (err) {
    throw new StudioError(500, `${panelLabel(file, index)} could not be read: ${errorMessage(err)}`);
  }
}

/** The picture's size as it is shown (EXIF orientation applied). */
async function pictureSize(
  input: Buffer,
  file: string,
  index: number,
): Promise<{ width: number; height: number }> {
  try {
    const meta = await sharp(input, { animated: false }).metadata();
    if (!meta.width || !meta.height) throw new Error("it has no size");
    const turned = (meta.orientation ?? 1) >= 5;
    return turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch (err) {
    throw new StudioError(500, `${panelLabel(file, index)} is not a picture: ${errorMessage(err)}`);
  }
}

async function scalePanel(
  input: Buffer,
  width: number,
  height: number,
  file: string,
  index: number,
): Promise<Panel> {
  try {
    const { data, info } = await sharp(input, { animated: false })
      .rotate()
      .resize({ width, height, fit: "fill" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { pixels: data, width: info.width, background: cornerColour(data, info.width, info.height) };
  } catch (err) {
    throw new StudioError(500, `${panelLabel(file, index)} could not be scaled: ${errorMessage(err)}`);
  }
}

/** The colour all four corners share (the picture's own background), else white. */
export function cornerColour(rgba: Uint8Array, width: number, height: number): Rgb {
  const at = (x: number, y: number) => {
    const o = (y * width + x) * 4;
    return [rgba[o], rgba[o + 1], rgba[o + 2], rgba[o + 3]];
  };
  const corners = [at(0, 0), at(width - 1, 0), at(0, height - 1), at(width - 1, height - 1)];
  if (corners.some((c) => c[3] < OPAQUE)) return WHITE;
  for (let ch = 0; ch < 3; ch++) {
    const values = corners.map((c) => c[ch]);
    if (Math.max(...values) - Math.min(...values) > CORNER_TOLERANCE) return WHITE;
  }
  const mean = (ch: number) => Math.round(corners.reduce((sum, c) => sum + c[ch], 0) / corners.length);
  return { r: mean(0), g: mean(1), b: mean(2) };
}

/** The scaled picture over its own background, centred on a panel of the sheet's panel width: raw RGB. */
async function padPanel(panel: Panel, panelWidth: number, height: number): Promise<Buffer> {
  const left = Math.floor((panelWidth - panel.width) / 2);
  return sharp(panel.pixels, { raw: { width: panel.width, height, channels: 4 } })
    .flatten({ background: panel.background })
    .extend({ left, right: panelWidth - panel.width - left, background: panel.background })
    .removeAlpha()
    .raw()
    .toBuffer();
}

function encode(sheet: Sharp, out: string): Sharp {
  const ext = path.extname(out).slice(1).toLowerCase();
  if (ext === "jpg" || ext === "jpeg") return sheet.jpeg({ quality: 95 });
  if (ext === "webp") return sheet.webp({ lossless: true });
  return sheet.png();
}
