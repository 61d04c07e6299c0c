// One reference of the catalog as picking sees it: where its live file goes (checked against what the series
// config opens: a config path climbing elsewhere is refused) and whether four views stitch into it.
import type { Services } from "../context.ts";
import { type CatalogRef, catalogRef, readCatalog } from "./catalog.ts";
import type { LiveRef } from "./live.ts";
import { liveFile, type RefsPlace, refsPlace } from "./place.ts";

export async function liveRefOf(place: RefsPlace, c: CatalogRef): Promise<LiveRef> {
  const file = c.ref.scope === "shot" ? c.file : await liveFile(place, c.path, `${c.ref.id}'s path`);
  return { ref: c.ref, kind: c.kind, file, stitches: c.kind === "character" && c.panels === 4 };
}

/** The place, and the reference `id` of the episode ready to pick (404 when the episode has no such ref). */
export async function liveRefAt(
  services: Pick<Services, "home" | "env" | "caches" | "targets">,
  epReal: string,
  id: string,
): Promise<{ place: RefsPlace; live: LiveRef }> {
  const place = await refsPlace(services, epReal);
  const catalog = await readCatalog(services, place);
  return { place, live: await liveRefOf(place, catalogRef(catalog, id)) };
}
