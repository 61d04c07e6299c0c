// One alignment run, as the `align` job does it: the recording's words (from the cache beside it when fresh, else
// heard by the engine in force), the script's dialogue lines matched to them, each shot's window (snapped to the
// silences of the recording's envelope), then — unless a dry run — the windows written into the script through the
// save path (against the hash read at the start), the series track set when another was asked, align_report.md,
// a rebuild and `studio.episode`. Progress goes out as `studio.align` events at 10, 65, 90 and 100 %.
import { createHash } from "node:crypto";
import path from "node:path";
import { readPeaks } from "../audio/peaks.ts";
import { setSeriesTrack, type TrackFacts, trackFacts } from "../audio/track.ts";
import type { Services } from "../context.ts";
import type { BuildAnswer } from "../episode/run-build.ts";
import { readSourceFile, rebuildEpisode, saveSourceFile } from "../episode/source-file.ts";
import { StudioError } from "../errors.ts";
import { probeClipCached } from "../media/probe-cache.ts";
import { episodeFence, writeShowFile } from "../paths/guarded.ts";
import { loadSeries } from "../series/load.ts";
import { errorMessage } from "../store/json-guards.ts";
import { AlignerFailed, withSpeechWav } from "./engine-run.ts";
import { jsgfGrammar } from "./grammar.ts";
import type { Change, MatchResult } from "./match.ts";
import type { AlignPayload } from "./payload.ts";
import { sphinxDictionary, sphinxWords } from "./pocketsphinx.ts";
import { type AlignProgram, alignReadiness, SPHINX_MODEL, WHISPER_MODELS } from "./ready.ts";
import { alignReport } from "./report.ts";
import { dialogueLines, type ScriptLine } from "./script-lines.ts";
import { type AudioWindow, audioWindowOf, setAudioWindows } from "./script-windows.ts";
import { whisperWords } from "./whisper.ts";
import { readWordsCache, type Word, type WordsCache, writeWordsCache } from "./words-cache.ts";

export const REPORT_FILE = "align_report.md";

export type AlignStage = "transcribe" | "match" | "write";

export interface AlignAnswer {
  ok: true;
  dry_run: boolean;
  report: string;
  report_path: string | null;
  changes: Change[];
  notes: string[];
  recording: string;
  duration: number | null;
  words: number;
  script_hash: string;
  series_hash: string | null;
  track: TrackFacts | null;
  build: BuildAnswer | null;
  log: string;
}

export interface AlignRunContext {
  signal: AbortSignal;
  /** A page event (`studio.align`, `studio.episode`). */
  emit(kind: string, data: unknown): void;
  /** The job's progress (0..1) and step. */
  progress(fraction: number, step: string): void;
}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** The words of the recording and where they came from. */
interface Heard {
  words: Word[];
  engine: string;
  model: string;
  log: string;
  /** The cache to write after a real run (null: the words came from the cache). */
  fresh: { engine: WordsCache["engine"]; model: string; grammar_hash: string | null } | null;
}

/** Whether cached words answer this run: the model asked (if any) and, for PocketSphinx, this script's grammar. */
function cacheServes(cache: WordsCache, model: string | null, grammarHash: string | null): boolean {
  if (model !== null && cache.engine === "faster-whisper" && cache.model !== model) return false;
  if (cache.engine === "pocketsphinx" && grammarHash !== null && cache.grammar_hash !== grammarHash)
    return false;
  return true;
}

async function hear(
  services: Services,
  p: AlignPayload,
  lines: ScriptLine[],
  program: AlignProgram | null,
  duration: number | null,
  run: AlignRunContext,
): Promise<Heard> {
  const cache = await readWordsCache(p.recording);
  let grammar: { text: string; hash: string; dropped: string[] } | null = null;
  if (program?.engine === "pocketsphinx") {
    const g = jsgfGrammar(lines, await sphinxDictionary(services, program.dict));
    grammar = { text: g.grammar, hash: sha1(g.grammar), dropped: g.dropped };
  }
  // Cached words serve when they fit this run, and always when no engine could hear them again.
  if (cache && (program === null || cacheServes(cache, p.model, grammar?.hash ?? null)))
    return {
      words: cache.words,
      engine: cache.engine,
      model: cache.model,
      log: `words from ${path.basename(p.recording)}.words.json (${cache.engine}, ${cache.model})`,
      fresh: null,
    };
  if (program === null) throw new StudioError(409, "no aligner: install faster-whisper or PocketSphinx");
  const opts = {
    signal: run.signal,
    duration: duration ?? 0,
    progress: (f: number) => run.progress(0.1 + 0.55 * f, "transcribing"),
  };
  if (program.engine === "pocketsphinx") {
    if (!grammar || grammar.text === "")
      throw new StudioError(
        409,
        lines.length === 0
          ? "the script has no dialogue lines to align"
          : "none of the dialogue's words are in PocketSphinx's dictionary",
      );
    const g = grammar;
    const out = await withSpeechWav(services, p.recording, run.signal, (wav, dir) =>
      sphinxWords(services, program, wav, g.text, dir, opts),
    );
    const log = g.dropped.length
      ? `${out.log}\nnot in the dictionary (not heard): ${g.dropped.join(", ")}`
      : out.log;
    return {
      words: out.words,
      engine: "pocketsphinx",
      model: SPHINX_MODEL,
      log,
      fresh: { engine: "pocketsphinx", model: SPHINX_MODEL, grammar_hash: g.hash },
    };
  }
  const model = p.model ?? cache?.model ?? WHISPER_MODELS.default;
  const out = await withSpeechWav(services, p.recording, run.signal, (wav) =>
    whisperWords(services, program.program, program.library, model, wav, opts),
  );
  return {
    words: out.words,
    engine: "faster-whisper",
    model,
    log: out.log,
    fresh: { engine: "faster-whisper", model, grammar_hash: null },
  };
}

/** Run one alignment; throws StudioError (refusals), AlignerFailed (the recogniser failed) or a cancel. */
export async function runAlign(
  services: Services,
  p: AlignPayload,
  run: AlignRunContext,
): Promise<AlignAnswer> {
  const { ep } = p;
  const stage = (name: AlignStage, pct: 10 | 65 | 90 | 100, text: string) => {
    run.emit("studio.align", { ep, stage: name, pct, text });
    run.progress(pct / 100, text);
  };
  const script = await readSourceFile(ep, "script");
  const seriesFile = await readSourceFile(ep, "series");
  let lines: ScriptLine[];
  try {
    lines = dialogueLines(script.text, loadSeries(seriesFile.text));
  } catch (err) {
    throw new StudioError(409, `the script cannot be read for alignment: ${errorMessage(err)}`);
  }
  const [{ program }, probe] = await Promise.all([
    alignReadiness(services),
    probeClipCached(services, p.recording).catch(() => null),
  ]);
  const duration = probe?.duration ?? null;

  stage("transcribe", 10, `transcribing ${p.recording_rel}`);
  const heard = await hear(services, p, lines, program, duration, run);
  if (heard.fresh && !p.dry_run) await writeWordsCache(p.recording, { ...heard.fresh, words: heard.words });

  stage("match", 65, `matching ${lines.length} dialogue lines to ${heard.words.length} words`);
  let envelope: { rate: number; peaks: Uint8Array } | undefined;
  const notes: string[] = [];
  if (p.snap) {
    try {
      const peaks = await readPeaks(services, ep, p.recording, run.signal);
      envelope = { rate: peaks.rate, peaks: peaks.peaks };
    } catch (err) {
      if (run.signal.aborted) throw err;
      notes.push(`windows not snapped to silences: the waveform could not be read (${errorMessage(err)})`);
    }
  }
  let matched: MatchResult;
  try {
    matched = await services.compile.run("matchWindows", {
      lines,
      words: heard.words,
      snap: p.snap,
      envelope,
    });
  } catch (err) {
    // Too many words to match in one go is the one way it fails: a long recording to align in parts.
    throw new StudioError(409, `the recording cannot be matched to the script: ${errorMessage(err)}`);
  }
  const { matches, changes } = matched;
  notes.push(...matched.notes);
  const before: Record<string, AudioWindow | null> = {};
  for (const c of changes) before[c.shot] = audioWindowOf(script.text, c.shot);
  const report = alignReport({
    recording: p.recording_rel,
    duration,
    engine: heard.engine,
    model: heard.model,
    words: heard.words.length,
    matches,
    changes,
    notes,
    dryRun: p.dry_run,
    before,
  });

  stage(
    "write",
    90,
    p.dry_run ? "checking the windows" : `writing ${changes.length} windows into the script`,
  );
  if (p.dry_run) {
    stage("write", 100, "dry run — nothing written");
    return {
      ok: true,
      dry_run: true,
      report,
      report_path: null,
      changes,
      notes,
      recording: p.recording_rel,
      duration,
      words: heard.words.length,
      script_hash: script.hash,
      series_hash: null,
      track: await trackFacts(services, ep, p.pass),
      build: null,
      log: heard.log,
    };
  }

  const edited = setAudioWindows(script.text, changes);
  // Saved against the hash read at the start: a script edited meanwhile is refused (409), never overwritten.
  const saved = await saveSourceFile(services, ep, "script", edited.text, script.hash);
  let seriesHash = seriesFile.hash;
  if (p.set_track) seriesHash = (await setSeriesTrack(services, ep, p.recording_rel)).hash;
  await writeShowFile(episodeFence(ep), path.join(ep, REPORT_FILE), report);
  const { build, emitted } = await rebuildEpisode(services, ep);
  if (!emitted) run.emit("studio.episode", { ep });
  stage("write", 100, `${edited.changed.length} of ${changes.length} windows changed in the script`);
  return {
    ok: true,
    dry_run: false,
    report,
    report_path: REPORT_FILE,
    changes,
    notes,
    recording: p.recording_rel,
    duration,
    words: heard.words.length,
    script_hash: saved.hash,
    series_hash: seriesHash,
    track: await trackFacts(services, ep, p.pass),
    build,
    log: heard.log,
  };
}

/** A failed run as the route answers it: the status, the message, the recogniser's log. */
export function alignFailure(err: unknown): {
  status: number;
  error: string;
  log: string;
  extra?: Record<string, unknown>;
} {
  if (err instanceof AlignerFailed) return { status: 500, error: err.message, log: err.log };
  if (err instanceof StudioError) {
    const { error: _e, ...extra } = err.body();
    return { status: err.status, error: err.message, log: "", extra };
  }
  return { status: 500, error: `alignment failed: ${errorMessage(err)}`, log: "" };
}
