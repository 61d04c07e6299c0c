// The built-in engine (backend `builtin`): animatic video, card pictures, espeak-ng voices (or silence) with ffmpeg and
// sharp, behind the same prepare/submit/collect/cancel interface as the ComfyUI engines.
import { randomBytes } from "node:crypto";
import type { MediaTools } from "../../media/tools.ts";
import { episodeFence, fileInside, showFence } from "../../paths/guarded.ts";
import type {
  Engine,
  EngineJob,
  EngineKind,
  EngineOutputs,
  EngineProgress,
  Prepared,
  RunHooks,
  Submitted,
} from "../types.ts";
import { ANIMATIC_MODEL, checkAnimaticJob, renderAnimatic } from "./animatic.ts";
import { renderCard } from "./card.ts";
import { renderSilence } from "./silence.ts";
import { renderSpeech } from "./speech.ts";
import { checkFonts } from "./text.ts";
import { canceled, type WorkContext } from "./work.ts";

export const BUILTIN_BACKEND = "builtin";

/** The target each kind renders on the built-in engine by default. */
export const BUILTIN_TARGETS: Readonly<Record<EngineKind, string>> = {
  video: "animatic",
  image: "card",
  audio: "speech",
};

/** Every target of each kind the built-in engine renders. */
export const BUILTIN_TARGET_IDS: Readonly<Record<EngineKind, readonly string[]>> = {
  video: ["animatic"],
  image: ["card"],
  audio: ["speech", "silence"],
};

/** What a take's sidecar records as `model` for each built-in target. */
export const BUILTIN_MODELS: Readonly<Record<string, string>> = {
  animatic: ANIMATIC_MODEL,
  card: "card",
  speech: "speech",
  silence: "silence",
};

/** The model name of a built-in target (`animatic` → `"animatic"`), null for any other target. */
export function builtinModel(target: string): string | null {
  return Object.hasOwn(BUILTIN_MODELS, target) ? BUILTIN_MODELS[target] : null;
}

export interface BuiltinEngine extends Engine {
  readonly backend: "builtin";
  /** The model the job's take records (`"animatic"` for the animatic). */
  model(job: Pick<EngineJob, "target">): string | null;
}

const STEP = "render";
const FORGET_MS = 10 * 60_000;

interface Run {
  controller: AbortController;
  done: Promise<EngineOutputs>;
  last: EngineProgress | null;
  listener: ((p: EngineProgress) => void) | null;
}

function checkTarget(job: EngineJob): void {
  const ids = BUILTIN_TARGET_IDS[job.kind];
  if (ids === undefined) throw new Error(`the built-in engine has no '${job.kind}' kind`);
  if (!ids.includes(job.target)) {
    throw new Error(
      `target '${job.target}' (${job.kind}) does not run on the built-in engine, which renders ` +
        `animatic (video), card (image), speech and silence (audio)`,
    );
  }
  if (job.kind === "video") checkAnimaticJob(job);
}

/** Abort `controller` when `signal` aborts; returns the unlink. */
function follow(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort();
    return () => {};
  }
  const onAbort = () => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

export function createBuiltinEngine(media: MediaTools): BuiltinEngine {
  const runs = new Map<string, Run>();
  let fonts: Promise<boolean> | undefined;
  const fontsUsable = () => {
    fonts ??= checkFonts();
    return fonts;
  };
  // cancel(job, null) can still find work it submitted (a cancel racing the submit's answer).
  const byJob = new WeakMap<EngineJob, string>();

  function start(job: EngineJob, inputs: Record<string, string>, run: Run): Promise<EngineOutputs> {
    const ctx: WorkContext = {
      media,
      fontsUsable,
      // The job names its episode by the real path it was queued with.
      fence: episodeFence(job.ep),
      signal: run.controller.signal,
      notes: [],
      report(fraction) {
        // Held below 1 (and never going back) until collect has verified the outputs.
        const progress = Math.min(0.99, Math.max(run.last?.progress ?? 0, fraction));
        if (!Number.isFinite(progress)) return;
        const p: EngineProgress = { progress, step: STEP };
        run.last = p;
        try {
          run.listener?.(p);
        } catch {
          // A failing progress listener must not break the render (it runs inside ffmpeg's output handler).
        }
      },
    };
    switch (job.kind) {
      case "video":
        return renderAnimatic(job, inputs, ctx);
      case "image":
        return renderCard(job, ctx);
      case "audio":
        return job.target === "speech" ? renderSpeech(job, ctx) : renderSilence(job, ctx);
    }
  }

  return {
    backend: BUILTIN_BACKEND,

    model: (job) => builtinModel(job.target),

    async prepare(job: EngineJob, hooks: RunHooks): Promise<Prepared> {
      if (hooks.signal.aborted) throw canceled();
      checkTarget(job);
      // Paths are used where they are; a role whose file has gone is dropped with a note, not an error.
      const inputs: Record<string, string> = {};
      const notes: string[] = [];
      await Promise.all(
        Object.entries(job.inputs).map(async ([role, file]) => {
          // Read where it really is, and only when that is inside the show folder.
          const real = await fileInside(showFence(job.ep), file);
          if (real) inputs[role] = real;
          else notes.push(`input ${role} (${file}) is missing or outside the show folder; not used`);
        }),
      );
      notes.sort();
      return { inputs, notes };
    },

    async submit(job: EngineJob, prepared: Prepared, hooks: RunHooks): Promise<Submitted> {
      if (hooks.signal.aborted) throw canceled();
      checkTarget(job);
      const id = `builtin-${randomBytes(8).toString("hex")}`;
      const run: Run = {
        controller: new AbortController(),
        done: Promise.resolve({ notes: [] }),
        last: null,
        listener: null,
      };
      const unlink = follow(hooks.signal, run.controller);
      run.done = start(job, prepared.inputs, run)
        .then((outputs) => {
          // A cancel that lands after ffmpeg ended still ends the job canceled, as the caller asked.
          if (run.controller.signal.aborted) throw canceled();
          return outputs;
        })
        .catch((err: unknown) => {
          // Whatever a canceled render failed with (ffmpeg killed mid-write, a missing temp), it was a cancel.
          if (run.controller.signal.aborted) throw canceled();
          throw err;
        })
        .finally(unlink);
      runs.set(id, run);
      // Work nobody collects (its worker gave up) is forgotten a while after it ends; the catch also keeps its
      // rejection from counting as unhandled until collect or cancel reads it.
      run.done
        .catch(() => {})
        .finally(() => setTimeout(() => runs.get(id) === run && runs.delete(id), FORGET_MS).unref());
      byJob.set(job, id);
      return { backendPromptId: id };
    },

    async collect(_job: EngineJob, submitted: Submitted, hooks: RunHooks): Promise<EngineOutputs> {
      const id = submitted.backendPromptId;
      const run = runs.get(id);
      if (!run) throw new Error(`the built-in engine has no work '${id}' (it ran in another process)`);
      const unlink = follow(hooks.signal, run.controller);
      run.listener = (p) => hooks.onProgress(p);
      if (run.last) hooks.onProgress(run.last);
      try {
        const outputs = await run.done;
        hooks.onProgress({ progress: 1, step: STEP });
        return outputs;
      } finally {
        unlink();
        run.listener = null;
        runs.delete(id);
      }
    },

    async cancel(job: EngineJob, submitted: Submitted | null): Promise<void> {
      const id = submitted?.backendPromptId ?? byJob.get(job);
      const run = id === undefined ? undefined : runs.get(id);
      if (!run) return;
      run.controller.abort();
      // Answer once the ffmpeg child has exited, so a canceled take leaves no process behind.
      await run.done.catch(() => {});
    },
  };
}
