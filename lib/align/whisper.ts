// A whisper (faster-whisper, else openai-whisper) in the user's Python as the recogniser: a short script passed with
// `-c` transcribes the speech wav with word timestamps and prints one marked JSON line per word as it goes; a
// failure prints a `!!` line saying why.
import type { WithCaches } from "../store/caches.ts";
import { type EngineOptions, runRecogniser } from "./engine-run.ts";
import type { Word } from "./words-cache.ts";

export type WhisperLibrary = "faster-whisper" | "openai-whisper";

const WORD_MARK = "H3PIPE_WORD ";

// argv: the wav, the model name, the library. Words are printed as soon as each segment is heard (progress).
export const WHISPER_SCRIPT = `
import json, sys
wav, model_name, library = sys.argv[1], sys.argv[2], sys.argv[3]
mark = ${JSON.stringify(WORD_MARK)}
def say(w, start, end):
    print(mark + json.dumps({"w": str(w).strip(), "start": float(start), "end": float(end)}), flush=True)
try:
    english = model_name.endswith(".en")
    if library == "faster-whisper":
        from faster_whisper import WhisperModel
        model = WhisperModel(model_name, device="auto", compute_type="default")
        segments, _info = model.transcribe(wav, word_timestamps=True, language="en" if english else None)
        for seg in segments:
            for w in seg.words or []:
                say(w.word, w.start, w.end)
    else:
        import whisper
        model = whisper.load_model(model_name)
        result = model.transcribe(wav, word_timestamps=True, language="en" if english else None)
        for seg in result.get("segments", []):
            for w in seg.get("words", []):
                say(w["word"], w["start"], w["end"])
except Exception as e:
    print("!! " + type(e).__name__ + ": " + str(e), file=sys.stderr, flush=True)
    sys.exit(1)
`;

/** One marked line as a Word, or null for anything else the interpreter printed. */
export function whisperWordLine(line: string): Word | null {
  if (!line.startsWith(WORD_MARK)) return null;
  try {
    const raw = JSON.parse(line.slice(WORD_MARK.length)) as Record<string, unknown>;
    const { w, start, end } = raw;
    if (typeof w !== "string" || typeof start !== "number" || typeof end !== "number") return null;
    if (!Number.isFinite(start) || !Number.isFinite(end) || start < 0 || end < start) return null;
    const word = w.trim();
    return word === "" ? null : { w: word, start, end };
  } catch {
    return null;
  }
}

/** Transcribe `wav` with `library` in `python` using `model`. */
export async function whisperWords(
  services: WithCaches,
  python: string,
  library: WhisperLibrary,
  model: string,
  wav: string,
  opts: EngineOptions,
): Promise<{ words: Word[]; log: string }> {
  return runRecogniser(services, python, ["-c", WHISPER_SCRIPT, wav, model, library], whisperWordLine, opts);
}
