// Promote's write: the plan made again under the episode lock (the files must still hash as the plan showed),
// the chosen items written to the script, series config, overrides.json and the refs' overrides in that order,
// then the episode rebuilt.
import type { Services } from "../../context.ts";
import { badRequest } from "../../errors.ts";
import { withLock } from "../../store/lock.ts";
import { writeOverrides } from "../overrides-file.ts";
import { changedOnDisk, encodeLike, rebuildEpisode, replaceSourceBytes, sha1Bytes } from "../source-file.ts";
import { gather } from "./candidates.ts";
import { readInputs, writeRefOverrides } from "./inputs.ts";
import { viewOrRefuse } from "./render-view.ts";
import type { PromoteResult } from "./types.ts";
import { verify } from "./verify.ts";

/** POST /studio/promote: re-plan under the episode lock, promote the chosen items, then rebuild. */
export async function applyPromote(
  services: Services,
  ep: string,
  request: { items: string[] | "all"; hashes: { script: string; series: string } },
): Promise<PromoteResult> {
  const outcome = await withLock(services, ep, async () => {
    const inputs = await readInputs(services, ep);
    if (inputs.script.hash !== request.hashes.script) throw changedOnDisk(inputs.script);
    if (inputs.series.hash !== request.hashes.series) throw changedOnDisk(inputs.series);
    const before = viewOrRefuse(inputs);
    const { candidates, left } = gather(inputs, before);
    let chosen = candidates;
    if (request.items !== "all") {
      const byId = new Map(candidates.map((c) => [c.item.id, c]));
      for (const id of request.items) {
        if (!byId.has(id))
          throw badRequest(`items: '${id}' is not a promotable override now; ask for the plan again`);
      }
      const wanted = new Set(request.items);
      chosen = candidates.filter((c) => wanted.has(c.item.id));
    }
    const checked = verify(inputs, before, chosen);
    const hashes = { script: inputs.script.hash, series: inputs.series.hash };
    const leftAll = [...left, ...checked.failed];
    const noRefs: string[] = [];
    if (checked.accepted.length === 0) return { promoted: [], left: leftAll, hashes, refs: noRefs };

    // Written in this order (script, series config, overrides.json, the refs' overrides), so a failure part way
    // leaves overrides that still say what the files do not yet.
    const now = services.now();
    const state = checked.state;
    if (state.scriptText !== inputs.script.text) {
      const bytes = encodeLike(state.scriptText, inputs.script);
      await replaceSourceBytes(ep, inputs.script, bytes, now);
      hashes.script = sha1Bytes(bytes);
    }
    if (state.seriesText !== inputs.series.text) {
      const bytes = encodeLike(state.seriesText, inputs.series);
      await replaceSourceBytes(ep, inputs.series, bytes, now);
      hashes.series = sha1Bytes(bytes);
    }
    if (checked.accepted.some((c) => c.item.scope !== "ref"))
      await writeOverrides(services, ep, state.overrides);
    const refs = checked.accepted.filter((c) => c.item.scope === "ref").map((c) => c.item.ref!);
    if (refs.length) await writeRefOverrides(services, inputs.refsFence, inputs.refsPath, state.refs);
    return { promoted: checked.accepted.map((c) => c.item), left: leftAll, hashes, refs };
  });
  if (outcome.promoted.length === 0) {
    return { promoted: [], left: outcome.left, hashes: outcome.hashes, build: null };
  }
  for (const ref of outcome.refs) {
    services.events.emit("studio.ref", { ep, ref, view: null, take: null, status: "promoted" });
  }
  const { build, emitted } = await rebuildEpisode(services, ep);
  if (!emitted) services.events.emit("studio.episode", { ep });
  return { promoted: outcome.promoted, left: outcome.left, hashes: outcome.hashes, build };
}
