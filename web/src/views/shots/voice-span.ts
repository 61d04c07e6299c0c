// "Use this take's voice", free of the DOM: the voices a shot's take can feed (its own characters' first), the
// span cut by default (the whole take, at most 30 s), the service's span rules checked before asking (0.2–30 s,
// starting inside the take), and the request body.

/** The service cuts voice samples of 0.2 to 30 seconds. */
export const SPAN_MIN = 0.2;
export const SPAN_MAX = 30;

export interface VoiceChoice {
  id: string;
  name: string;
  subject: string | null;
  /** The character is in this shot. */
  inShot: boolean;
}

/** The voice references of `refs`, the shot's own characters first, each group in the listing's order. */
export function voiceChoices(
  refs: readonly { id: string; kind: string; name: string; subject: string | null }[],
  subjects: readonly string[],
): VoiceChoice[] {
  const voices = refs
    .filter((r) => r.kind === "voice")
    .map((r) => ({
      id: r.id,
      name: r.name,
      subject: r.subject,
      inShot: r.subject !== null && subjects.includes(r.subject),
    }));
  return [...voices.filter((v) => v.inShot), ...voices.filter((v) => !v.inShot)];
}

/** A take's length in seconds from its frames and rate, or null when either is unknown. */
export function takeLength(t: { frames: number | null; fps: number | null }): number | null {
  return t.frames && t.fps && t.frames > 0 && t.fps > 0 ? t.frames / t.fps : null;
}

const hundredths = (n: number) => Math.round(n * 100) / 100;

/** The span cut when nothing is chosen: from the start, the whole take or its first 30 s. */
export function defaultSpan(length: number | null): { start: number; end: number } {
  return { start: 0, end: hundredths(length === null ? SPAN_MAX : Math.min(length, SPAN_MAX)) };
}

/** Why the service would refuse the span, in its terms; null when it is fine. */
export function spanProblem(start: number, end: number, length: number | null): string | null {
  if (!Number.isFinite(start) || !Number.isFinite(end)) return "start and end must be numbers";
  if (start < 0) return "the start must be 0 or later";
  if (length !== null && start >= length)
    return `the start must lie inside the take (${length.toFixed(2)} s)`;
  const d = end - start;
  if (d < SPAN_MIN) return `the span must last at least ${SPAN_MIN} s`;
  if (d > SPAN_MAX + 1e-9) return `the span must last at most ${SPAN_MAX} s`;
  return null;
}

export interface VoiceFromTakeBody {
  ep: string;
  ref: string;
  shot: string;
  take: number;
  pass: string;
  start: number;
  end: number;
  pick: boolean | null;
}

/** The request: `pick` null lets the service pick only when the voice has no live sample yet. */
export function voiceFromTakeBody(
  at: { ep: string; shot: string; take: number; pass: string },
  ref: string,
  start: number,
  end: number,
  pick: "auto" | "yes" | "no",
): VoiceFromTakeBody {
  return {
    ...at,
    ref,
    start: hundredths(start),
    end: hundredths(end),
    pick: pick === "auto" ? null : pick === "yes",
  };
}
