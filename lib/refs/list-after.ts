// Starts what follows a GET /studio/refs answer (the sweep of reference takes whose job is gone, then auto-pick)
// once the answer is on its way: never on the request's path. One run per episode at a time; listings that
// arrive meanwhile ask for one more run after it, so a page refreshing quickly does not pile runs up.
import type { Services } from "../context.ts";
import { cacheSlot } from "../store/caches.ts";
import { errorMessage } from "../store/json-guards.ts";
import { afterListing } from "./after-listing.ts";
import type { CatalogRef } from "./catalog.ts";
import { liveRefs } from "./listing.ts";
import type { RefsPlace } from "./place.ts";

type AfterServices = Parameters<typeof afterListing>[0];

interface Run {
  done: Promise<void>;
  again: { place: RefsPlace; refs: readonly CatalogRef[] } | null;
}

const RUNS = cacheSlot("reference after-listing runs", () => new Map<string, Run>());

/**
 * Schedule the sweep and auto-pick of `refs` (the references the listing saw pending) after the current answer is
 * sent; nothing when none is.
 */
export function afterAnswer(services: AfterServices, place: RefsPlace, refs: readonly CatalogRef[]): void {
  const runs = services.caches.of(RUNS);
  const running = runs.get(place.ep);
  if (running) {
    // The run going may have started before this listing's state: one more run for what this listing saw.
    if (refs.length > 0) running.again = { place, refs };
    return;
  }
  if (refs.length === 0) return;
  const run: Run = { done: Promise.resolve(), again: null };
  run.done = new Promise<void>((resolve) => {
    // setImmediate: the handler's answer is written before this starts.
    setImmediate(async () => {
      let next: { place: RefsPlace; refs: readonly CatalogRef[] } | null = { place, refs };
      while (next) {
        run.again = null;
        try {
          await afterListing(services, next.place, await liveRefs(next.place, next.refs));
        } catch (err) {
          services.log.warn("reference sweep and auto-pick failed", {
            ep: place.ep,
            error: errorMessage(err),
          });
        }
        next = run.again;
      }
      runs.delete(place.ep);
      resolve();
    });
  });
  runs.set(place.ep, run);
}

/** Resolves once no run is going for the episode (tests and shutdown wait on it). */
export async function afterAnswerSettled(services: Pick<Services, "caches">, ep: string): Promise<void> {
  const runs = services.caches.of(RUNS);
  for (let run = runs.get(ep); run; run = runs.get(ep)) await run.done;
}
