// POST /studio/master: the episode's master by the series recipe. `plan` says what each shot of the cut stands at;
// `queue` queues the upscales (and posts) the plan asks for, with posts by the recipe each queued right behind its
// upscale (a job that waits for the upscale's); `assemble` makes the master from them under the episode's exclusive
// lock, as a `master` job, and answers when it ends.
import path from "node:path";
import { z } from "zod";
import type { Services } from "../../lib/context.ts";
import { episodeName } from "../../lib/episode/cut.ts";
import { conflict, StudioError } from "../../lib/errors.ts";
import type { MasterJob } from "../../lib/master/job-state.ts";
import { currentMasterJob, MASTER_BY, masterJobOf } from "../../lib/master/job-state.ts";
import { type MasterLock, takeLock } from "../../lib/master/lock.ts";
import { type MasterPlan, masterRecipeOf, planMaster } from "../../lib/master/plan.ts";
import { assembleRefusal, type PostMode, postBehindUpscale } from "../../lib/master/rows.ts";
import { type MasterPayload, masterNames } from "../../lib/master/run.ts";
import { mediaTools } from "../../lib/media/ffmpeg.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { episodeFence, statShowOrNull } from "../../lib/paths/guarded.ts";
import { queuePosts } from "../../lib/post/queue.ts";
import { ep, passOr } from "../../lib/schema/fields.ts";
import { str } from "../../lib/store/json-guards.ts";
import { queueUpscales } from "../../lib/upscale/queue.ts";
import { defineFunction } from "../fn.ts";

/** A route that waits longer than this answers with the job still running. */
const WAIT_MS = 60 * 60_000;

const postMode = z
  .union([z.boolean(), z.null(), z.enum(["", "off", "present", "recipe"])])
  .optional()
  .transform((v): PostMode => (v === true || v === "recipe" ? "recipe" : v === "present" ? "present" : "off"))
  .describe(
    'Posts: false/null/""/"off" (upscales only, the default), "present" (a fresh post where there is one, nothing queued), true/"recipe" (posts planned by the series post.master)',
  );

/** The master already made at the plan's size, or null. */
async function existingMaster(services: Services, ep: string, size: { width: number; height: number }) {
  const names = masterNames(await episodeName(services, ep), size);
  const fence = episodeFence(ep);
  const mp4 = await statShowOrNull(fence, path.join(ep, names.mp4));
  if (!mp4?.isFile()) return null;
  const mov = await statShowOrNull(fence, path.join(ep, names.mov));
  return { output: names.mp4, mov: mov?.isFile() ? names.mov : null };
}

export default defineFunction({
  method: "POST",
  path: "/master",
  summary:
    "The master by the series upscale.master recipe: plan (rows per shot of the cut), queue (the upscales and posts it needs), assemble (master/<ep>_master_<W>x<H>.mp4 and its report, under an exclusive lock; answers when done)",
  input: z.object({
    ep,
    pass: passOr("final"),
    action: z
      .enum(["plan", "queue", "assemble", "prores"])
      .default("plan")
      .describe("plan (default), queue, assemble, or prores (a ProRes copy of the master already made)"),
    conform: z
      .boolean()
      .optional()
      .describe("Re-upscale the fresh upscales made with other settings than the recipe's (Keep still wins)"),
    allow_gaps: z
      .boolean()
      .optional()
      .describe(
        "assemble: let gaps through, scaled up from their takes (a shot with no usable take is left out)",
      ),
    prores: z
      .boolean()
      .optional()
      .describe(
        "assemble: also write the ProRes 422 HQ .mov of the (titled) master; without it an older .mov goes",
      ),
    order: z
      .enum(["cut", "target"])
      .default("cut")
      .describe(
        "queue: cut order (posts right behind their upscales), or grouped by what the backend loads (each group where its first shot is; posts after all upscales)",
      ),
    post: postMode,
  }),
  async handler(input, ctx) {
    const real = await resolveEpisode(input.ep, ctx);
    const pass = input.pass;
    const opts = { conform: input.conform === true, post: input.post };
    if (input.action === "prores") {
      // Nothing is planned: the copy is of the master there is at the recipe's size.
      const { size } = await masterRecipeOf(ctx, real, pass);
      if (!(await existingMaster(ctx, real, size)))
        throw conflict(
          `there is no master of this episode at the recipe's size yet (${size.width}x${size.height}): assemble it first`,
        );
      const state = await underLock(
        ctx,
        real,
        pass,
        `ProRes copy of the master of ${path.basename(real)}`,
        (lock) => ({
          ep: real,
          pass,
          action: "prores",
          allow_gaps: false,
          prores: true,
          post: input.post,
          lock,
        }),
      );
      return { output: state.output, mov: state.mov };
    }
    let plan: MasterPlan = await planMaster(ctx, real, pass, opts);
    if (input.action === "plan") {
      return { plan: plan.answer, existing: await existingMaster(ctx, real, plan.size) };
    }
    if (input.action === "queue") {
      const rows = plan.answer.rows;
      const toUpscale = rows.filter((r) => r.status === "upscale").map((r) => r.shot);
      const toPost = rows.filter((r) => r.status === "post").map((r) => r.shot);
      const riding = new Set(
        rows.filter((r, i) => postBehindUpscale(r, plan.shots[i].facts, input.post)).map((r) => r.shot),
      );
      // Posts wait for their upscale's job: the one queued now, or the one already on its way (while it is).
      const behind = await upscalesOnTheirWay(ctx, plan, riding);
      const queued: string[] = [];
      const errors: { shot: string; error: string }[] = [];
      try {
        if (toUpscale.length) {
          const a = await queueUpscales(ctx, real, pass, {
            recipe: true,
            shots: toUpscale,
            redo: true,
            order: input.order,
          });
          queued.push(...a.queued.map((q) => q.shot));
          errors.push(...a.errors.map((e) => ({ shot: e.shot, error: e.error })));
          for (const q of a.queued)
            if (riding.has(q.shot)) behind.push({ shot: q.shot, take: q.take, job: q.prompt_id });
        }
        const postShots = [...toPost, ...behind.map((b) => b.shot)];
        if (postShots.length) {
          const a = await queuePosts(ctx, real, {
            pass,
            shots: postShots,
            redo: true,
            recipe: true,
            quality: null,
            behind,
            order: input.order,
          });
          queued.push(...a.queued.map((q) => q.shot));
          errors.push(...a.errors.map((e) => ({ shot: e.shot, error: e.error })));
        }
      } catch (err) {
        // The master says a silent backend is a conflict of its own (nothing was queued), not a bad gateway.
        if (err instanceof StudioError && err.status === 502) throw conflict(err.message);
        throw err;
      }
      plan = await planMaster(ctx, real, pass, opts);
      return {
        plan: plan.answer,
        existing: await existingMaster(ctx, real, plan.size),
        queued: [...new Set(queued)],
        errors,
      };
    }

    const refusal = assembleRefusal(plan.answer.rows, input.allow_gaps === true);
    if (refusal) throw conflict(refusal);
    const title = `master of ${path.basename(real)} (${plan.size.width}x${plan.size.height})`;
    const state = await underLock(ctx, real, pass, title, (lock) => ({
      ep: real,
      pass,
      action: "assemble",
      allow_gaps: input.allow_gaps === true,
      prores: input.prores === true,
      post: input.post,
      lock,
    }));
    plan = await planMaster(ctx, real, pass, opts);
    return {
      plan: plan.answer,
      existing: await existingMaster(ctx, real, plan.size),
      output: state.output,
      mov: state.mov,
      report: state.report,
      titles: state.titles,
      job: state,
    };
  },
});

/** The upscale jobs already on their way (waiting or running) for the `shots` whose rows wait on them. */
async function upscalesOnTheirWay(
  ctx: Services,
  plan: MasterPlan,
  shots: ReadonlySet<string>,
): Promise<{ shot: string; take: number; job: string }[]> {
  const out: { shot: string; take: number; job: string }[] = [];
  const store = await ctx.jobs();
  for (const [i, row] of plan.answer.rows.entries()) {
    if (row.status !== "queued" || !shots.has(row.shot) || row.take === null) continue;
    const id = str((plan.shots[i].upscale?.record as Record<string, unknown> | null)?.job);
    const job = id ? await store.get(id).catch(() => null) : null;
    if (job?.kind === "upscale" && (job.status === "queued" || job.status === "running"))
      out.push({ shot: row.shot, take: row.take, job: job.id });
  }
  return out;
}

/**
 * Take the episode's lock (409 with the job holding it), run a `master` job under it and answer its job object
 * once it ends; a job that ended failed is a 500 carrying it.
 */
async function underLock(
  ctx: Services & { signal: AbortSignal },
  ep: string,
  pass: MasterPayload["pass"],
  title: string,
  payload: (lock: MasterLock) => MasterPayload,
): Promise<MasterJob> {
  await mediaTools(ctx.media);
  const store = await ctx.jobs();
  const held = await takeLock(ep, MASTER_BY, ctx.now(), async () => ({
    job: await currentMasterJob(store, ep, ctx.now()),
  }));
  let ended = null;
  try {
    const job = await store.add({
      kind: "master",
      lane: "builtin",
      title,
      info: { ep, pass },
      payload: payload(held.lock),
    });
    ctx.jobSignals.jobAdded();
    ended = await store.waitFor(job.id, AbortSignal.any([ctx.signal, AbortSignal.timeout(WAIT_MS)]));
    const state = await masterJobOf(ep, ended ?? job);
    if (ended && state.state === "failed") throw new StudioError(500, state.error, { job: state });
    return state;
  } finally {
    // The job releases the lock when it ends; a job that never ran leaves it to the route.
    if (ended) await held.release();
  }
}
