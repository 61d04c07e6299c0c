// The transcription cache beside a recording (`<recording>.words.json`): the recogniser's words with their times,
// reused while the recording is the one they were heard from, so a second alignment skips the slow part.
import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { writeJsonAtomic } from "../store/atomic.ts";

export const WORDS_CACHE_VERSION = 1;

export const wordSchema = z.object({
  w: z.string(),
  start: z.number().finite().nonnegative(),
  end: z.number().finite().nonnegative(),
});

export type Word = z.infer<typeof wordSchema>;

export const alignEngines = ["faster-whisper", "pocketsphinx"] as const;
export type AlignEngine = (typeof alignEngines)[number];

export const wordsCacheSchema = z.object({
  version: z.literal(WORDS_CACHE_VERSION),
  engine: z.enum(alignEngines),
  model: z.string(),
  recording: z.object({ size: z.number().int().nonnegative(), mtime_ms: z.number().finite() }),
  // PocketSphinx hears only what its grammar allows, so its words are valid for one script's grammar only.
  grammar_hash: z.string().nullable(),
  words: z.array(wordSchema),
});

export type WordsCache = z.infer<typeof wordsCacheSchema>;

/** Where a recording's words are kept: beside it, its full name plus `.words.json`. */
export function wordsCachePath(absRecording: string): string {
  return `${absRecording}.words.json`;
}

/** The recording's identity as the cache records it. */
export async function recordingFacts(absRecording: string): Promise<WordsCache["recording"]> {
  const st = await stat(absRecording);
  return { size: st.size, mtime_ms: Math.round(st.mtimeMs) };
}

/**
 * The cached words of a recording, or null when there is none, it cannot be read or parsed, or it is older than
 * the recording (another size or modification time than the one it was made from, or written before the
 * recording last changed).
 */
export async function readWordsCache(absRecording: string): Promise<WordsCache | null> {
  const file = wordsCachePath(absRecording);
  try {
    const [rec, cacheStat, text] = await Promise.all([
      stat(absRecording),
      stat(file),
      readFile(file, "utf8"),
    ]);
    const parsed = wordsCacheSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return null;
    const cache = parsed.data;
    if (cache.recording.size !== rec.size) return null;
    if (Math.abs(cache.recording.mtime_ms - rec.mtimeMs) >= 1) return null;
    if (cacheStat.mtimeMs < rec.mtimeMs) return null;
    return cache;
  } catch {
    return null;
  }
}

/** Keep a recording's words beside it (atomic: a reader sees the old cache or the new one). */
export async function writeWordsCache(
  absRecording: string,
  entry: { engine: AlignEngine; model: string; grammar_hash: string | null; words: Word[] },
): Promise<WordsCache> {
  const cache: WordsCache = {
    version: WORDS_CACHE_VERSION,
    engine: entry.engine,
    model: entry.model,
    recording: await recordingFacts(absRecording),
    grammar_hash: entry.grammar_hash,
    words: entry.words,
  };
  await writeJsonAtomic(wordsCachePath(absRecording), cache);
  return cache;
}
