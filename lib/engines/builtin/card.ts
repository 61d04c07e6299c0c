// The built-in image target `card`: a labelled picture (subject and prompt on a seed-coloured card), no model.
import { createHash } from "node:crypto";
import path from "node:path";
import { mkdirShow, writeShowFile } from "../../paths/guarded.ts";
import type { EngineJob, EngineOutputs } from "../types.ts";
import { svgLines, wrapText } from "./text.ts";
import { throwIfCanceled, type WorkContext } from "./work.ts";

export interface CardColours {
  bg: string;
  border: string;
}

/** The animatic's plain card when a shot has no keyframe or plate: neutral, so it never reads as a picture. */
export const PLAIN_CARD: CardColours = { bg: "#2b3440", border: "#58667a" };

/** A dark, readable background hue picked from the seed, so one seed always gives the same card. */
export function seedColours(seed: bigint): CardColours {
  const digest = createHash("sha1").update(seed.toString()).digest();
  const hue = digest.readUInt16BE(0) % 360;
  return { bg: hsl(hue, 0.38, 0.27), border: hsl(hue, 0.3, 0.52) };
}

/** `#rrggbb` of a hue (degrees), saturation and lightness (0..1); hex keeps the SVG independent of CSS support. */
function hsl(h: number, s: number, l: number): string {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const v = l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

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

/** Render `<workDir>/<stem>.png` at the job's size. */
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
  const text: CardText = {
    title: job.subject,
    body: promptText(job.prompt),
    footer: `card · seed ${job.seed}`,
  };
  const svg = cardSvg(width, height, seedColours(job.seed), withText ? text : null);
  ctx.report(0.3);
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  throwIfCanceled(ctx.signal);
  await mkdirShow(ctx.fence, job.workDir);
  const out = path.join(job.workDir, `${job.stem}.png`);
  await writeShowFile(ctx.fence, out, png);
  ctx.report(0.9);
  return { image: out, notes: [...ctx.notes] };
}
