// Latent chains across a retry: the retried take waits on the take it continues when that one is still rendering,
// and the rest of the chain (takes that waited on the old job and never held anything from it) is queued again,
// each as a new take behind the new job, in cut order, so the chain holds the retried render.
import type { Services } from "../context.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { CHAIN_BROKEN } from "./chain.ts";
import { type RenderPayload, renderPayload } from "./payload.ts";
import { retryRender } from "./retry.ts";
import { closeTake, readSidecarNow, type TakeRef, takeEvent } from "./sidecar.ts";
import { localIso } from "./time.ts";

const takeOf = (p: RenderPayload): TakeRef => ({ ep: p.ep, pass: p.pass, shot: p.shot, take: p.take });

/**
 * Whether a take that waited on the retried job belongs back in the chain: still waiting (it would hold the old
 * render), or failed because the chain broke. A take that rendered, or failed on its own, is left alone.
 */
async function toRequeue(job: Job, p: RenderPayload): Promise<boolean> {
  if (job.status === "queued") return true;
  if (job.status !== "failed" && job.status !== "canceled") return false;
  const sc = await readSidecarNow(takeOf(p));
  const why = typeof sc?.save_notes === "string" ? sc.save_notes : "";
  return why.startsWith(CHAIN_BROKEN) || (job.error ?? "").startsWith(CHAIN_BROKEN);
}

/**
 * After a render retry is in the store: every chained job that waited on `old` is queued again behind `added`
 * (a waiting one is first taken off the queue and its take closed, since it would have held the old render),
 * and so on down the chain. Answers the new jobs in cut order.
 */
export async function requeueChain(
  added: Job<RenderPayload>,
  old: Job<RenderPayload>,
  services: Services,
  store: JobStore,
): Promise<Job[]> {
  const out: Job[] = [];
  const { jobs } = await store.list();
  const waiting = jobs
    .filter((j) => j.kind === "render" && j.after === old.id && j.id !== added.id)
    .sort((a, b) => a.position - b.position);
  for (const j of waiting) {
    const parsed = renderPayload.safeParse(j.payload);
    if (!parsed.success || parsed.data.chain !== "latent") continue;
    const p = parsed.data;
    if (!(await toRequeue(j, p))) continue;
    let ended: Job = j;
    if (j.status === "queued") {
      ended = await store.cancel(j.id);
      const t = takeOf(p);
      const closed = await closeTake(services, t, {
        status: "failed",
        finished: localIso(services.now()),
        save_notes: `canceled before it ran: queued again behind ${added.title}, the retry of the take it continues`,
      });
      if (closed) services.events.emit("studio.take", takeEvent(t, "failed", closed));
    }
    const typed: Job<RenderPayload> = { ...ended, payload: p };
    const next = await retryRender(typed, services);
    const again = await store.add({ ...next, after: added.id });
    out.push(again, ...(await requeueChain({ ...again, payload: next.payload }, typed, services, store)));
  }
  return out;
}
