// A worker's advert as the stores take and keep it: checked on the way in and on the way out of the database.
import { z } from "zod";
import type { WorkerAd } from "./types.ts";

const name = z.string().trim().min(1).max(200);

/** What `advertise` takes (the store sets `seen`). */
export const WorkerAdInput = z.object({
  owner: name,
  host: z.string().max(255),
  pid: z.number().int().nonnegative(),
  kinds: z.array(name).max(100),
  lanes: z.array(name).max(500),
  down: z.record(name, z.string().max(2000)),
});

/** A stored advert, as a row reads back. */
export const WorkerAdRow = WorkerAdInput.extend({ seen: z.number() });

/** Workers not seen for this long are taken for gone. */
export const WORKER_MAX_AGE_MS = 30_000;

/** The advert a store writes, or an Error saying which field is wrong. */
export function checkAd(ad: Omit<WorkerAd, "seen">): Omit<WorkerAd, "seen"> {
  const parsed = WorkerAdInput.safeParse(ad);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`worker advert: ${issue.path.join(".") || "value"}: ${issue.message}`);
  }
  return parsed.data;
}

/** A row read back; a row some other writer mangled is left out rather than trusted. */
export function readAd(row: unknown): WorkerAd | null {
  const parsed = WorkerAdRow.safeParse(row);
  return parsed.success ? parsed.data : null;
}

/**
 * The adverts of rows read back, by owner. Sorted here rather than by the database, whose collation may order
 * names differently from one store to the other.
 */
export function liveAds(rows: readonly unknown[]): WorkerAd[] {
  return rows
    .flatMap((row) => readAd(row) ?? [])
    .sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
}

/** How old an advert may be, defaulted and kept sane. */
export function maxAge(maxAgeMs: number | undefined): number {
  return maxAgeMs !== undefined && Number.isFinite(maxAgeMs) && maxAgeMs >= 0 ? maxAgeMs : WORKER_MAX_AGE_MS;
}
