// What the two recognisers share: the speech wav they hear (16 kHz mono 16-bit, made by ffmpeg in a temp folder that
// is removed after), how a run is started and its word lines read, how long one may run, and the failure that
// carries the recogniser's own log.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Services } from "../context.ts";
import { runFfmpegInto } from "../media/ffmpeg.ts";
import { ToolCanceled, ToolRunError } from "../media/tool-runner.ts";
import type { WithCaches } from "../store/caches.ts";
import { ALIGN_RUNNER } from "./ready.ts";
import type { Word } from "./words-cache.ts";

/** A recogniser still running after an hour is killed. */
export const ALIGN_TIMEOUT_MS = 3600_000;

export interface EngineOptions {
  signal?: AbortSignal;
  /** Milliseconds before the recogniser is killed (default an hour). */
  timeoutMs?: number;
  /** The recording's length in seconds, for progress. */
  duration: number;
  /** Fraction (0..1) of the recording heard so far. */
  progress?(fraction: number): void;
}

/** The recogniser failed: `message` is its last error line, `log` the end of what it wrote. */
export class AlignerFailed extends Error {
  override name = "AlignerFailed";
  readonly log: string;
  constructor(message: string, log: string) {
    super(message);
    this.log = log;
  }
}

/** The line that says why: the last `!!` line, else the last error line, else the last line of the log. */
export function failureLine(log: string, fallback: string): string {
  const lines = log
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const marked = lines.filter((l) => l.startsWith("!!"));
  if (marked.length) return marked[marked.length - 1].replace(/^!!\s*/, "");
  const errors = lines.filter((l) => /^(ERROR|FATAL|Traceback|\w*Error\b)/.test(l));
  return errors.at(-1) ?? lines.at(-1) ?? fallback;
}

/** A failed run of `program` as an AlignerFailed (a cancel stays a cancel). */
export function asAlignerFailure(err: unknown, program: string): unknown {
  if (err instanceof ToolCanceled) return err;
  if (err instanceof ToolRunError) {
    const log = err.stderr;
    const why = /ran out of time|did not start/.test(err.message)
      ? err.message
      : failureLine(log, err.message);
    return new AlignerFailed(`${path.basename(program)}: ${why}`, log || err.message);
  }
  return err;
}

/**
 * Run a recogniser: each stdout line that `wordLine` reads as a word is kept and moves the progress on; the words
 * in time order and its stderr (the log) come back; a failure is an AlignerFailed, a cancel stays a cancel.
 */
export async function runRecogniser(
  services: WithCaches,
  program: string,
  args: string[],
  wordLine: (line: string) => Word | null,
  opts: EngineOptions,
): Promise<{ words: Word[]; log: string }> {
  const words: Word[] = [];
  try {
    const result = await services.caches.of(ALIGN_RUNNER).run(program, args, {
      signal: opts.signal,
      timeout: opts.timeoutMs ?? ALIGN_TIMEOUT_MS,
      onStdoutLine(line) {
        const word = wordLine(line);
        if (!word) return;
        words.push(word);
        if (opts.duration > 0) opts.progress?.(Math.min(1, word.end / opts.duration));
      },
    });
    return { words: words.sort((x, y) => x.start - y.start), log: result.stderr };
  } catch (err) {
    throw asAlignerFailure(err, program);
  }
}

/** Run `use` with the recording as a 16 kHz mono 16-bit wav in a fresh temp folder, removed afterwards. */
export async function withSpeechWav<T>(
  services: Pick<Services, "media">,
  recording: string,
  signal: AbortSignal | undefined,
  use: (wav: string, dir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-align-"));
  try {
    const wav = path.join(dir, "speech.wav");
    await runFfmpegInto(
      wav,
      ["-i", recording, "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", wav],
      { media: services.media, signal, seconds: 0 },
    );
    return await use(wav, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
