// Which takes a finishing request (upscale, post) is about: named takes win; else named shots (each shot's cut take:
// its pick, else its latest usable take, even when the entry is marked `out`), in cut order, then named shots the
// cut does not list; else the whole cut but the entries marked `out`. An entry playing the other pass's take, a
// named take that does not exist or a shot with no usable take is skipped with the reason; a named shot the pass
// does not have is a 404.
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { notFound } from "../errors.ts";
import type { CutEntry } from "./cut.ts";
import { cutPick, folderTakes } from "./cut-view.ts";
import type { TakeRecord } from "./takes.ts";
import type { ViewInputs } from "./view-inputs.ts";

export interface TakeAsk {
  shots?: readonly string[] | null;
  takes?: readonly { shot: string; take: number }[] | null;
}

export interface ChosenTake {
  shot: string;
  take: number;
  record: TakeRecord;
}

/** A take (or shot) left alone before planning, with why; `take` once planning has one to name. */
export interface TakeSkip {
  shot: string;
  take?: number;
  reason: string;
}

export interface Chosen {
  takes: ChosenTake[];
  skipped: TakeSkip[];
}

/** Whether the request means the whole cut (neither `shots` nor `takes` given; an empty list is not it). */
export const wholeCut = (ask: TakeAsk) => (ask.takes ?? null) === null && (ask.shots ?? null) === null;

const missingTake = (pass: Pass, shot: string, take: number) =>
  `${pass} take ${take} of ${shot} doesn't exist`;

export async function chooseTakes(
  services: Pick<Services, "caches">,
  vi: Pick<ViewInputs, "ep" | "pass" | "cut" | "build">,
  ask: TakeAsk,
): Promise<Chosen> {
  const { ep, pass } = vi;
  const out: Chosen = { takes: [], skipped: [] };
  const seen = new Set<string>();
  const add = (shot: string, record: TakeRecord) => {
    const key = `${shot}\0${record.take}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.takes.push({ shot, take: record.take, record });
  };
  if (ask.takes) {
    for (const { shot, take } of ask.takes) {
      const found = (await folderTakes(services, ep, pass, shot)).find((t) => t.take === take);
      if (found) add(shot, found);
      else out.skipped.push({ shot, reason: missingTake(pass, shot, take) });
    }
    return out;
  }
  const named = ask.shots ?? null;
  const inCut = new Set(vi.cut.map((e) => e.shot));
  for (const shot of named ?? []) {
    // A shot named that neither the pass's build nor its cut knows is a mistake in the request, not a take to skip.
    if (!inCut.has(shot) && !vi.build.order.includes(shot))
      throw notFound(`${shot} is not a shot of the ${pass} pass`);
  }
  const entries: CutEntry[] = named
    ? [
        ...vi.cut.filter((e) => named.includes(e.shot)),
        ...[...new Set(named)].filter((shot) => !inCut.has(shot)).map((shot) => ({ shot })),
      ]
    : vi.cut.filter((e) => e.out !== true);
  for (const entry of entries) {
    const entryPass: Pass = entry.pass ?? pass;
    if (entryPass !== pass) {
      out.skipped.push({ shot: entry.shot, reason: `the cut uses its ${entryPass} take` });
      continue;
    }
    const pick = cutPick(entry, pass, await folderTakes(services, ep, pass, entry.shot));
    if (pick.take) add(entry.shot, pick.take);
    else if (pick.number !== null)
      out.skipped.push({ shot: entry.shot, reason: missingTake(pass, entry.shot, pick.number) });
    else out.skipped.push({ shot: entry.shot, reason: `${entry.shot} has no usable ${pass} take` });
  }
  return out;
}
