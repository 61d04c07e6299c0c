// The small edits of an upscale: delete it (files and record), mark it Keep or clear that, and store a shot's own
// recipe in overrides.json. Each refuses with the status and words the upscale routes answer.
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { readOverrides, writeOverrides } from "../episode/overrides-file.ts";
import { readStory } from "../episode/shotlists.ts";
import { listTakes, passFolder, safeShot } from "../episode/takes.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { episodeFence, guardPath, readShowText } from "../paths/guarded.ts";
import { forgetJsonFile, parseJson } from "../store/json-file.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { upJsonName, upMp4Name } from "./fresh.ts";
import { recipeText, reduceShotRecipe } from "./recipe.ts";
import { versionEvent, writeRecord } from "./version-record.ts";

type EditServices = Pick<Services, "caches" | "locks" | "events" | "jobs">;

const label = (shot: string, take: number) => `${shot} t${String(take).padStart(2, "0")}`;

/** The take's record file and its value now; 404 when the take or its record is not there. */
async function recordOf(
  services: EditServices,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
): Promise<{ file: string; dir: string; stem: string; record: JsonObject | null }> {
  const t = (await listTakes(services, ep, pass, shot)).find((x) => x.take === take);
  if (!t) throw notFound(`${pass} take ${take} of ${shot} doesn't exist`);
  const dir = path.join(ep, passFolder(pass), safeShot(shot));
  const file = path.join(dir, upJsonName(t.stem));
  if (!t.files.includes(upJsonName(t.stem))) throw notFound(`${label(shot, take)} has no upscale`);
  let record: JsonObject | null = null;
  try {
    const v = parseJson(await readShowText(episodeFence(ep), file));
    record = isObject(v) ? v : null;
  } catch {
    record = null;
  }
  return { file, dir, stem: t.stem, record };
}

export async function deleteUpscale(
  services: EditServices,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
): Promise<{ shot: string; take: number; deleted: true }> {
  return withLock(services, ep, async () => {
    const { file, dir, stem, record } = await recordOf(services, ep, pass, shot, take);
    if (record?.status === "queued" && typeof record.job === "string") {
      const job = await (await services.jobs()).get(record.job).catch(() => null);
      if (job && (job.status === "queued" || job.status === "running")) {
        throw conflict(
          `${label(shot, take)}'s upscale is still in the ${job.lane} queue (${job.status}): cancel it first`,
        );
      }
    }
    await rm(await guardPath(episodeFence(ep), path.join(dir, upMp4Name(stem))), { force: true });
    await rm(await guardPath(episodeFence(ep), file), { force: true });
    forgetJsonFile(services, file);
    services.events.emit("studio.upscale", versionEvent(ep, shot, take, "deleted"));
    return { shot, take, deleted: true as const };
  });
}

export async function keepUpscale(
  services: EditServices,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  keep: boolean,
): Promise<{ shot: string; take: number; keep: boolean }> {
  return withLock(services, ep, async () => {
    const t = (await listTakes(services, ep, pass, shot)).find((x) => x.take === take);
    if (!t) throw notFound(`${pass} take ${take} of ${shot} doesn't exist`);
    const file = path.join(ep, passFolder(pass), safeShot(shot), upJsonName(t.stem));
    let record: JsonObject | null = null;
    if (t.files.includes(upJsonName(t.stem))) {
      try {
        const v = parseJson(await readShowText(episodeFence(ep), file));
        record = isObject(v) ? v : null;
      } catch {
        record = null;
      }
    }
    if (record?.status !== "ok") throw conflict(`${label(shot, take)} has no finished upscale to keep`);
    const next: JsonObject = { ...record };
    if (keep) next.keep = true;
    else delete next.keep;
    await writeRecord(services, ep, file, next);
    services.events.emit("studio.upscale", versionEvent(ep, shot, take, keep ? "kept" : "unkept"));
    return { shot, take, keep };
  });
}

export async function setShotRecipe(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  shot: string,
  recipe: Record<string, unknown> | null,
): Promise<{ shot: string; recipe: JsonObject | null; text: string | null }> {
  const reduced = reduceShotRecipe(recipe ?? {});
  if ("problems" in reduced) throw badRequest(reduced.problems.join("; "));
  const fields = reduced.fields;
  const empty = Object.keys(fields).length === 0;
  return withLock(services, ep, async () => {
    const file = await readOverrides(services, ep);
    const map: Record<string, JsonObject> = { ...(file.upscale ?? {}) };
    // A recipe is for a shot of the script; one left behind by a shot since removed can still be cleared.
    const story = await readStory(services, ep);
    const known = story?.sequences.some((q) => q.shots.some((x) => x.id === shot)) ?? true;
    if (!known && !(empty && Object.hasOwn(map, shot))) throw notFound(`shot: ${shot} is not in the script`);
    if (empty) delete map[shot];
    else map[shot] = fields;
    file.upscale = map;
    await writeOverrides(services, ep, file);
    return { shot, recipe: empty ? null : fields, text: empty ? null : recipeText(fields) };
  });
}
