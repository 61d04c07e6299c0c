// The shot-size vocabulary: aliases, prompt words, family and tightness order (script format 2.10).

export type Canonical = "ecu" | "cu" | "mcu" | "ms" | "cowboy" | "mws" | "fs" | "ws" | "ews";
export type SizeFamily = "close" | "medium" | "wide";

export interface SizeInfo {
  canonical: Canonical;
  /** The framing words a prompt uses. */
  term: string;
  /** How much of a subject the frame holds, when the term alone does not say it. */
  extent: string | null;
  family: SizeFamily;
  /** 0 = tightest (ecu) … 8 = widest (ews). */
  order: number;
  aliases: readonly string[];
}

const row = (
  canonical: Canonical,
  term: string,
  extent: string | null,
  family: SizeFamily,
  aliases: readonly string[],
): Omit<SizeInfo, "order"> => ({ canonical, term, extent, family, aliases });

/** Tightest to widest; the index is the order used for "steps apart". */
export const SIZES: readonly SizeInfo[] = [
  row("ecu", "extreme close-up", "a single detail filling the frame", "close", [
    "ecu",
    "xcu",
    "extremecloseup",
    "extremeclose",
  ]),
  row("cu", "close-up", null, "close", ["cu", "close", "closeup"]),
  row("mcu", "medium close-up", "from the chest up", "close", ["mcu", "mediumcloseup", "mediumclose"]),
  row("ms", "medium shot", null, "medium", ["ms", "medium", "mediumshot", "mid", "midshot"]),
  row("cowboy", "cowboy shot", "from mid-thigh up", "medium", ["cowboy", "cowboyshot", "americanshot"]),
  row("mws", "medium-wide shot", "from the knees up", "medium", [
    "mws",
    "mediumwide",
    "mediumwideshot",
    "mls",
    "mediumlong",
    "mediumlongshot",
  ]),
  row("fs", "full shot", "from head to toe", "wide", ["fs", "full", "fullshot"]),
  row("ws", "wide shot", null, "wide", ["ws", "wide", "wideshot", "ls", "long", "longshot"]),
  row("ews", "extreme wide shot", "small within the vastness of the setting", "wide", [
    "ews",
    "xws",
    "els",
    "xls",
    "extremewide",
    "extremewideshot",
    "extremelong",
    "extremelongshot",
  ]),
].map((r, order) => ({ ...r, order }));

const BY_ALIAS = new Map<string, SizeInfo>(SIZES.flatMap((s) => s.aliases.map((a) => [a, s] as const)));
const NOT_LETTERS = /[^a-z]/g;

/** The size's entry, whatever case, spaces or hyphens it was written with; null when unknown. */
export function sizeInfo(text: string): SizeInfo | null {
  return BY_ALIAS.get(text.toLowerCase().replace(NOT_LETTERS, "")) ?? null;
}

export function canonicalSize(text: string): Canonical | null {
  return sizeInfo(text)?.canonical ?? null;
}

/** Distance of two sizes in the tightness order; null when either is unknown (the jump-cut check skips those). */
export function sizeStepsApart(a: string, b: string): number | null {
  const x = sizeInfo(a);
  const y = sizeInfo(b);
  return x && y ? Math.abs(x.order - y.order) : null;
}

/** `extreme close-up (ecu/xcu), close-up (cu/close), …`: each term with its aliases of at most 6 letters. */
export const SIZE_VOCABULARY = SIZES.map(
  (s) => `${s.term} (${s.aliases.filter((a) => a.length <= 6).join("/")})`,
).join(", ");

export function unknownSizeMessage(text: string): string {
  return `unknown size '${text}': use one of ${SIZE_VOCABULARY}`;
}
