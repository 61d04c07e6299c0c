// A camera tour on a ComfyUI video target: the target is checked at queue time (a video target that takes a first
// frame), and the run patches its workflow with the live plate as the first frame, the move as the prompt and the
// length on the target's frame grid, runs it on the engine (prepare → submit → collect) and hands back the video.
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { Engine, EngineJob, RunHooks, Submitted } from "../engines/types.ts";
import { badRequest } from "../errors.ts";
import { episodeFence, mkdirShow } from "../paths/guarded.ts";
import { jobWorkPath } from "../store/temp-names.ts";
import { patchGraph } from "../targets/graph.ts";
import { DEFAULT_GRID, fitSize, framesFor, targetFps } from "../targets/grid.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { settingsTargetsRoot, targetsForShow } from "../targets/target-tree.ts";
import { resolveWorkflow } from "../targets/workflow.ts";

/** The video target a tour runs on, or 400 naming why it cannot take a plate as its first frame. */
export async function tourTarget(
  services: Pick<Services, "targets" | "home">,
  seriesHome: string,
  id: string,
): Promise<TargetSpec> {
  const registry = await targetsForShow(services.targets, seriesHome, settingsTargetsRoot(services));
  const spec = registry.get(id);
  if (!spec) throw badRequest(`unknown target ${JSON.stringify(id)}: tours run on a video target`);
  if (spec.kind !== "video")
    throw badRequest(`${id} is not a video target (${spec.kind}): tours run on a video target`);
  if (!(spec.recipe.keyframes ?? []).includes("first")) {
    throw badRequest(`${id} takes no first frame: a tour starts from the location's plate`);
  }
  return spec;
}

/** Frames, rate and size of a tour of `seconds` on the target, from a plate of `plate` size. */
export function tourGrid(spec: TargetSpec, seconds: number, plate: { width: number; height: number }) {
  const fps = targetFps(spec.template, undefined);
  const { length } = framesFor(seconds, fps, spec.template.frames ?? DEFAULT_GRID);
  const { width, height } = fitSize(plate.width, plate.height, spec.template);
  return { fps, frames: length, width, height };
}

export interface TargetTourRun {
  ep: string;
  seriesHome: string;
  target: string;
  stem: string;
  plate: string;
  prompt: string;
  seed: bigint;
  grid: { fps: number; frames: number; width: number; height: number };
}

/** Runs the tour's graph on `engine`; answers the delivered video (inside the work dir) and the cleanup. */
export async function runTargetTour(
  services: Pick<Services, "targets" | "env" | "home">,
  engine: Engine,
  run: TargetTourRun,
  hooks: RunHooks,
): Promise<{ video: string; notes: string[]; done: () => Promise<void> }> {
  const spec = await tourTarget(services, run.seriesHome, run.target);
  const wf = await resolveWorkflow(spec, { env: services.env });
  if (!wf.ok) throw new Error(wf.error);
  const patched = patchGraph(
    spec,
    wf.graph,
    {
      prompt: run.prompt,
      negative: "people, person, figure, text",
      seed: run.seed,
      width: run.grid.width,
      height: run.grid.height,
      length: run.grid.frames,
      fps: run.grid.fps,
      prefix: run.stem,
    },
    { first: run.plate, last: null },
  );
  const workDir = jobWorkPath(run.ep, run.stem, String(run.seed));
  const done = () => rm(workDir, { recursive: true, force: true });
  const job: EngineJob = {
    kind: "video",
    target: run.target,
    ep: run.ep,
    pass: "final",
    subject: run.stem,
    take: 1,
    stem: run.stem,
    width: run.grid.width,
    height: run.grid.height,
    fps: run.grid.fps,
    frames: run.grid.frames,
    seed: run.seed,
    prompt: run.prompt,
    negative: "",
    entry: {},
    inputs: { first: run.plate },
    workDir,
    graph: patched.graph,
  };
  let submitted: Submitted | null = null;
  try {
    await mkdirShow(episodeFence(run.ep), workDir);
    const prepared = await engine.prepare(job, hooks);
    submitted = await engine.submit(job, prepared, hooks);
    const out = await engine.collect(job, submitted, hooks);
    if (!out.video) throw new Error(`${run.target} delivered no video`);
    return {
      video: path.resolve(out.video),
      notes: [...patched.notes, ...prepared.notes, ...out.notes],
      done,
    };
  } catch (err) {
    if (hooks.signal.aborted) await engine.cancel(job, submitted).catch(() => {});
    await done();
    throw err;
  }
}
