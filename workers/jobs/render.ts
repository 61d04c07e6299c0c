// The render job: one reserved take rendered on its backend's engine (prepare → submit → collect), then closed
// from the files it delivered or failed with the reason; a cancel closes it "canceled". The take's settings are
// read from its sidecar and frozen shot list; a retry is a new take with the same settings.
import { rm } from "node:fs/promises";
import type { Engine, EngineJob, Prepared, RunHooks, Submitted } from "../../lib/engines/types.ts";
import { loadViewInputs } from "../../lib/episode/view-inputs.ts";
import { defineJobKind, type JobContext } from "../../lib/jobs/kinds.ts";
import type { Job } from "../../lib/jobs/types.ts";
import { episodeFence, mkdirShow } from "../../lib/paths/guarded.ts";
import { type HoldAtStart, holdAtStart } from "../../lib/render/chain.ts";
import { requeueChain } from "../../lib/render/chain-retry.ts";
import { recutAtStart } from "../../lib/render/continuity.ts";
import { engineJobFor, frozenEntry, usedRefs } from "../../lib/render/engine-job.ts";
import { finishTake } from "../../lib/render/finish-take.ts";
import { engineCatalogue } from "../../lib/render/node-check.ts";
import { renderPayload } from "../../lib/render/payload.ts";
import { retryRender } from "../../lib/render/retry.ts";
import {
  closeTake,
  noteText,
  readSidecarNow,
  type Sidecar,
  type TakeRef,
  takeDir,
  takeEvent,
  updateSidecar,
} from "../../lib/render/sidecar.ts";
import { localIso } from "../../lib/render/time.ts";
import { errorMessage } from "../../lib/store/json-guards.ts";
import { jobWorkPath } from "../../lib/store/temp-names.ts";

/** Whether the abort was a cancel of this job (not a worker stopping or losing the lease: the job runs again). */
async function canceledByUser(job: Job, ctx: JobContext): Promise<boolean> {
  const now = await ctx.store.get(job.id).catch(() => null);
  return now === null || now.cancel_requested || now.status === "canceled";
}

export const renderJob = defineJobKind({
  payload: renderPayload,
  retry: retryRender,
  async afterRetry(added, old, services, store) {
    await requeueChain(added, old, services, store);
  },
  async run(job, ctx) {
    const p = job.payload;
    const t: TakeRef = { ep: p.ep, pass: p.pass, shot: p.shot, take: p.take };
    const sidecar = await readSidecarNow(t);
    if (!sidecar) throw new Error(`${p.stem}: the take's sidecar is gone (discarded?)`);
    // Closed already (a cancel that timed out, a sweep): nothing left to render.
    if (sidecar.status !== "queued") return;
    if (sidecar.job !== job.id)
      await updateSidecar(ctx.services, t, (s) => (s.status === "queued" ? { ...s, job: job.id } : null));

    const workDir = jobWorkPath(takeDir(t), p.stem, job.id);
    const started = Date.now();
    let engine: Engine | null = null;
    let engineJob: EngineJob | null = null;
    let submitted: Submitted | null = null;
    try {
      ctx.progress({ log: `${p.stem} (${p.pass}) on ${p.target}, backend ${p.backend}` });
      engine = ctx.engine(p.backend);
      const entry = await frozenEntry(t);
      const vi = await loadViewInputs(ctx.services, p.ep, p.pass).catch(() => null);
      let continuity: Sidecar["continuity"] = null;
      if (p.chain === "first" && p.first_frame && vi) {
        // A continuous shot's first frame is cut again from the take the cut plays before it now
        // (contract rendering rule 7).
        continuity = await recutAtStart(
          ctx.services,
          p.ep,
          p.pass,
          vi.build,
          p.shot,
          p.first_frame,
          ctx.signal,
        );
      }
      // A latent chain holds the end of the take the cut plays before it now (contract rendering rule 8); the
      // built-in engine draws it as a plain cut.
      const spec = vi?.env.targets.get(p.target) ?? ctx.services.targets.get(p.target);
      let held: HoldAtStart | null = null;
      if (p.chain === "latent" && vi && spec && spec.backend !== "builtin" && p.backend !== "builtin") {
        held = await holdAtStart({
          services: ctx.services,
          store: ctx.store,
          after: job.after,
          ep: p.ep,
          pass: p.pass,
          shot: p.shot,
          build: vi.build,
          spec,
          fps: typeof sidecar.fps === "number" ? sidecar.fps : 24,
          built: typeof entry.hold === "number" ? entry.hold : null,
          workDir,
        });
        if (held) {
          const rec = held.record;
          await updateSidecar(ctx.services, t, (s) => (s.status === "queued" ? { ...s, ...rec } : null));
        }
      }
      const made = await engineJobFor({
        services: ctx.services,
        t,
        payload: p,
        sidecar,
        entry,
        vi,
        workDir,
        hold: held?.hold ?? null,
        known: await engineCatalogue(ctx.services, p.backend, engine),
      });
      engineJob = made.job;
      const lengthSource = made.lengthSource;
      if (lengthSource)
        await updateSidecar(ctx.services, t, (s) =>
          s.status === "queued" ? { ...s, length_source: lengthSource } : null,
        );
      // A shot-list target's take says in its notes which graph the engine got (the pack's or the core one).
      const variant = made.variant;
      if (variant)
        await updateSidecar(ctx.services, t, (s) =>
          s.status === "queued"
            ? { ...s, notes: [...(Array.isArray(s.notes) ? s.notes : []), variant] }
            : null,
        );
      // The take folder must still lie inside the episode: a renders folder linked out of it is refused.
      await mkdirShow(episodeFence(t.ep), workDir);
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
      const ready: Prepared = await engine.prepare(engineJob, hooks);
      const prepared: Prepared = { ...ready, notes: [...made.notes, ...ready.notes] };
      await updateSidecar(ctx.services, t, (s) =>
        s.status === "queued" ? { ...s, inputs: prepared.inputs } : null,
      );
      submitted = await engine.submit(engineJob, prepared, hooks);
      const backendId = submitted.backendPromptId;
      ctx.progress({ backend_prompt_id: backendId });
      await updateSidecar(ctx.services, t, (s) =>
        s.status === "queued" ? { ...s, backend_prompt_id: backendId } : null,
      );
      const outputs = await engine.collect(engineJob, submitted, hooks);
      const used = await usedRefs(ctx.services, t, vi?.home ?? p.ep, engineJob);
      const closed = await finishTake({
        services: ctx.services,
        t,
        payload: p,
        engine,
        engineJob,
        outputs,
        prepared,
        used,
        continuity,
        workDir,
        started,
      });
      if (closed) {
        ctx.progress({ log: `${p.stem}: ok, ${String(closed.frames)} frames` });
        ctx.emit("studio.take", takeEvent(t, "ok", closed));
      }
    } catch (err) {
      const canceled = ctx.signal.aborted;
      if (canceled) {
        if (!(await canceledByUser(job, ctx))) throw err;
        if (engine && engineJob) await engine.cancel(engineJob, submitted).catch(() => {});
      }
      // An engine this worker cannot reach while another worker can: the take stays queued for that worker.
      if (!canceled && (await ctx.handOff(err))) throw err;
      const reason = canceled ? "canceled" : noteText(errorMessage(err));
      // A cancel is the person's own doing; anything else (a graph that did not patch, a refused prompt) is the error.
      const closed = await closeTake(ctx.services, t, {
        status: "failed",
        finished: localIso(ctx.services.now()),
        save_notes: reason,
        ...(canceled ? {} : { error: reason }),
      });
      if (closed) ctx.emit("studio.take", takeEvent(t, "failed", closed));
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  },
});
