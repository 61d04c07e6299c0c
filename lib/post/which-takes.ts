// Which takes a post request is about: named takes win; else named shots (each shot's cut take: its pick, else its
// latest usable take, even when the shot is left out of the cut); else the whole cut but the entries marked `out`.
// An entry playing the other pass's take, or a named take that does not exist, is skipped with the reason; a named
// shot the pass does not have is a 404.
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { cutPick, folderTakes } from "../episode/cut-view.ts";
import type { TakeRecord } from "../episode/takes.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { StudioError } from "../errors.ts";

export interface TakeAsk {
  shots?: readonly string[] | null;
  takes?: readonly { shot: string; take: number }[] | null;
}

export interface ChosenTake {
  shot: string;
  take: number;
  record: TakeRecord;
}

export interface Chosen {
  takes: ChosenTake[];
  skipped: { shot: string; take?: number; reason: string }[];
}

/** Whether the request means the whole cut (neither `shots` nor `takes` given). */
export const wholeCut = (ask: TakeAsk) => (ask.takes ?? null) === null && (ask.shots ?? null) === null;

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
      else out.skipped.push({ shot, take, reason: `${pass} take ${take} of ${shot} doesn't exist` });
    }
    return out;
  }
  const named = ask.shots ?? null;
  for (const shot of named ?? []) {
    // A shot named that neither the pass's build nor its cut knows is a mistake in the request, not a take to skip.
    if (!vi.build.order.includes(shot) && !vi.cut.some((e) => e.shot === shot))
      throw new StudioError(404, `${shot} is not a shot of the ${pass} pass`);
  }
  const entries = named
    ? named.map((shot) => vi.cut.find((e) => e.shot === shot) ?? { shot })
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
      out.skipped.push({
        shot: entry.shot,
        take: pick.number,
        reason: `${pass} take ${pick.number} of ${entry.shot} doesn't exist`,
      });
    else out.skipped.push({ shot: entry.shot, reason: `${entry.shot} has no usable ${pass} take` });
  }
  return out;
}
