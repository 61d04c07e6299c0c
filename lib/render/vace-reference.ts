// The Wan VACE reference picture of a take: the shot's subjects (characters in `who:` order, then props and
// vehicles: the compile's panel order) composed into one picture at the render size on the recipe's background, one
// column per subject with a thin gap between, each picture (a character sheet cut to the panel the shot size calls
// for) fitted whole and centred in its column. Made when the job starts from the pictures there then, uploaded as the
// graph's `reference_image`; with no picture the shot renders from the prompt alone.
import path from "node:path";
import sharp from "sharp";
import type { Entry } from "../compile/types.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { episodeFence, mkdirShow, readShowFile, showFence, writeShowFile } from "../paths/guarded.ts";
import type { PanelLayout } from "../targets/registry.ts";
import { jobFigures } from "./job-figures.ts";

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** What one column shows: a picture, whole or panel `index` of `of` side by side. */
export interface VacePicture {
  data: Buffer;
  panel: { index: number; of: number } | null;
}

/** The recipe's gap (a fraction of the width) and background, with the usual values when unset or out of range. */
export function vaceLook(layout: PanelLayout): { gap: number; background: string } {
  const gap = typeof layout.gap === "number" && layout.gap >= 0 && layout.gap < 0.5 ? layout.gap : 0.02;
  const bg =
    typeof layout.background === "string" && layout.background.trim() ? layout.background.trim() : "white";
  return { gap, background: bg };
}

/** `count` equal columns across the frame, `gap` of its width apart, each the frame's full height. */
export function vaceColumns(frame: { width: number; height: number }, count: number, gap: number): Box[] {
  if (count <= 0) return [];
  const space = Math.round(frame.width * gap);
  const width = Math.max(1, Math.floor((frame.width - space * (count - 1)) / count));
  // What rounding leaves over is shared out as a margin, so the row stays centred.
  const left0 = Math.floor((frame.width - (width * count + space * (count - 1))) / 2);
  return Array.from({ length: count }, (_, i) => ({
    left: left0 + i * (width + space),
    top: 0,
    width,
    height: frame.height,
  }));
}

/** Where a picture of `size` stands fitted whole inside `box`, centred. */
export function fitInside(size: { width: number; height: number }, box: Box): Box {
  const scale = Math.min(box.width / Math.max(1, size.width), box.height / Math.max(1, size.height));
  const width = Math.max(1, Math.min(box.width, Math.round(size.width * scale)));
  const height = Math.max(1, Math.min(box.height, Math.round(size.height * scale)));
  return {
    left: box.left + Math.floor((box.width - width) / 2),
    top: box.top + Math.floor((box.height - height) / 2),
    width,
    height,
  };
}

/** A picture cut to its panel (a sheet's panels side by side), as PNG. */
async function panelOf(p: VacePicture): Promise<Buffer> {
  if (!p.panel) return p.data;
  const meta = await sharp(p.data).metadata();
  const w = meta.width ?? 1;
  const h = meta.height ?? 1;
  const each = Math.max(1, Math.floor(w / p.panel.of));
  const left = Math.min(w - 1, each * p.panel.index);
  return sharp(p.data)
    .extract({ left, top: 0, width: Math.max(1, Math.min(each, w - left)), height: h })
    .png()
    .toBuffer();
}

/** The composed picture (PNG, RGB) and where each picture stands in it. */
export async function composeVaceReference(
  frame: { width: number; height: number },
  pictures: readonly VacePicture[],
  look: { gap: number; background: string },
): Promise<{ png: Buffer; boxes: Box[] }> {
  const columns = vaceColumns(frame, pictures.length, look.gap);
  const boxes: Box[] = [];
  const layers = await Promise.all(
    pictures.map(async (p, i) => {
      const cut = await panelOf(p);
      const meta = await sharp(cut).metadata();
      const box = fitInside({ width: meta.width ?? 1, height: meta.height ?? 1 }, columns[i]);
      boxes[i] = box;
      const input = await sharp(cut).resize(box.width, box.height, { fit: "fill" }).png().toBuffer();
      return { input, left: box.left, top: box.top };
    }),
  );
  const base = sharp({
    create: { width: frame.width, height: frame.height, channels: 3, background: look.background },
  });
  const layered = await sharp(await base.png().toBuffer())
    .composite(layers)
    .png()
    .toBuffer();
  const png = await sharp(layered).flatten({ background: look.background }).removeAlpha().png().toBuffer();
  return { png, boxes };
}

/** What a take's composed reference picture is made for. */
export interface ReferenceJob {
  entry: Entry;
  refs: unknown;
  width: number;
  height: number;
  stem: string;
  workDir: string;
  ep: string;
}

/**
 * A take's composed reference picture, written into `workDir` as `<stem><suffix>`: the subject pictures its sidecar
 * recorded that are there now (`subjects`, in the order drawn), then `plate` (a location picture) when given; null
 * when none is there.
 */
export async function composeTakeReference(
  vi: ViewInputs,
  layout: PanelLayout,
  job: ReferenceJob,
  plate: string | null,
  suffix: string,
): Promise<{ file: string; subjects: string[] } | null> {
  const drawn = await jobFigures(vi, layout, job.entry, job.refs);
  const fence = showFence(vi.ep);
  const pictures: VacePicture[] = [];
  const subjects: string[] = [];
  for (const f of drawn.figures) {
    const real = drawn.inputs[f.input];
    if (!real) continue;
    pictures.push({ data: await readShowFile(fence, real), panel: f.panel });
    subjects.push(f.subject);
  }
  if (plate) pictures.push({ data: await readShowFile(fence, plate), panel: null });
  if (!pictures.length) return null;
  const { png } = await composeVaceReference(
    { width: job.width, height: job.height },
    pictures,
    vaceLook(layout),
  );
  const file = path.join(job.workDir, `${path.basename(job.stem)}${suffix}`);
  await mkdirShow(episodeFence(job.ep), job.workDir);
  await writeShowFile(episodeFence(job.ep), file, png);
  return { file, subjects };
}

/**
 * The take's reference picture, written into `workDir` as `<stem>_reference.png`, from the subject pictures its
 * sidecar recorded that are there now; null when none is (the prompt alone leads then).
 */
export function vaceReferenceFor(
  vi: ViewInputs,
  layout: PanelLayout,
  job: ReferenceJob,
): Promise<{ file: string; subjects: string[] } | null> {
  return composeTakeReference(vi, layout, job, null, "_reference.png");
}
