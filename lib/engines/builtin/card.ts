// The built-in image target `card`: a reference card (what the reference is, drawn on its palette; see ref-card.ts),
// and the plain card frame and text the animatic draws its shots on. No model.
import path from "node:path";
import { mkdirShow, writeShowFile } from "../../paths/guarded.ts";
import type { EngineJob, EngineOutputs } from "../types.ts";
import { cardRef, refCardSvg } from "./ref-card.ts";
import { svgLines, wrapText } from "./text.ts";
import { throwIfCanceled, type WorkContext } from "./work.ts";

export interface CardColours {
  bg: string;
  border: string;
}

/** The animatic's plain card when a shot has no keyframe or plate: neutral, so it never reads as a picture. */
export const PLAIN_CARD: CardColours = { bg: "#2b3440", border: "#58667a" };

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** Background and border of a card as SVG elements (no text). */
export function cardFrame(width: number, height: number, colours: CardColours): string {
  const t = Math.max(2, Math.round(Math.min(width, height) / 160));
  const inset = t * 2;
  return (
    `<rect x="0" y="0" width="${width}" height="${height}" fill="${colours.bg}"/>` +
    `<rect x="${inset + t / 2}" y="${inset + t / 2}" width="${Math.max(0, width - 2 * inset - t)}" ` +
    `height="${Math.max(0, height - 2 * inset - t)}" fill="none" stroke="${colours.border}" stroke-width="${t}"/>`
  );
}

export interface CardText {
  title: string;
  body: string;
  footer: string;
}

/** The whole card as SVG; `text` null draws the frame alone (no usable font). */
export function cardSvg(width: number, height: number, colours: CardColours, text: CardText | null): string {
  let inner = cardFrame(width, height, colours);
  if (text) {
    const short = Math.min(width, height);
    const pad = Math.max(8, Math.round(short * 0.07));
    const titleFs = clamp(Math.round(short / 11), 10, 120);
    const bodyFs = clamp(Math.round(short / 24), 8, 56);
    const footFs = clamp(Math.round(short / 34), 7, 32);
    const maxW = width - 2 * pad;
    const titleLh = Math.round(titleFs * 1.2);
    const bodyLh = Math.round(bodyFs * 1.3);
    const title = wrapText(text.title, titleFs, maxW, 2);
    let y = pad + titleFs;
    inner += svgLines(title, {
      x: pad,
      y,
      fontSize: titleFs,
      lineHeight: titleLh,
      fill: "#ffffff",
      weight: "bold",
    });
    y += (title.length - 1) * titleLh + Math.round(bodyFs * 1.6);
    const footerTop = height - pad - footFs;
    const room = Math.floor((footerTop - bodyFs * 0.6 - y) / bodyLh) + 1;
    if (room > 0 && text.body.trim()) {
      const body = wrapText(text.body, bodyFs, maxW, room);
      inner += svgLines(body, { x: pad, y, fontSize: bodyFs, lineHeight: bodyLh, fill: "#f2f2f2" });
    }
    inner += svgLines([text.footer], {
      x: pad,
      y: height - pad,
      fontSize: footFs,
      lineHeight: footFs,
      fill: "#d0d0d0",
    });
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${inner}</svg>`;
}

export function promptText(prompt: string | string[]): string {
  return (Array.isArray(prompt) ? prompt.join("\n") : prompt).trim();
}

/** Render `<workDir>/<stem>.png` at the job's size: the reference card of the job's reference. */
export async function renderCard(job: EngineJob, ctx: WorkContext): Promise<EngineOutputs> {
  const { default: sharp } = await import("sharp");
  const { width, height } = job;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new Error(`card: the size must be whole positive pixels (got ${width}x${height})`);
  }
  throwIfCanceled(ctx.signal);
  const withText = await ctx.fontsUsable();
  if (!withText)
    ctx.notes.push("no font could draw text here (install fonts-dejavu-core): the card has no label");
  const ref = cardRef(job);
  const svg = refCardSvg(width, height, ref, withText ? { footer: `card · seed ${job.seed}` } : null);
  ctx.report(0.3);
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  throwIfCanceled(ctx.signal);
  await mkdirShow(ctx.fence, job.workDir);
  const out = path.join(job.workDir, `${job.stem}.png`);
  await writeShowFile(ctx.fence, out, png);
  ctx.report(0.9);
  return { image: out, notes: [...ctx.notes] };
}
