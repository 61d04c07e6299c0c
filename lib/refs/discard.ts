// Discarding a reference candidate: its sidecar and picture (or sound) move to `refs/_takes/_trash/<key>/`
// (a timestamped subfolder when a name is already there), and a discarded pick is cleared, except a voice's:
// a voice keeps its live sample (renders cloning it would otherwise lose their voice).
import path from "node:path";
import type { Services } from "../context.ts";
import { trashTarget } from "../episode/discard.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { mkdirShow, renameShow } from "../paths/guarded.ts";
import type { RefView } from "./ids.ts";
import { type LiveRef, unpick } from "./live.ts";
import { readPicks } from "./picks.ts";
import { type RefsPlace, takesFence, trashDir } from "./place.ts";
import { listTakes, withRefsLock } from "./takes.ts";

export interface DiscardOutcome {
  /** New places of the moved files, absolute. */
  moved: string[];
  /** The take was the live pick and the ref (or view) was cleared. */
  cleared: boolean;
}

export async function discardRefTake(
  services: Pick<Services, "caches" | "locks" | "now" | "events" | "media">,
  place: RefsPlace,
  live: LiveRef,
  view: RefView | null,
  take: number,
): Promise<DiscardOutcome> {
  if (live.stitches && view === null) {
    throw badRequest(`${live.ref.id} is a character: say which view the take belongs to`);
  }
  const { moved, wasPick } = await withRefsLock(services, place, live.ref, async () => {
    const found = (await listTakes(services, place, live.ref)).find(
      (t) => t.view === view && t.take === take,
    );
    if (!found) throw notFound(`${live.ref.id} has no take ${take}${view ? ` of view ${view}` : ""}`);
    if (found.status === "queued")
      throw conflict(`take ${take} of ${live.ref.id} is still queued: cancel it first`);
    const picks = await readPicks(services, place, live.ref);
    const entry = picks.refs[live.ref.id];
    const picked = view === null ? entry?.take : entry?.views?.[view]?.take;
    const fence = takesFence(place, live.ref);
    const dir = path.dirname(found.sidecarPath);
    const present = [
      ...(found.hasSidecar ? [path.basename(found.sidecarPath)] : []),
      ...(found.file ? [path.basename(found.file)] : []),
    ];
    const trash = await trashTarget(fence, trashDir(place, live.ref), present, services.now());
    await mkdirShow(fence, trash);
    const out: string[] = [];
    for (const name of present) {
      await renameShow(fence, path.join(dir, name), path.join(trash, name));
      out.push(path.join(trash, name));
    }
    return { moved: out, wasPick: picked === take && typeof entry?.cleared !== "string" };
  });
  services.events.emit("studio.ref", { ep: place.ep, ref: live.ref.id, view, take, status: "discarded" });
  const clears = wasPick && live.kind !== "voice";
  if (clears) await unpick(services, place, live, view);
  else services.events.emit("studio.episode", { ep: place.ep });
  return { moved, cleared: clears };
}
