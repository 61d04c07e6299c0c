// The preset job: an own preset's sample picture drawn on its target's engine (prepare → submit → collect) in a
// work folder beside the presets' pictures, then made the preset's picture (a PNG of at most 1024 px). A preset
// deleted meanwhile keeps nothing. Every value was fixed at queue time; a retry draws the same picture again.
import { mkdir, realpath, rm } from "node:fs/promises";
import path from "node:path";
import type { Engine, EngineJob, RunHooks, Submitted } from "../../lib/engines/types.ts";
import { StudioError } from "../../lib/errors.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { pictureBytes, setPicture } from "../../lib/presets/picture.ts";
import { samplePayload } from "../../lib/presets/sample.ts";
import { picturesDir, presetEvent } from "../../lib/presets/store.ts";
import { drawPatch, stillJobValues } from "../../lib/render/draw-values.ts";
import { jobWorkPath } from "../../lib/store/temp-names.ts";
import { patchGraph } from "../../lib/targets/graph.ts";
import { customTargetDir, settingsTargetsRoot, targetsForShow } from "../../lib/targets/target-tree.ts";

export const presetJob = defineJobKind({
  payload: samplePayload,
  async run(job, ctx) {
    const p = job.payload;
    const services = ctx.services;
    const dir = picturesDir(services.home);
    await mkdir(dir, { recursive: true });
    // The built-in engine writes only inside the folder the job names: the presets' own folder, by its real path.
    const place = await realpath(dir);
    // A take-shaped stem gives the work folder the name the start-up sweep removes once its job is gone.
    const stem = `sample_${p.preset}_t01`;
    const workDir = jobWorkPath(place, stem, job.id);
    let engine: Engine | null = null;
    let engineJob: EngineJob | null = null;
    let submitted: Submitted | null = null;
    try {
      ctx.progress({ log: `sample of ${p.preset} on ${p.target}, backend ${p.backend}` });
      engine = ctx.engine(p.backend);
      const spec = (await targetsForShow(services.targets, p.show, settingsTargetsRoot(services))).get(
        p.target,
      );
      if (!spec) throw new Error(`the target ${p.target} is not installed here any more`);
      engineJob = {
        kind: "image",
        target: p.target,
        ep: place,
        pass: "final",
        subject: `preset__${p.preset}`,
        take: 1,
        stem,
        ...stillJobValues(p),
        negative: null,
        entry: {},
        inputs: {},
        workDir,
        ref: {
          id: `preset:${p.preset}`,
          name: p.preset,
          kind: "preset",
          view: null,
          description: p.prompt,
          look: "",
        },
      };
      if (spec.backend !== "builtin" && p.backend !== "builtin") {
        const { graph, values } = await drawPatch(services, spec, customTargetDir(spec, p.show), p, {
          negative: null,
          prefix: stem,
        });
        engineJob.graph = patchGraph(spec, graph, values, { references: [] }).graph;
      }
      await mkdir(workDir, { recursive: true });
      const hooks: RunHooks = {
        signal: ctx.signal,
        onProgress: (e) =>
          ctx.progress({ progress: e.progress, ...(e.log !== undefined ? { log: e.log } : {}) }),
      };
      const prepared = await engine.prepare(engineJob, hooks);
      submitted = await engine.submit(engineJob, prepared, hooks);
      ctx.progress({ backend_prompt_id: submitted.backendPromptId });
      const outputs = await engine.collect(engineJob, submitted, hooks);
      if (!outputs.image) throw new Error(`${p.target} made no picture`);
      const png = await pictureBytes(outputs.image, path.basename(outputs.image));
      try {
        await setPicture(services, p.preset, png);
      } catch (err) {
        if (err instanceof StudioError && err.status === 404) {
          ctx.progress({ log: `${p.preset} was deleted meanwhile: the sample is not kept` });
          return;
        }
        throw err;
      }
      ctx.progress({ log: `${p.preset}: sample ${String(p.width)}x${String(p.height)} kept` });
      ctx.emit("studio.presets", presetEvent(p.preset, "picture"));
    } catch (err) {
      if (ctx.signal.aborted && engine && engineJob)
        await engine.cancel(engineJob, submitted).catch(() => {});
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  },
});
