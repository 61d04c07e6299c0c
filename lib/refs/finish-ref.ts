// Closing a reference candidate from the engine's outputs: the picture made a PNG (or the sound a WAV) in the job's
// work folder, renamed to `<stem>.png|.wav` beside the sidecar, and the sidecar closed `ok` with what the saver
// records (finished, image|audio, width, height, save_notes) — all under the ref home's lock, so a cancel or a sweep
// that closed the candidate meanwhile wins and the file is not placed.
import path from "node:path";
import type { Services } from "../context.ts";
import type { EngineOutputs } from "../engines/types.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { fileInside, renameShow } from "../paths/guarded.ts";
import { localIso } from "../render/time.ts";
import type { JsonObject } from "../store/json-guards.ts";
import { takesDir, takesFence } from "./place.ts";
import { type RefTakeRef, readRefSidecar, refStem, writeRefSidecarLocked } from "./queue-ref.ts";
import type { RefPayload } from "./ref-payload.ts";
import { withRefsLock } from "./takes.ts";

export interface FinishRef {
  services: Pick<Services, "caches" | "locks" | "now" | "media">;
  t: RefTakeRef;
  payload: RefPayload;
  outputs: EngineOutputs;
  /** Notes of the preparation and the run (graph patching, skipped inputs). */
  notes: string[];
  /** The model the engine says it ran on, when it says. */
  model: string | null;
  /** The engine's id of the run, recorded with the close. */
  backendPromptId: string;
  workDir: string;
  signal: AbortSignal;
}

/** The picture as a PNG in the work folder, with its size. */
async function pngOf(fence: ReturnType<typeof takesFence>, file: string, workDir: string, stem: string) {
  const { default: sharp } = await import("sharp");
  const real = await fileInside(fence, file);
  if (!real) throw new Error("the engine delivered no picture in the job's work folder");
  const meta = await sharp(real).metadata();
  if (!meta.width || !meta.height)
    throw new Error(`the engine's picture ${path.basename(real)} is not readable`);
  if (path.extname(real).toLowerCase() === ".png")
    return { file: real, width: meta.width, height: meta.height };
  const png = path.join(workDir, `${stem}.png`);
  await sharp(real).png().toFile(png);
  return { file: png, width: meta.width, height: meta.height };
}

/** The sound as a WAV in the work folder. */
async function wavOf(f: FinishRef, fence: ReturnType<typeof takesFence>, file: string, stem: string) {
  const real = await fileInside(fence, file);
  if (!real) throw new Error("the engine delivered no sound in the job's work folder");
  if (path.extname(real).toLowerCase() === ".wav") return real;
  const wav = path.join(f.workDir, `${stem}.wav`);
  await runFfmpeg(["-i", real, "-map", "0:a:0", "-c:a", "pcm_s16le", "-f", "wav", wav], {
    media: f.services.media,
    signal: f.signal,
  });
  return wav;
}

/** Place the candidate's file and close its sidecar `ok`; null when it was closed meanwhile (nothing placed). */
export async function finishRefTake(f: FinishRef): Promise<JsonObject | null> {
  const { t, payload: p, outputs } = f;
  const fence = takesFence(t.place, t.ref);
  const stem = refStem(t);
  const notes = [...f.notes, ...outputs.notes].filter((n) => n.trim() !== "");
  let made: { file: string; ext: string; fields: JsonObject };
  if (p.kind === "image") {
    if (!outputs.image) throw new Error("the engine delivered no picture");
    const png = await pngOf(fence, outputs.image, f.workDir, stem);
    made = { file: png.file, ext: "png", fields: { width: png.width, height: png.height } };
  } else {
    if (!outputs.audio) throw new Error("the engine delivered no sound");
    made = { file: await wavOf(f, fence, outputs.audio, stem), ext: "wav", fields: {} };
  }
  const name = `${stem}.${made.ext}`;
  const key = p.kind === "image" ? "image" : "audio";
  return withRefsLock(f.services, t.place, t.ref, async () => {
    // Closed meanwhile (a cancel, a sweep): nothing is placed. Those writers take this lock too.
    const now = await readRefSidecar(t);
    if (now?.status !== "queued" || now.unreadable === true) return null;
    // The file first: a sidecar saying ok always has its file beside it.
    await renameShow(fence, made.file, path.join(takesDir(t.place, t.ref), name));
    // The sidecar just read under this lock is the one closed: nobody else can have written it since.
    return writeRefSidecarLocked(f.services, t, {
      ...now,
      status: "ok",
      finished: localIso(f.services.now()),
      backend_prompt_id: f.backendPromptId,
      [key]: name,
      ...made.fields,
      ...(f.model ? { model: f.model } : {}),
      save_notes: notes,
    });
  });
}
