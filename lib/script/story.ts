// Reading the story IR: derived continuation/keyframe rules (script format 4.2) and the shots.json text form.
import { isObject } from "../store/json-guards.ts";
import { pyJson, STORY_FLOAT_KEYS } from "./canonical.ts";
import type { Continuous, Sequence, Shot, Story } from "./types.ts";

export type KeyframeEnd = "first" | "last";

export interface ShotRef {
  shot: Shot;
  sequence: Sequence;
  /** Index of the shot in its sequence (0 = the sequence's first shot, which its header never covers). */
  index: number;
  sequenceIndex: number;
}

/** How the shot continues the previous shot in the cut: its own line, else its header for all but the first shot. */
export function continues(shot: Shot, sequence: Sequence, indexInSequence: number): Continuous | null {
  if (shot.continuous === "none") return null;
  if (shot.continuous !== undefined) return shot.continuous;
  return indexInSequence > 0 && sequence.continuous !== false ? sequence.continuous : null;
}

/** The keyframe method of one end; null means "the target decides" (normally `generate`). */
export function keyframeMethod(
  shot: Shot,
  end: KeyframeEnd,
  sequence: Sequence,
  indexInSequence: number,
): string | null {
  const own = shot[end];
  if (own !== undefined) return own;
  if (end === "first" && continues(shot, sequence, indexInSequence) === "first") return "continuity";
  return sequence[end] ?? null;
}

export function allShots(story: Story): ShotRef[] {
  const out: ShotRef[] = [];
  for (const [sequenceIndex, sequence] of story.sequences.entries()) {
    for (const [index, shot] of sequence.shots.entries()) out.push({ shot, sequence, index, sequenceIndex });
  }
  return out;
}

/** The shot spans the editor shows: `##` line to the last key, dialogue or action line (script format 5.1). */
export function shotSpans(story: Story): { id: string; line: number; end_line: number }[] {
  return allShots(story).map(({ shot }) => ({
    id: shot.id,
    line: shot.source.line,
    end_line: shot.source.end_line,
  }));
}

/** shots.json as the reference writes it: 2-space indent, non-ASCII kept, timing seconds as floats, final newline. */
export function storyToJson(story: Story): string {
  return `${pyJson(story, { indent: 2, floatKeys: STORY_FLOAT_KEYS })}\n`;
}

const STORY_KEYS = ["episode", "title", "series", "sequences"];
const SEQUENCE_KEYS = [
  "id",
  "location",
  "continuous",
  "overrides",
  "source",
  "target",
  "profile",
  "first",
  "last",
  "overlap",
  "legacy",
  "unparsed",
  "shots",
];
const SHOT_KEYS = [
  "id",
  "cast",
  "props",
  "plate",
  "size",
  "camera",
  "action",
  "dialogue",
  "beats",
  "sound",
  "music",
  "extras",
  "text",
  "timing",
  "pace",
  "audio",
  "preserve",
  "seed_key",
  "overrides",
  "source",
  "target",
  "profile",
  "first",
  "last",
  "overlap",
  "legacy",
  "continuous",
  "unparsed",
];

/** The IR key order first, then any keys this version does not know (kept, so nothing is lost on rewrite). */
function ordered(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  for (const k of Object.keys(obj)) if (!keys.includes(k)) out[k] = obj[k];
  return out;
}

function expectObject(v: unknown, what: string): Record<string, unknown> {
  if (!isObject(v)) throw new Error(`shots.json: ${what} is not an object`);
  return v;
}

function expectArray(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`shots.json: ${what} is not a list`);
  return v;
}

function readSequence(v: unknown, i: number): Sequence {
  const seq = expectObject(v, `sequence ${i + 1}`);
  // Older files wrote a continuous header as `true`, which always meant latent.
  const continuous = seq.continuous === true ? "latent" : (seq.continuous ?? false);
  const shots = expectArray(seq.shots, `sequence ${String(seq.id)}'s shots`).map((s, j) =>
    ordered(expectObject(s, `shot ${j + 1} of ${String(seq.id)}`), SHOT_KEYS),
  );
  return ordered({ ...seq, continuous, shots }, SEQUENCE_KEYS) as unknown as Sequence;
}

/** Read a written shots.json back; writing the result again gives the same text. */
export function storyFromJson(text: string): Story {
  const story = expectObject(JSON.parse(text), "the file");
  const sequences = expectArray(story.sequences, "`sequences`").map(readSequence);
  return ordered({ ...story, sequences }, STORY_KEYS) as unknown as Story;
}
