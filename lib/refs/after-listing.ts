// What follows a GET /studio/refs answer, off the request's path: reference takes still `queued` whose job is
// gone are closed `failed`, then references with no live file get their first finished candidate. Events tell
// the page: each closed take's new status, each auto-pick's `picked`, then one `studio.episode` when anything
// was picked.
import { setTimeout as sleep } from "node:timers/promises";
import type { Services } from "../context.ts";
import type { JobStore } from "../jobs/types.ts";
import { deadReason, RESERVE_GRACE_MS } from "../render/sweep.ts";
import { localIso } from "../render/time.ts";
import { errorMessage } from "../store/json-guards.ts";
import { autoPickRef, type LiveRef } from "./live.ts";
import type { RefsPlace } from "./place.ts";
import { listTakes, updateTake } from "./takes.ts";

/** How long a queueing process may take from writing a sidecar that names its job to inserting that job. */
const INSERT_SETTLE_MS = 2_000;

type AfterServices = Pick<Services, "caches" | "locks" | "now" | "events" | "media" | "jobs" | "log">;

/** Close the queued takes of `lives` whose job is gone; answers how many were closed. */
export async function sweepRefTakes(
  services: AfterServices,
  place: RefsPlace,
  lives: readonly LiveRef[],
): Promise<number> {
  let store: JobStore | null = null;
  let closed = 0;
  const now = services.now();
  for (const live of lives) {
    for (const take of await listTakes(services, place, live.ref)) {
      if (take.status !== "queued" || !take.hasSidecar) continue;
      const id = typeof take.sidecar.job === "string" ? take.sidecar.job : null;
      store ??= await services.jobs();
      let job = id ? await store.get(id) : null;
      const queued = Date.parse(String(take.sidecar.queued ?? ""));
      if (!job && id) {
        // The sidecar names its job before the store holds it (the insert follows the reserve within moments): a
        // take that young is looked at again once the insert has had its time.
        const wait = Number.isFinite(queued) ? queued + INSERT_SETTLE_MS - now.getTime() : 0;
        if (wait > 0) {
          await sleep(Math.min(wait, INSERT_SETTLE_MS));
          job = await store.get(id);
        }
      } else if (!job) {
        // No id at all: written by a version that recorded the job only after inserting it.
        if (!Number.isFinite(queued) || now.getTime() - queued < RESERVE_GRACE_MS) continue;
      }
      const reason = deadReason(job);
      if (reason === null) continue;
      await updateTake(services, place, live.ref, take, (r) =>
        r.status === "queued" ? { ...r, status: "failed", finished: localIso(now), error: reason } : r,
      );
      closed++;
      services.events.emit("studio.ref", {
        ep: place.ep,
        ref: live.ref.id,
        view: take.view,
        take: take.take,
        status: "failed",
      });
    }
  }
  return closed;
}

/** The sweep, then auto-pick over every reference; errors are logged, never thrown (nobody waits for this). */
export async function afterListing(
  services: AfterServices,
  place: RefsPlace,
  lives: readonly LiveRef[],
): Promise<void> {
  try {
    await sweepRefTakes(services, place, lives);
  } catch (err) {
    services.log.warn("reference sweep failed", { ep: place.ep, error: errorMessage(err) });
  }
  let picked = 0;
  for (const live of lives) {
    try {
      for (const made of await autoPickRef(services, place, live)) {
        picked++;
        services.events.emit("studio.ref", {
          ep: place.ep,
          ref: live.ref.id,
          view: made.view,
          take: made.take,
          status: "picked",
        });
      }
    } catch (err) {
      services.log.warn("auto-pick failed", { ep: place.ep, ref: live.ref.id, error: errorMessage(err) });
    }
  }
  if (picked > 0) services.events.emit("studio.episode", { ep: place.ep });
}
