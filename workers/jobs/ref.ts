// The ref job: one reserved reference candidate made on its backend's engine (prepare → submit → collect), its
// picture (or sound) placed beside the sidecar and the sidecar closed `ok`, or closed `failed` with the reason; a
// cancel closes it "canceled". Every value was fixed at queue time in the payload; a retry is a new candidate
// with the same settings. The render job's sibling.
import { rm } from "node:fs/promises";
import { jobRefOf } from "../../lib/engines/builtin/ref-card.ts";
import type {
  Engine,
  EngineJob,
  EngineOutputs,
  Prepared,
  RunHooks,
  Submitted,
} from "../../lib/engines/types.ts";
import { defineJobKind, type JobContext } from "../../lib/jobs/kinds.ts";
import type { Job } from "../../lib/jobs/types.ts";
import { episodeFence, mkdirShow } from "../../lib/paths/guarded.ts";
import { readCatalog } from "../../lib/refs/catalog.ts";
import { finishRefTake } from "../../lib/refs/finish-ref.ts";
import { withEmptyLatent } from "../../lib/refs/pano.ts";
import {
  failRefSidecar,
  payloadTake,
  type RefTakeRef,
  readRefSidecar,
  refEvent,
  retryRef,
  updateRefSidecar,
} from "../../lib/refs/queue-ref.ts";
import { type RefPayload, refPayload } from "../../lib/refs/ref-payload.ts";
import { drawPatch, stillJobValues } from "../../lib/render/draw-values.ts";
import { errorMessage } from "../../lib/store/json-guards.ts";
import { jobWorkPath } from "../../lib/store/temp-names.ts";
import { patchGraph } from "../../lib/targets/graph.ts";
import type { TargetSpec } from "../../lib/targets/registry.ts";
import { customTargetDir, settingsTargetsRoot, targetsForShow } from "../../lib/targets/target-tree.ts";

/** A run lasting longer than this shows its prompt id in the sidecar while it runs. */
const SHOW_PROMPT_ID_MS = 250;

/**
 * The run's prompt id written to the sidecar once the run has lasted SHOW_PROMPT_ID_MS, so a long run shows it
 * meanwhile while a short one (a built-in card) records it only with the close. Answers the stop, which waits for
 * a write under way.
 */
function promptIdIfLong(services: JobContext["services"], t: RefTakeRef, id: string): () => Promise<void> {
  let writing: Promise<unknown> | null = null;
  const timer = setTimeout(() => {
    writing = updateRefSidecar(services, t, (s) =>
      s.status === "queued" ? { ...s, backend_prompt_id: id } : null,
    ).catch(() => null);
  }, SHOW_PROMPT_ID_MS);
  return async () => {
    clearTimeout(timer);
    await writing;
  };
}

/** Whether the abort was a cancel of this job (not a worker stopping or losing the lease: the job runs again). */
async function canceledByUser(job: Job, ctx: JobContext): Promise<boolean> {
  const now = await ctx.store.get(job.id).catch(() => null);
  return now === null || now.cancel_requested || now.status === "canceled";
}

/** The target's workflow patched with the candidate's values and references (a panorama's needs its canvas). */
async function refGraph(ctx: JobContext, spec: TargetSpec, p: RefPayload, home: string) {
  const { graph, values } = await drawPatch(ctx.services, spec, customTargetDir(spec, home), p, {
    negative: p.negative,
    prefix: p.stem,
    params: p.params,
  });
  const references = p.references ?? [];
  if (spec.capabilities.mode === "pano" && references.length === 0) {
    // The panorama graph samples its canvas: without one ComfyUI would fail on an empty LoadImage.
    throw new Error(
      `${spec.short} outpaints a canvas and this candidate has none: make panoramas with generate's pano option`,
    );
  }
  const patched = patchGraph(spec, graph, values, { references });
  if (p.latent === "empty") patched.graph = withEmptyLatent(patched.graph, p.width, p.height);
  return patched;
}

export const refJob = defineJobKind({
  payload: refPayload,
  retry: retryRef,
  async run(job, ctx) {
    const p = job.payload;
    const services = ctx.services;
    const t = await payloadTake(services, p);
    const sidecar = await readRefSidecar(t);
    if (!sidecar) throw new Error(`${p.stem}: the candidate's sidecar is gone (discarded?)`);
    // Closed already (a cancel that timed out, a sweep): nothing left to make.
    if (sidecar.status !== "queued") return;
    // The reserve names the job already; only a sidecar queued by an older version lacks it.
    if (sidecar.job !== job.id)
      await updateRefSidecar(services, t, (s) => (s.status === "queued" ? { ...s, job: job.id } : null));

    // Work happens inside the episode (the built-in engine writes only there); the file then moves to its home.
    const workDir = jobWorkPath(p.ep, p.stem, job.id);
    let engine: Engine | null = null;
    let engineJob: EngineJob | null = null;
    let submitted: Submitted | null = null;
    try {
      ctx.progress({ log: `${p.stem} on ${p.target}, backend ${p.backend}` });
      engine = ctx.engine(p.backend);
      const registry = await targetsForShow(
        services.targets,
        t.place.series.home,
        settingsTargetsRoot(services),
      );
      const spec = registry.get(p.target);
      if (!spec) throw new Error(`the target ${p.target} is not installed here any more`);
      engineJob = {
        kind: p.kind,
        target: p.target,
        ep: p.ep,
        pass: "final",
        subject: t.ref.key,
        take: p.take,
        stem: p.stem,
        ...stillJobValues(p),
        negative: p.negative,
        entry: {},
        inputs: Object.fromEntries((p.references ?? []).map((file, i) => [`reference_${i + 1}`, file])),
        workDir,
      };
      // The reference as the series config words it: the built-in card prints its name and design, a voice speaks
      // with its `voice` brief. A reference the config no longer names is drawn from the job's own fields.
      const catalog = await readCatalog(services, t.place).catch(() => null);
      const catalogRef = catalog?.byId.get(t.ref.id);
      if (catalog && catalogRef) engineJob.ref = jobRefOf(catalogRef, p.view, catalog.seriesRaw);
      const notes: string[] = [...(p.save_notes ?? [])];
      if (spec.backend !== "builtin" && p.backend !== "builtin") {
        const patched = await refGraph(ctx, spec, p, t.place.series.home);
        engineJob.graph = patched.graph;
        notes.push(...patched.notes);
      }
      await mkdirShow(episodeFence(p.ep), workDir);
      const hooks: RunHooks = {
        signal: ctx.signal,
        onProgress: (e) =>
          ctx.progress({
            progress: e.progress,
            ...(e.step !== undefined ? { step: e.step } : {}),
            ...(e.steps !== undefined ? { steps: e.steps } : {}),
            ...(e.log !== undefined ? { log: e.log } : {}),
          }),
      };
      const prepared: Prepared = await engine.prepare(engineJob, hooks);
      submitted = await engine.submit(engineJob, prepared, hooks);
      const backendId = submitted.backendPromptId;
      ctx.progress({ backend_prompt_id: backendId });
      const shown = promptIdIfLong(services, t, backendId);
      let outputs: EngineOutputs;
      try {
        outputs = await engine.collect(engineJob, submitted, hooks);
      } finally {
        await shown();
      }
      const named = engine as Engine & { model?: (j: EngineJob) => string | null };
      const closed = await finishRefTake({
        services,
        t,
        payload: p,
        outputs,
        notes: [...notes, ...prepared.notes],
        model: named.model?.(engineJob) ?? (p.files.model || p.model || null),
        backendPromptId: backendId,
        workDir,
        signal: ctx.signal,
      });
      if (closed) {
        ctx.progress({ log: `${p.stem}: ok, ${String(closed.width)}x${String(closed.height)}` });
        ctx.emit("studio.ref", refEvent(t, "ok"));
      }
    } catch (err) {
      const canceled = ctx.signal.aborted;
      if (canceled) {
        if (!(await canceledByUser(job, ctx))) throw err;
        if (engine && engineJob) await engine.cancel(engineJob, submitted).catch(() => {});
      }
      // An engine this worker cannot reach while another worker can: the reference stays queued for that worker.
      if (!canceled && (await ctx.handOff(err))) throw err;
      const closed = await failRefSidecar(services, t, canceled ? "canceled" : errorMessage(err), canceled);
      if (closed) ctx.emit("studio.ref", refEvent(t, "failed"));
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  },
});
