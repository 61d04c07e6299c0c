// Where one press of the Simple view's button stands, from what the service said: the clip/queue answer, the
// pictures' `studio.ref` events, the step and render jobs, and the shot's takes. Pure, so it is tested without a
// browser.

export interface ClipAnswer {
  refs: {
    ref: string;
    kind: string;
    state: string;
    takes: { view: string | null; take: number; prompt_id: string | null }[];
    errors: { view: string | null; error: string }[];
  }[];
  waiting_on: string[];
  step: string | null;
  renders: { shot: string; take: number; prompt_id: string }[];
  stills: { ref: string; take: number; prompt_id: string }[];
}

export interface JobLike {
  id: string;
  kind: string;
  status: string;
  progress: number;
  error: string | null;
  info: { ep?: string; shot?: string; take?: number; step?: string };
}

export interface TakeLike {
  take: number;
  status: string;
  mp4: string | null;
  save_notes: string | null;
}

export type Stage = "pictures" | "waiting" | "rendering" | "ready" | "failed";

export interface ClipProgress {
  stage: Stage;
  text: string;
  /** 0–1 where it can be told, else null. */
  share: number | null;
  error: string | null;
  /** The take to play: the newest finished one made since the press, else null. */
  clip: TakeLike | null;
}

/** The key a picture's events are kept under. */
export const refKey = (ref: string, view: string | null, take: number) => `${ref}|${view ?? ""}|${take}`;

const FINISHED = new Set(["ok", "picked", "failed"]);

/** The progress of one press: `since` is the newest take number of the shot before it. */
export function clipProgress(input: {
  answer: ClipAnswer;
  refStatus: ReadonlyMap<string, string>;
  jobs: readonly JobLike[];
  takes: readonly TakeLike[];
  since: number;
  ep: string;
  shot: string;
}): ClipProgress {
  const { answer, refStatus, jobs, ep, shot } = input;
  const mine = input.takes.filter((t) => t.take > input.since).sort((a, b) => b.take - a.take);
  const clip = mine.find((t) => t.status === "ok" && t.mp4) ?? null;
  const refused = answer.refs.flatMap((r) =>
    r.errors.map((e) => `${r.ref}${e.view ? ` ${e.view}` : ""}: ${e.error}`),
  );

  const stepJobs = answer.step ? jobs.filter((j) => j.id === answer.step || j.info.step === answer.step) : [];
  const stepFailed = stepJobs.find((j) => j.status === "failed" || j.status === "canceled");
  if (stepFailed && !clip) {
    return {
      stage: "failed",
      text: "The clip could not be made",
      share: null,
      error: stepFailed.error ?? `the step was ${stepFailed.status}`,
      clip: null,
    };
  }
  if (clip) {
    const more = mine.filter((t) => t.status === "queued").length;
    return {
      stage: "ready",
      text: more ? `Clip t${clip.take} ready; ${more} more rendering` : `Clip t${clip.take}`,
      share: 1,
      error: null,
      clip,
    };
  }
  const rendering = mine.find((t) => t.status === "queued");
  if (rendering) {
    const job = jobs.find(
      (j) =>
        j.kind === "render" && j.info.ep === ep && j.info.shot === shot && j.info.take === rendering.take,
    );
    const share = job ? Math.max(0, Math.min(1, job.progress)) : null;
    return {
      stage: "rendering",
      text: job?.status === "running" ? "Rendering the clip" : "The clip is in the queue",
      share,
      error: null,
      clip: null,
    };
  }
  const failed = mine.find((t) => t.status === "failed");
  if (failed) {
    return {
      stage: "failed",
      text: "The render failed",
      share: null,
      error: failed.save_notes ?? "the render failed",
      clip: null,
    };
  }
  const pictures = answer.refs.flatMap((r) => r.takes.map((t) => refKey(r.ref, t.view, t.take)));
  const made = pictures.filter((k) => FINISHED.has(refStatus.get(k) ?? "")).length;
  if (pictures.length && made < pictures.length) {
    return {
      stage: "pictures",
      text: `Making the pictures it needs: ${made} of ${pictures.length}`,
      share: made / pictures.length,
      error: refused.length ? refused.join("\n") : null,
      clip: null,
    };
  }
  if (answer.stills.length && !answer.renders.length) {
    return { stage: "ready", text: "The still is ready", share: 1, error: null, clip: null };
  }
  return {
    stage: "waiting",
    text: pictures.length ? "Pictures made; queueing the clip" : "Queueing the clip",
    share: null,
    error: refused.length ? refused.join("\n") : null,
    clip: null,
  };
}
