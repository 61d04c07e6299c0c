// Promote: move what the authored files can say out of the overrides, verified by compiling the edited
// files in memory so every shot renders exactly as before. The plan: what would move, what stays and why, and
// the diffs of the edited files; nothing is written.
import type { Services } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { unifiedDiff } from "../../text/unified-diff.ts";
import { gather } from "./candidates.ts";
import { type EditState, serializeSeries } from "./edit.ts";
import { readInputs } from "./inputs.ts";
import { viewOrRefuse } from "./render-view.ts";
import type { Inputs, PromotePlan } from "./types.ts";
import { verify } from "./verify.ts";

export type { LeftEntry, PromoteItem, PromotePlan, PromoteResult, Scope } from "./types.ts";

/** GET /studio/promote: the plan (nothing is written). `shot` narrows it to that shot's overrides. */
export async function planPromote(services: Services, ep: string, shot?: string): Promise<PromotePlan> {
  const inputs = await readInputs(services, ep);
  const before = viewOrRefuse(inputs);
  if (shot !== undefined && !before.shots.has(shot) && !inputs.overrides.shots?.[shot]) {
    throw notFound(`shot: ${shot} is not in the script`);
  }
  const { candidates, left } = gather(inputs, before, shot);
  const checked = verify(inputs, before, candidates);
  return {
    items: checked.accepted.map((c) => c.item),
    left: [...left, ...checked.failed],
    diffs: diffsOf(inputs, checked.state),
    hashes: { script: inputs.script.hash, series: inputs.series.hash },
  };
}

function diffsOf(inputs: Inputs, state: EditState): { script: string; series: string } {
  const script = unifiedDiff(inputs.script.text, state.scriptText, inputs.script.path);
  let series = unifiedDiff(inputs.series.text, state.seriesText, inputs.series.path);
  if (series !== "") {
    let formatted = false;
    try {
      formatted = serializeSeries(JSON.parse(inputs.series.text), inputs.series.text) === inputs.series.text;
    } catch {
      formatted = false;
    }
    if (!formatted) series = `# note: series.json will be reformatted\n${series}`;
  }
  return { script, series };
}
