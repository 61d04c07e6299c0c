// Target readiness on one ComfyUI address, kept briefly (READINESS_TTL_MS); an unanswered (`unknown`) check is not kept.
import type { ComfyLookups } from "../engines/comfyui/readiness.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { errorMessage } from "../store/json-guards.ts";
import type { ComfyAnswer, Readiness } from "./models.ts";

/** How long a readiness answer is reused (ms). */
export const READINESS_TTL_MS = 10_000;

const READINESS = cacheSlot("target readiness", () => new Map<string, { at: number; value: Readiness }>());
const keyOf = (address: string, target: string) => `${address.replace(/\/+$/, "")}\u0000${target}`;

/** A kept answer for `target` on `address`, or undefined when there is none or it is stale. */
export function cachedReadiness(
  services: WithCaches,
  address: string,
  target: string,
): Readiness | undefined {
  const entries = services.caches.of(READINESS);
  const key = keyOf(address, target);
  const hit = entries.get(key);
  if (!hit) return undefined;
  if (Date.now() - hit.at >= READINESS_TTL_MS) {
    entries.delete(key);
    return undefined;
  }
  return hit.value;
}

/** Keep an answer (never an `unknown` one: the next look-up asks again). */
export function storeReadiness(
  services: WithCaches,
  address: string,
  target: string,
  value: Readiness,
): void {
  if (value.status === "unknown") return;
  services.caches.of(READINESS).set(keyOf(address, target), { at: Date.now(), value });
}

/** Forget kept answers (one address, or all). */
export function clearTargetReadiness(services: WithCaches, address?: string): void {
  const entries = services.caches.of(READINESS);
  if (address === undefined) {
    entries.clear();
    return;
  }
  const prefix = `${address.replace(/\/+$/, "")}\u0000`;
  for (const k of entries.keys()) if (k.startsWith(prefix)) entries.delete(k);
}

/**
 * Ask `address` for its node catalogue and the given model folders, fresh (this cache is the one in force).
 * A catalogue that does not come gives `objectInfo: null` with the reason; a folder that fails is left unlisted.
 */
export async function fetchComfyAnswer(
  lookups: ComfyLookups,
  address: string,
  folders: Iterable<string>,
  timeoutMs = 10_000,
): Promise<ComfyAnswer> {
  let info: Record<string, unknown>;
  try {
    info = await lookups.objectInfo(address, undefined, { fresh: true, timeoutMs });
  } catch (err) {
    return { objectInfo: null, models: {}, error: `${address} did not answer: ${errorMessage(err)}` };
  }
  const listing: Record<string, readonly string[] | null> = {};
  await Promise.all(
    [...new Set(folders)].map(async (folder) => {
      try {
        listing[folder] = await lookups.models(address, folder, { fresh: true, timeoutMs });
      } catch {
        listing[folder] = null;
      }
    }),
  );
  return { objectInfo: info, models: listing };
}
