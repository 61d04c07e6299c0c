// Text for the built-in engine's pictures: SVG rendered by sharp (librsvg), so captions need no ffmpeg drawtext.

/** Fonts named in every SVG; the generic family lets fontconfig pick any installed sans face. */
export const FONT_FAMILY = "'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif";

/** Shown in notes when no font can draw text. */
export const NO_FONT_NOTE = "no font could draw text here (install fonts-dejavu-core): captions skipped";

// Control characters other than tab and newline are not allowed in XML 1.0 at all.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(XML_INVALID, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

// Rough advance widths of DejaVu Sans in em, enough to wrap and size a box without measuring.
function charEm(ch: string): number {
  if (ch === " ") return 0.32;
  if ("iljI.,;:'!|`()[]{}".includes(ch)) return 0.34;
  if ("mwMW@%".includes(ch)) return 0.98;
  if (ch >= "A" && ch <= "Z") return 0.74;
  if (ch >= "0" && ch <= "9") return 0.64;
  // CJK and other wide scripts take a full em.
  if (ch.codePointAt(0)! >= 0x2e80) return 1;
  return 0.62;
}

/** Estimated width of `text` at `fontSize` px. */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) em += charEm(ch);
  return em * fontSize;
}

/**
 * Word-wrap `text` to lines no wider than `maxWidth` px at `fontSize` (explicit newlines kept, over-long words
 * broken); more than `maxLines` lines end with an ellipsis.
 */
export function wrapText(text: string, fontSize: number, maxWidth: number, maxLines: number): string[] {
  const lines: string[] = [];
  const fits = (s: string) => textWidth(s, fontSize) <= maxWidth;
  for (const paragraph of text.replace(/\r\n?/g, "\n").split("\n")) {
    const words = paragraph.split(/[ \t]+/).filter(Boolean);
    let line = "";
    for (let word of words) {
      const joined = line ? `${line} ${word}` : word;
      if (fits(joined)) {
        line = joined;
        continue;
      }
      if (line) lines.push(line);
      line = "";
      // A word wider than the line is cut where it stops fitting.
      while (!fits(word)) {
        let cut = 1;
        const chars = [...word];
        while (cut < chars.length && fits(chars.slice(0, cut + 1).join(""))) cut++;
        lines.push(chars.slice(0, cut).join(""));
        word = chars.slice(cut).join("");
      }
      line = word;
    }
    if (line) lines.push(line);
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  let last = kept[kept.length - 1];
  while (last && !fits(`${last}…`)) last = [...last].slice(0, -1).join("");
  kept[kept.length - 1] = `${last.trimEnd()}…`;
  return kept;
}

/** SVG `<text>` with one `<tspan>` per line; `x` is the anchor (start or middle), `y` the first baseline. */
export function svgLines(
  lines: readonly string[],
  opts: {
    x: number;
    y: number;
    fontSize: number;
    lineHeight: number;
    fill: string;
    anchor?: "start" | "middle";
    weight?: "bold" | "normal";
    italic?: boolean;
  },
): string {
  const spans = lines
    .map(
      (line, i) =>
        `<tspan x="${opts.x}" y="${round(opts.y + i * opts.lineHeight)}">${escapeXml(line)}</tspan>`,
    )
    .join("");
  return (
    `<text font-family="${FONT_FAMILY}" font-size="${opts.fontSize}" font-weight="${opts.weight ?? "normal"}" ` +
    (opts.italic ? `font-style="italic" ` : "") +
    `fill="${opts.fill}" text-anchor="${opts.anchor ?? "start"}">${spans}</text>`
  );
}

export interface TextBox {
  png: Buffer;
  width: number;
  height: number;
}

/**
 * A caption box: light text on a translucent dark rounded rectangle, as a transparent PNG sized to the text
 * (no wider than `maxWidth`); `italic` sets the text in italics, softer (the animatic's action lines).
 */
export async function captionBox(
  text: string,
  opts: {
    fontSize: number;
    maxWidth: number;
    maxLines: number;
    align?: "start" | "middle";
    weight?: "bold" | "normal";
    italic?: boolean;
  },
): Promise<TextBox | null> {
  const { default: sharp } = await import("sharp");
  const pad = Math.max(3, Math.round(opts.fontSize * 0.45));
  const lines = wrapText(text.trim(), opts.fontSize, opts.maxWidth - 2 * pad, opts.maxLines);
  if (lines.length === 0) return null;
  const lineHeight = Math.round(opts.fontSize * 1.25);
  const textW = Math.max(...lines.map((l) => textWidth(l, opts.fontSize)));
  const width = Math.min(opts.maxWidth, Math.ceil(textW + 2 * pad));
  // Ascent ~0.95 em above the first baseline, descent ~0.25 em below the last.
  const height = Math.ceil(2 * pad + 1.2 * opts.fontSize + (lines.length - 1) * lineHeight);
  const middle = opts.align === "middle";
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect x="0" y="0" width="${width}" height="${height}" rx="${Math.round(pad * 0.8)}" fill="#000000" fill-opacity="0.62"/>` +
    svgLines(lines, {
      x: middle ? width / 2 : pad,
      y: pad + opts.fontSize * 0.95,
      fontSize: opts.fontSize,
      lineHeight,
      fill: opts.italic ? "#dfe6f0" : "#ffffff",
      anchor: middle ? "middle" : "start",
      weight: opts.weight,
      italic: opts.italic,
    }) +
    "</svg>";
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, width, height };
}

/** Whether librsvg finds a font that draws glyphs, by rendering a word (the engine asks once and keeps it). */
export async function checkFonts(): Promise<boolean> {
  try {
    const { default: sharp } = await import("sharp");
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="40">` +
      `<text x="4" y="30" font-family="${FONT_FAMILY}" font-size="28" fill="#ffffff">Hg</text></svg>`;
    const stats = await sharp(Buffer.from(svg)).ensureAlpha().extractChannel(3).stats();
    return stats.channels[0].max > 0;
  } catch {
    return false;
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
