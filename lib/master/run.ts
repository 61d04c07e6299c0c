// Making the master (a `master` job's work): the plan again, the cut assembled from each shot's post or upscale at
// the recipe's size into `master/<ep>_master_<W>x<H>.mp4`, then the report beside it. Every step is told to the
// page (`studio.master` with the job object) and kept in `master/.job.json` for any process to read.
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { type AssembleAnswer, assembleEpisode } from "../assemble/assemble.ts";
import { episodeTitle, loudnessTarget, showTitles } from "../assemble/titles-config.ts";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { episodeName } from "../episode/cut.ts";
import { normaliseLoudness } from "../media/loudness.ts";
import { makeProres } from "../media/prores.ts";
import { wrapWithTitles } from "../media/titles.ts";
import {
  episodeFence,
  readShowText,
  statShowOrNull,
  writeShowFile,
  writeShowJson,
} from "../paths/guarded.ts";
import { localIso } from "../render/time.ts";
import { tempPath } from "../store/temp-names.ts";
import { type MasterJob, startingJob, type TitlesSummary, writeJobState } from "./job-state.ts";
import { releaseLock } from "./lock.ts";
import { masterBase, masterRecipeOf, planMaster, playedFiles } from "./plan.ts";
import { type LoudnessFacts, type MasterReport, reportMarkdown } from "./report.ts";
import { assembleRefusal } from "./rows.ts";

export const masterPayload = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  allow_gaps: z.boolean(),
  prores: z.boolean(),
  post: z.enum(["off", "present", "recipe"]),
  /** `assemble` makes the master (and its ProRes copy with `prores`); `prores` makes the copy of the master there is. */
  action: z.enum(["assemble", "prores"]).default("assemble"),
  /** The lock the route took for this run: released when the job ends, wherever it runs. */
  lock: z.object({ pid: z.number(), host: z.string(), by: z.string(), started: z.string() }),
});

export type MasterPayload = z.infer<typeof masterPayload>;

export interface MasterHooks {
  signal?: AbortSignal;
  /** The job object at every step (the caller emits `studio.master`). */
  emit(job: MasterJob): void;
}

/** A master's file names, episode-relative. */
export function masterNames(name: string, size: { width: number; height: number }) {
  const base = masterBase(name, size);
  return {
    mp4: `${base}.mp4`,
    mov: `${base}.mov`,
    shots: `${base}_shots.txt`,
    json: `master/${path.basename(base).replace(/_master_\d+x\d+$/, "_master")}.json`,
    md: `master/${path.basename(base).replace(/_master_\d+x\d+$/, "_master")}.md`,
  };
}

/** Stage of the assembler's step text, with the count where it has one. */
function assembleStage(step: string): { stage: string; done: number | null; total: number | null } {
  const of = /\((\d+) of (\d+)\)/.exec(step);
  if (step.startsWith("reading the cut")) return { stage: "start", done: null, total: null };
  if (step.startsWith("reading")) return { stage: "probe", done: null, total: null };
  if (step.startsWith("re-encoding"))
    return { stage: "clips", done: of ? Number(of[1]) : null, total: of ? Number(of[2]) : null };
  if (step.startsWith("joining")) return { stage: "join", done: null, total: null };
  return { stage: step === "done" ? "verify" : "start", done: null, total: null };
}

/** Run the master job; resolves with the final job object (state done or failed). */
export async function runMaster(
  services: Services,
  jobId: string,
  p: MasterPayload,
  hooks: MasterHooks,
): Promise<MasterJob> {
  const ep = p.ep;
  let job: MasterJob = startingJob(ep, p.pass as Pass, localIso(services.now()));
  let lastWrite = 0;
  const tell = async (patch: Partial<MasterJob>, force = false) => {
    job = { ...job, ...patch };
    hooks.emit(job);
    const now = Date.now();
    // The file is for other processes: a write per stage, and at most every half second within one.
    if (force || now - lastWrite > 500) {
      lastWrite = now;
      await writeJobState(ep, jobId, job);
    }
  };
  try {
    await tell({}, true);
    if (p.action === "prores") {
      const done = await proresOfMaster(services, ep, p.pass, (patch) => tell(patch, true), hooks.signal);
      await tell({ state: "done", stage: "done", finished: localIso(services.now()), ...done }, true);
      return job;
    }
    const plan = await planMaster(services, ep, p.pass, { conform: false, post: p.post });
    const refusal = assembleRefusal(plan.answer.rows, p.allow_gaps);
    if (refusal) throw new Error(refusal);
    const files = playedFiles(plan);
    const name = await episodeName(services, ep);
    const names = masterNames(name, plan.size);
    let stage = "start";
    const answer: AssembleAnswer = await assembleEpisode(
      services,
      ep,
      p.pass,
      {
        partial: p.allow_gaps,
        size: plan.size,
        names: { mp4: names.mp4, shots: names.shots },
        effort: plan.answer.quality === "master" ? "full" : "draft",
        async play(c) {
          const f = files.get(c.shot);
          return f ?? { file: c.file, kind: "take", why: "its take" };
        },
      },
      {
        signal: hooks.signal,
        progress: ({ step }) => {
          const s = assembleStage(step);
          const changed = s.stage !== stage;
          stage = s.stage;
          void tell({ step: "assemble", ...s, text: step }, changed).catch(() => {});
        },
      },
    );
    if (!answer.ok || !answer.output) throw new Error(answer.error ?? "the master was not assembled");
    const fence = episodeFence(ep);
    const master = path.join(ep, names.mp4);
    const titles = await addTitles(services, ep, master, plan.vi.seriesRaw, {
      signal: hooks.signal,
      progress: ({ stage, text }) => void tell({ step: "titles", stage, text }, true).catch(() => {}),
    });
    const loudness = await normalise(services, master, loudnessTarget(plan.vi.seriesRaw), {
      signal: hooks.signal,
      progress: ({ step }) => void tell({ step: "assemble", stage: "loudness", text: step }).catch(() => {}),
    });
    const mov = path.join(ep, names.mov);
    if (p.prores) {
      await proresOf(services, master, mov, (patch) => tell(patch, true), hooks.signal);
    } else if (await statShowOrNull(fence, mov)) {
      // A ProRes copy of an older master is not this master's: it goes.
      await rm(mov, { force: true });
    }
    const r = answer.report;
    const played: MasterReport["played"] = {};
    for (const [shot, f] of files) played[shot] = f.kind;
    const report: MasterReport = {
      episode: name,
      made: job.started ?? localIso(services.now()),
      output: names.mp4,
      prores: p.prores ? names.mov : null,
      titles,
      loudness,
      quality: plan.answer.quality,
      played,
      assembly: {
        clips: r.clips,
        frames: r.frames,
        seconds: r.seconds,
        copied: r.copied,
        reencoded: r.reencoded,
      },
      plan: plan.answer,
      finished: localIso(services.now()),
    };
    await writeShowJson(fence, path.join(ep, names.json), report);
    await writeShowFile(fence, path.join(ep, names.md), reportMarkdown(report));
    await tell(
      {
        state: "done",
        stage: "done",
        done: null,
        total: null,
        text: `${names.mp4}: ${r.clips} clip(s), ${r.frames} frames`,
        finished: report.finished,
        output: names.mp4,
        mov: p.prores ? names.mov : null,
        report: names.md,
        titles,
      },
      true,
    );
    return job;
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await tell({ state: "failed", finished: localIso(services.now()), error }, true).catch(() => {});
    return job;
  } finally {
    await releaseLock(ep, p.lock).catch(() => {});
  }
}

/**
 * The master's sound brought to the series loudness in place (picture copied), with what was measured. A master
 * with no sound, or only silence, has nothing to normalise: that is said, not failed.
 */
async function normalise(
  services: Services,
  file: string,
  target: { target: number; truePeak: number },
  hooks: Parameters<typeof normaliseLoudness>[4],
): Promise<LoudnessFacts> {
  const facts: LoudnessFacts = {
    target: target.target,
    true_peak: target.truePeak,
    measured_in: null,
    measured_out: null,
  };
  const tmp = tempPath(file, ".mp4");
  try {
    const n = await normaliseLoudness(services, file, tmp, target, hooks);
    await rename(tmp, file);
    const fig = (f: typeof n.input) =>
      f.integrated === null ? null : { i: f.integrated, tp: f.truePeak ?? 0, lra: f.range ?? 0 };
    return { ...facts, measured_in: fig(n.input), measured_out: fig(n.output), note: null };
  } catch (err) {
    await rm(tmp, { force: true });
    const why = err instanceof Error ? err.message : String(err);
    if (/is silent|has no sound/.test(why)) return { ...facts, note: why.replace(/^loudness: /, "") };
    throw err;
  }
}

/**
 * The show's intro and outro put around the master in place, the episode title drawn on them; null when the show
 * has neither. A failure is the job's (`titles: …`), the untitled master left where it is.
 */
async function addTitles(
  services: Services,
  ep: string,
  master: string,
  seriesRaw: Record<string, unknown> | null,
  hooks: Parameters<typeof wrapWithTitles>[2],
): Promise<TitlesSummary | null> {
  const show = await showTitles(ep, seriesRaw);
  if (!show.intro && !show.outro) return null;
  const tmp = tempPath(master, ".mp4");
  try {
    const made = await wrapWithTitles(
      services,
      {
        cut: master,
        intro: show.intro,
        outro: show.outro,
        title: await episodeTitle(services, ep),
        style: show.subtitle,
        folder: ep,
        out: tmp,
      },
      hooks,
    );
    await rename(tmp, master);
    const rel = (f: string | null) => (f ? path.relative(ep, f).split(path.sep).join("/") : null);
    return { intro: rel(made.intro), outro: rel(made.outro), picture: made.picture, why: made.why };
  } catch (err) {
    await rm(tmp, { force: true });
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(why.startsWith("titles") ? why : `titles: ${why}`);
  }
}

/** The ProRes 422 HQ copy of `master` written as `mov` (through a temp name), with its progress. */
async function proresOf(
  services: Services,
  master: string,
  mov: string,
  tell: (patch: Partial<MasterJob>) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  await tell({ stage: "prores", text: "ProRes 422 HQ", done: null, total: null });
  const tmp = tempPath(mov, ".mov");
  try {
    await makeProres(services, master, tmp, {
      signal,
      progress: (f) => void tell({ text: `ProRes 422 HQ: ${Math.round(f * 100)}%` }).catch(() => {}),
    });
    await rename(tmp, mov);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** `prores` on its own: the copy of the master already made at the recipe's size, recorded in its report. */
async function proresOfMaster(
  services: Services,
  ep: string,
  pass: Pass,
  tell: (patch: Partial<MasterJob>) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<Partial<MasterJob>> {
  const { size } = await masterRecipeOf(services, ep, pass);
  const names = masterNames(await episodeName(services, ep), size);
  const fence = episodeFence(ep);
  const master = path.join(ep, names.mp4);
  if (!(await statShowOrNull(fence, master))?.isFile())
    throw new Error(`there is no master of this episode at ${size.width}x${size.height} to copy`);
  await proresOf(services, master, path.join(ep, names.mov), tell, signal);
  const json = path.join(ep, names.json);
  let report: MasterReport | null = null;
  try {
    report = JSON.parse(await readShowText(fence, json)) as MasterReport;
  } catch {
    // A master without its report (made by hand, or the report removed): the copy is made all the same.
  }
  if (report) {
    report.prores = names.mov;
    await writeShowJson(fence, json, report);
    await writeShowFile(fence, path.join(ep, names.md), reportMarkdown(report));
  }
  return { output: names.mp4, mov: names.mov, report: report ? names.md : null, text: names.mov };
}
