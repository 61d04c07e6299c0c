// The built-in reference card: what a reference is (name, kind, view, description) on a palette drawn from the series
// look and the reference id, beside a simple drawing of it (a figure per character view, an object, a vehicle, a
// landscape, a framed shot), as SVG that sharp renders. Pure: the engine turns the SVG into the take's picture.
import { createHash } from "node:crypto";
import { isCharacterView, readRefId, readTakeStem } from "../../refs/ids.ts";
import { isObject } from "../../store/json-guards.ts";
import type { EngineJob, JobRef } from "../types.ts";
import { svgLines, wrapText } from "./text.ts";

/** A card's colours: background, the drawing's panel, accent (labels), the drawing, its shade, and a contrast. */
export interface Palette {
  bg: string;
  panel: string;
  accent: string;
  figure: string;
  shade: string;
  contrast: string;
}

const digest = (text: string) => createHash("sha1").update(text).digest();

/**
 * The palette of a reference: a base hue from the look and the reference id (so two characters differ and the four
 * views of one share it), saturation and lightness from the look's words (muted, noir, pastel, vivid...).
 */
export function refPalette(look: string, id: string): Palette {
  const d = digest(`${look.trim().toLowerCase()}\u0000${id}`);
  const hue = d.readUInt16BE(0) % 360;
  const words = look.toLowerCase();
  let sat = 0.42;
  let light = 0.55;
  if (/\b(noir|black and white|black-and-white|monochrome|grayscale|greyscale)\b/.test(words)) sat = 0.06;
  else if (/\b(muted|desaturated|faded|washed|grey|gray|gritty|bleak)\b/.test(words)) sat = 0.22;
  else if (/\b(vivid|saturated|neon|bold|bright|vibrant|colou?rful|pop)\b/.test(words)) sat = 0.7;
  if (/\b(pastel|soft|airy|pale)\b/.test(words)) light = 0.7;
  else if (/\b(dark|moody|night|shadowy|gloomy)\b/.test(words)) light = 0.45;
  return {
    bg: hsl(hue, sat * 0.7, 0.14),
    panel: hsl(hue, sat * 0.6, 0.24),
    accent: hsl(hue, Math.min(0.9, sat + 0.2), 0.7),
    figure: hsl(hue + 25, sat, light),
    shade: hsl(hue + 25, sat, light * 0.62),
    contrast: hsl(hue + 180, Math.min(0.85, sat + 0.1), 0.62),
  };
}

/** `#rrggbb` of a hue (degrees), saturation and lightness (0..1). */
export function hsl(h: number, s: number, l: number): string {
  const hue = ((h % 360) + 360) % 360;
  const k = (n: number) => (n + hue / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) =>
    Math.round((l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))) * 255)
      .toString(16)
      .padStart(2, "0");
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

const VIEW_LABELS: Record<string, string> = {
  "01_threequarter": "three-quarter view",
  "02_side": "side profile",
  "03_back": "back view",
  "04_face": "face close-up",
  sheet: "character sheet",
  plate: "background plate",
  pano: "360 panorama",
  tour: "tour frame",
  first: "first frame",
  last: "last frame",
};

/** How the card names a view (`01_threequarter` → `three-quarter view`). */
export const viewLabel = (view: string | null): string | null =>
  view === null ? null : (VIEW_LABELS[view] ?? view.replace(/^\d+_/, "").replaceAll("_", " "));

/**
 * What the card says about the job's reference: the job's `ref` when the queue gave it, else what the subject key,
 * the take's stem and the prompt tell (`subject__ada` with stem `subject__ada_02_side_t03` is a character's side
 * view, `shot__sh010__first` a keyframe).
 */
export function cardRef(job: Pick<EngineJob, "ref" | "subject" | "prompt"> & { stem?: string }): JobRef {
  const prompt = (Array.isArray(job.prompt) ? job.prompt.join("\n") : job.prompt).trim();
  if (job.ref) return { ...job.ref, description: job.ref.description.trim() || prompt };
  const parsed = readRefId(job.subject.replaceAll("__", ":"));
  if (!parsed)
    return {
      id: job.subject,
      name: job.subject,
      kind: "reference",
      view: null,
      description: prompt,
      look: "",
    };
  const view = job.stem ? (readTakeStem(job.subject, job.stem)?.view ?? null) : null;
  const family = parsed.family;
  const kind =
    family === "shot"
      ? "keyframe"
      : family === "location" || family === "voice"
        ? family
        : isCharacterView(view) || view === "sheet"
          ? "character"
          : "subject";
  return {
    id: parsed.id,
    name: family === "shot" ? `${parsed.name} ${parsed.which} frame` : parsed.name,
    kind,
    view: family === "shot" ? (parsed.which ?? null) : family === "location" ? (view ?? "plate") : view,
    description: prompt,
    look: "",
  };
}

/** What a catalog reference gives the built-in card and voice (the fields of a listed reference it reads). */
export interface CatalogFacts {
  ref: { id: string; name: string };
  kind: string;
  name: string;
  /** The subject id (subjects, and a voice's character). */
  subject: string | null;
  /** The reference's built wording (a keyframe's description of its moment). */
  prompt: string | null;
}

/**
 * The `ref` of an engine job for a catalog reference: its name, kind and view, what it is drawn from (a subject's
 * `design`, a location's `description`, a voice's `voice` brief and design, a keyframe's wording) and the series'
 * `style.look`, read from the series config as loaded.
 */
export function jobRefOf(
  ref: CatalogFacts,
  view: string | null,
  seriesRaw: Record<string, unknown> | null,
): JobRef {
  const series = seriesRaw ?? {};
  const entry = (block: string, key: string | null): Record<string, unknown> => {
    const all = series[block];
    const one = key && isObject(all) ? all[key] : undefined;
    return isObject(one) ? one : {};
  };
  const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const style = isObject(series.style) ? series.style : {};
  let description = "";
  if (ref.kind === "location") description = text(entry("locations", ref.ref.name).description);
  else if (ref.kind === "voice") {
    const who = entry("subjects", ref.subject ?? ref.ref.name);
    description = [text(who.voice), text(who.design)].filter(Boolean).join(". ");
  } else if (ref.kind === "keyframe") description = text(ref.prompt);
  else description = text(entry("subjects", ref.subject ?? ref.ref.name).design);
  return {
    id: ref.ref.id,
    name: ref.name,
    kind: ref.kind,
    view: view ?? (ref.kind === "location" ? "plate" : null),
    description: description || text(ref.prompt),
    look: text(style.look),
  };
}

// ------------------------------------------------------------------------------------------------ the drawings

/** A figure in a 100 × 200 box, feet at the bottom: the side view faces right, the three-quarter view left. */
function figure(view: string, p: Palette): string {
  const f = p.figure;
  const s = p.shade;
  const limb = (x1: number, y1: number, x2: number, y2: number, w: number, fill: string) =>
    `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${fill}" stroke-width="${w}" stroke-linecap="round"/>`;
  switch (view) {
    case "02_side":
      // Profile: a narrow body, one arm, a stride, the nose and eye on the right.
      return (
        limb(48, 102, 40, 188, 12, s) +
        limb(52, 102, 62, 188, 12, f) +
        `<path d="M40,42 Q52,36 62,42 L63,104 L39,104 Z" fill="${f}"/>` +
        limb(52, 48, 58, 100, 9, s) +
        `<rect x="46" y="32" width="10" height="10" fill="${f}"/>` +
        `<ellipse cx="51" cy="21" rx="12" ry="15" fill="${f}"/>` +
        `<path d="M62,18 L70,26 L62,28 Z" fill="${f}"/>` +
        `<path d="M39,14 Q48,2 62,12 L60,16 Q50,10 42,24 Z" fill="${s}"/>` +
        `<circle cx="58" cy="19" r="1.8" fill="${p.bg}"/>` +
        limb(40, 190, 36, 190, 6, s) +
        limb(62, 190, 71, 190, 6, f)
      );
    case "03_back":
      // From behind: symmetric, the head all hair, a seam down the back, no face.
      return (
        limb(42, 102, 40, 190, 13, f) +
        limb(58, 102, 60, 190, 13, f) +
        `<path d="M30,42 Q50,34 70,42 L66,104 L34,104 Z" fill="${f}"/>` +
        limb(31, 46, 25, 100, 9, f) +
        limb(69, 46, 75, 100, 9, f) +
        `<line x1="50" y1="44" x2="50" y2="102" stroke="${s}" stroke-width="2"/>` +
        `<rect x="45" y="32" width="10" height="10" fill="${f}"/>` +
        `<ellipse cx="50" cy="21" rx="13" ry="15" fill="${s}"/>`
      );
    case "04_face":
      // Head and shoulders, filling the box: eyes, nose and mouth.
      return (
        `<path d="M2,200 Q2,150 30,138 L70,138 Q98,150 98,200 Z" fill="${f}"/>` +
        `<rect x="41" y="110" width="18" height="32" fill="${s}"/>` +
        `<ellipse cx="50" cy="78" rx="30" ry="38" fill="${f}"/>` +
        `<path d="M20,72 Q22,34 50,34 Q78,34 80,72 Q72,50 50,50 Q28,50 20,72 Z" fill="${s}"/>` +
        `<ellipse cx="39" cy="80" rx="4" ry="3" fill="${p.bg}"/>` +
        `<ellipse cx="61" cy="80" rx="4" ry="3" fill="${p.bg}"/>` +
        `<path d="M50,84 L46,98 L52,98" fill="none" stroke="${s}" stroke-width="2"/>` +
        `<path d="M40,106 Q50,112 60,106" fill="none" stroke="${p.bg}" stroke-width="2.5" stroke-linecap="round"/>`
      );
    default:
      // Three-quarter: turned to the viewer's left (as the view's prompt asks), the far side in shade, the near
      // shoulder wider; drawn facing right, then mirrored.
      return (
        `<g transform="translate(100,0) scale(-1,1)">` +
        limb(45, 102, 40, 190, 13, f) +
        limb(60, 102, 64, 188, 12, s) +
        `<path d="M31,42 Q50,35 66,42 L63,104 L37,104 Z" fill="${f}"/>` +
        `<path d="M56,40 Q62,39 66,42 L63,104 L56,104 Z" fill="${s}"/>` +
        limb(32, 46, 27, 100, 9, f) +
        limb(66, 46, 70, 98, 8, s) +
        `<rect x="46" y="32" width="10" height="10" fill="${f}"/>` +
        `<ellipse cx="52" cy="21" rx="13" ry="15" fill="${f}"/>` +
        `<path d="M64,20 L69,26 L64,27 Z" fill="${f}"/>` +
        `<path d="M38,16 Q46,2 62,10 L58,14 Q48,10 41,22 Z" fill="${s}"/>` +
        `<circle cx="59" cy="20" r="1.8" fill="${p.bg}"/>` +
        "</g>"
      );
  }
}

/** A prop: a rounded case with a lid and a handle, 100 × 100. */
const prop = (p: Palette) =>
  `<rect x="36" y="14" width="28" height="14" rx="5" fill="none" stroke="${p.shade}" stroke-width="5"/>` +
  `<rect x="14" y="26" width="72" height="62" rx="8" fill="${p.figure}"/>` +
  `<rect x="14" y="26" width="72" height="14" rx="6" fill="${p.shade}"/>` +
  `<rect x="44" y="44" width="12" height="10" rx="2" fill="${p.contrast}"/>`;

/** A vehicle side-on, 100 × 60. */
const vehicle = (p: Palette) =>
  `<path d="M4,40 L10,26 L30,24 L42,10 L70,10 L82,24 L96,28 L96,44 L4,44 Z" fill="${p.figure}"/>` +
  `<path d="M45,14 L55,14 L55,24 L36,24 Z M59,14 L68,14 L77,24 L59,24 Z" fill="${p.panel}"/>` +
  `<circle cx="24" cy="46" r="10" fill="${p.shade}"/><circle cx="24" cy="46" r="4" fill="${p.panel}"/>` +
  `<circle cx="76" cy="46" r="10" fill="${p.shade}"/><circle cx="76" cy="46" r="4" fill="${p.panel}"/>` +
  `<rect x="90" y="30" width="6" height="5" fill="${p.contrast}"/>`;

/** A landscape filling a `w` × `h` box: sky, sun, two ranges of hills, ground. */
function landscape(w: number, h: number, p: Palette): string {
  const y = (f: number) => Math.round(h * f);
  return (
    `<rect x="0" y="0" width="${w}" height="${h}" fill="${p.panel}"/>` +
    `<circle cx="${Math.round(w * 0.72)}" cy="${y(0.3)}" r="${Math.round(Math.min(w, h) * 0.1)}" fill="${p.contrast}"/>` +
    `<path d="M0,${y(0.62)} Q${w * 0.2},${y(0.4)} ${w * 0.42},${y(0.58)} T${w},${y(0.5)} L${w},${h} L0,${h} Z" fill="${p.shade}"/>` +
    `<path d="M0,${y(0.78)} Q${w * 0.35},${y(0.62)} ${w * 0.6},${y(0.76)} T${w},${y(0.7)} L${w},${h} L0,${h} Z" fill="${p.figure}"/>`
  );
}

/** A framed shot (`w` × `h`): the frame, its thirds, and a figure on the left third. */
function framed(w: number, h: number, p: Palette): string {
  const t = Math.max(2, Math.round(Math.min(w, h) / 80));
  const thirds = [1, 2]
    .map(
      (i) =>
        `<line x1="${(w * i) / 3}" y1="0" x2="${(w * i) / 3}" y2="${h}" stroke="${p.accent}" stroke-opacity="0.35" stroke-width="${t / 2}"/>` +
        `<line x1="0" y1="${(h * i) / 3}" x2="${w}" y2="${(h * i) / 3}" stroke="${p.accent}" stroke-opacity="0.35" stroke-width="${t / 2}"/>`,
    )
    .join("");
  const fh = h * 0.8;
  const scale = fh / 200;
  return (
    landscape(w, h, p) +
    thirds +
    `<g transform="translate(${w / 3 - 50 * scale},${h - fh}) scale(${scale})">${figure("01_threequarter", p)}</g>` +
    `<rect x="${t / 2}" y="${t / 2}" width="${w - t}" height="${h - t}" fill="none" stroke="${p.accent}" stroke-width="${t}"/>`
  );
}

/** Place a drawing of `bw` × `bh` units centred in a `w` × `h` box at most `fill` of its size. */
function placed(inner: string, bw: number, bh: number, w: number, h: number, fill = 0.86): string {
  const scale = Math.min((w * fill) / bw, (h * fill) / bh);
  const x = (w - bw * scale) / 2;
  const y = (h - bh * scale) / 2 + (h * (1 - fill)) / 4;
  return `<g transform="translate(${r2(x)},${r2(y)}) scale(${r2(scale)})">${inner}</g>`;
}

/** The drawing of a reference in a `w` × `h` panel. */
export function drawing(ref: JobRef, w: number, h: number, p: Palette): string {
  const ground = `<ellipse cx="${w / 2}" cy="${h * 0.92}" rx="${w * 0.28}" ry="${h * 0.025}" fill="#000000" fill-opacity="0.28"/>`;
  if (ref.kind === "location" || ref.view === "plate" || ref.view === "pano") return landscape(w, h, p);
  if (ref.kind === "keyframe") return framed(w, h, p);
  if (ref.kind === "vehicle") return ground + placed(vehicle(p), 100, 60, w, h, 0.8);
  if (ref.kind === "prop") return ground + placed(prop(p), 100, 100, w, h, 0.7);
  if (ref.view === "sheet") {
    // The four views side by side, as the stitched sheet lays them out.
    const cell = w / 4;
    return ["01_threequarter", "02_side", "03_back", "04_face"]
      .map(
        (v, i) =>
          `<g transform="translate(${r2(i * cell)},0)">${placed(figure(v, p), 100, 200, cell, h)}</g>`,
      )
      .join("");
  }
  if (ref.kind === "voice") return placed(figure("04_face", p), 100, 200, w, h);
  // Head and shoulders fill the panel to its foot: no floor under them.
  if (ref.view === "04_face") return placed(figure("04_face", p), 100, 200, w, h);
  return ground + placed(figure(ref.view ?? "01_threequarter", p), 100, 200, w, h);
}

// ------------------------------------------------------------------------------------------------ the card

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
const r2 = (n: number) => Math.round(n * 100) / 100;

export interface RefCardText {
  /** The line under the swatches: `card · seed 123`. */
  footer: string;
}

/**
 * The whole card as SVG: the drawing on its panel (left on a wide or square card, on top of a tall one or of a
 * plate or sheet, which need the width), the text beside or under it. `text` null draws no words (no usable font).
 */
export function refCardSvg(width: number, height: number, ref: JobRef, text: RefCardText | null): string {
  const p = refPalette(ref.look, ref.id);
  const short = Math.min(width, height);
  const pad = Math.max(6, Math.round(short * 0.05));
  const wideDrawing =
    ref.kind === "location" || ref.kind === "keyframe" || ref.view === "sheet" || ref.view === "pano";
  const side = !wideDrawing && width >= height * 0.9;
  const panel = side
    ? { x: pad, y: pad, w: Math.round((width - 3 * pad) * 0.46), h: height - 2 * pad }
    : { x: pad, y: pad, w: width - 2 * pad, h: Math.round((height - 3 * pad) * (wideDrawing ? 0.6 : 0.55)) };
  const textBox = side
    ? { x: panel.x + panel.w + pad, y: pad, w: width - panel.w - 3 * pad, h: height - 2 * pad }
    : { x: pad, y: panel.y + panel.h + pad, w: width - 2 * pad, h: height - panel.h - 3 * pad };
  let svg =
    `<rect x="0" y="0" width="${width}" height="${height}" fill="${p.bg}"/>` +
    `<svg x="${panel.x}" y="${panel.y}" width="${panel.w}" height="${panel.h}" viewBox="0 0 ${panel.w} ${panel.h}">` +
    `<rect x="0" y="0" width="${panel.w}" height="${panel.h}" rx="${Math.round(pad / 2)}" fill="${p.panel}"/>` +
    drawing(ref, panel.w, panel.h, p) +
    "</svg>";
  // The palette's swatches along the bottom of the text, so the card shows the colours it was drawn with.
  const sw = clamp(Math.round(short / 22), 6, 48);
  const swY = textBox.y + textBox.h - sw;
  const swatches = [p.bg, p.panel, p.shade, p.figure, p.accent, p.contrast];
  svg += swatches
    .map(
      (c, i) =>
        `<rect x="${textBox.x + i * Math.round(sw * 1.25)}" y="${swY}" width="${sw}" height="${sw}" rx="${Math.round(sw / 5)}" fill="${c}" stroke="#ffffff" stroke-opacity="0.25"/>`,
    )
    .join("");
  if (text) svg += cardWords(ref, text, textBox, swY, p, short);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${svg}</svg>`;
}

function cardWords(
  ref: JobRef,
  text: RefCardText,
  box: { x: number; y: number; w: number; h: number },
  bottom: number,
  p: Palette,
  short: number,
): string {
  const labelFs = clamp(Math.round(short / 34), 7, 30);
  const nameFs = clamp(Math.round(short / 13), 10, 96);
  const bodyFs = clamp(Math.round(short / 30), 7, 36);
  const footFs = clamp(Math.round(short / 40), 6, 24);
  let out = "";
  let y = box.y + labelFs;
  const kindLine = wrapText(
    [ref.kind, viewLabel(ref.view)].filter(Boolean).join(" · ").toUpperCase(),
    labelFs,
    box.w,
    2,
  );
  const labelLh = Math.round(labelFs * 1.25);
  out += svgLines(kindLine, {
    x: box.x,
    y,
    fontSize: labelFs,
    lineHeight: labelLh,
    fill: p.accent,
    weight: "bold",
  });
  y += (kindLine.length - 1) * labelLh + Math.round(nameFs * 1.25);
  const name = wrapText(ref.name, nameFs, box.w, 2);
  out += svgLines(name, {
    x: box.x,
    y,
    fontSize: nameFs,
    lineHeight: Math.round(nameFs * 1.15),
    fill: "#ffffff",
    weight: "bold",
  });
  y += (name.length - 1) * Math.round(nameFs * 1.15) + Math.round(bodyFs * 1.8);
  // Under the description: the look (two lines at most), the footer, the swatches.
  const footY = bottom - Math.round(footFs * 0.8);
  const lookLh = Math.round(footFs * 1.3);
  const look = ref.look.trim() ? wrapText(`Look: ${ref.look.trim()}`, footFs, box.w, 2) : [];
  const lookTop = footY - footFs * 1.6 - look.length * lookLh;
  const bodyLh = Math.round(bodyFs * 1.35);
  const room = Math.floor((lookTop - y) / bodyLh) + 1;
  if (room > 0 && ref.description.trim()) {
    out += svgLines(wrapText(ref.description, bodyFs, box.w, room), {
      x: box.x,
      y,
      fontSize: bodyFs,
      lineHeight: bodyLh,
      fill: "#eeeeee",
    });
  }
  if (look.length && lookTop > y - bodyFs)
    out += svgLines(look, {
      x: box.x,
      y: lookTop + lookLh,
      fontSize: footFs,
      lineHeight: lookLh,
      fill: "#c8c8c8",
    });
  out += svgLines([text.footer], {
    x: box.x,
    y: footY,
    fontSize: footFs,
    lineHeight: footFs,
    fill: "#a8a8a8",
  });
  return out;
}
