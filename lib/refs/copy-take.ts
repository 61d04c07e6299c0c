// Copying a finished picture take of one reference into another as a new, unpicked candidate (a tour hold into a
// location, a frame into a character's view); the copy's sidecar says where it came from.
import path from "node:path";
import type { Services } from "../context.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { isCharacterView, type RefView } from "./ids.ts";
import type { LiveRef } from "./live.ts";
import { type RefsPlace, takesFence } from "./place.ts";
import { mediaKindOf } from "./take-record.ts";
import { addTake, copyFrom, listTakes, type RefTake } from "./takes.ts";

/** Fields of the source's sidecar the copy keeps: how the picture was made. */
const KEPT = [
  "prompt",
  "seed",
  "seed_source",
  "model",
  "loras",
  "steps",
  "cfg",
  "params",
  "width",
  "height",
  "target",
];

export async function copyRefTake(
  services: Pick<Services, "caches" | "locks" | "now" | "events">,
  place: RefsPlace,
  from: { live: LiveRef; view: RefView | null; take: number },
  to: { live: LiveRef; view: RefView | null },
): Promise<RefTake> {
  if (to.live.stitches && (to.view === null || !(isCharacterView(to.view) || to.view === "sheet"))) {
    throw badRequest(
      `${to.live.ref.id} is a character: copy into one of its views (01_threequarter, 02_side, 03_back, 04_face or sheet), not into the character itself`,
    );
  }
  if (!to.live.stitches && to.view !== null) {
    throw badRequest(`${to.live.ref.id} has no views; leave the destination view out (got ${to.view})`);
  }
  if (to.live.kind === "voice") throw badRequest("a picture cannot be copied into a voice");
  const source = (await listTakes(services, place, from.live.ref)).find(
    (t) => t.view === from.view && t.take === from.take,
  );
  if (!source)
    throw notFound(`${from.live.ref.id} has no take ${from.take}${from.view ? ` of view ${from.view}` : ""}`);
  if (!source.usable || source.file === null) {
    throw conflict(
      `take ${from.take} of ${from.live.ref.id} is not finished (status ${source.status}); only a finished picture can be copied`,
    );
  }
  if (mediaKindOf(source.file) !== "image")
    throw badRequest(`take ${from.take} of ${from.live.ref.id} is not a picture`);
  const fields: Record<string, unknown> = { source: "from_take" };
  for (const k of KEPT)
    if (source.sidecar[k] !== undefined && source.sidecar[k] !== null) fields[k] = source.sidecar[k];
  fields.copied_from = {
    ref: from.live.ref.id,
    view: from.view,
    take: from.take,
    source: source.sidecar.source ?? null,
  };
  const ext = path.extname(source.file).slice(1).toLowerCase();
  const made = await addTake(services, place, to.live.ref, {
    view: to.view,
    ext,
    write: copyFrom(takesFence(place, from.live.ref), source.file),
    fields,
  });
  services.events.emit("studio.ref", {
    ep: place.ep,
    ref: to.live.ref.id,
    view: to.view,
    take: made.take,
    status: "ok",
  });
  services.events.emit("studio.episode", { ep: place.ep });
  return made;
}
