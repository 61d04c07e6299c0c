// POST /studio/refs/generate-missing: every reference a pass's renders read and nothing provides yet gets made.
// Series references (subjects, locations, voices) with no live file, not cleared and no candidate under way get
// one candidate each (a character missing all four views one four-view request); voice samples are made here on
// the voice target, since generate itself refuses voices. Keyframes are filled by how the script asks: a
// continuity frame cut from the previous shot's usable take (picked), an imported script path (picked), else a
// still. Each reference's problem is an `errors` entry; the events go out once, in the contract's order.
import { z } from "zod";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { readCutList } from "../episode/cut.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { readBuild } from "../episode/shotlists.ts";
import { takeUsable } from "../episode/takes.ts";
import { badRequest, notFound, StudioError } from "../errors.ts";
import { statShowOrNull } from "../paths/guarded.ts";
import { ep, passOr, targetIdOrBlank } from "../schema/fields.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type CatalogRef, readCatalog } from "./catalog.ts";
import { isVoice, readRefSettings } from "./effective.ts";
import {
  type CandidateError,
  type GenerateDeps,
  type GenerateScene,
  generateBody,
  type QueuedCandidate,
  queueGenerate,
} from "./generate.ts";
import { type CharacterView, type RefView, VIEWS } from "./ids.ts";
import { importRefTake } from "./import.ts";
import { cutKeyframe, previousInCut } from "./keyframe-cut.ts";
import { isCleared } from "./live.ts";
import { liveRefOf } from "./live-ref.ts";
import { type PicksFile, readPicks } from "./picks.ts";
import { liveFence, refsPlace } from "./place.ts";
import { type RefTakeRef, refEvent } from "./queue-ref.ts";
import { sourceFile } from "./source-file.ts";
import { copyFrom, listTakes, type RefTake } from "./takes.ts";

export const KINDS = ["series", "keyframe"] as const;
export type MissingKind = (typeof KINDS)[number];

export const generateMissingBody = z.object({
  ep,
  pass: passOr("proxy").describe(
    'The pass whose renders\' references are filled: "proxy" (default) or "final"',
  ),
  kinds: z
    .array(z.enum(KINDS))
    .min(1)
    .nullish()
    .describe("What to fill: series (subjects, locations, voices) and/or keyframe; default both"),
  target: targetIdOrBlank
    .nullish()
    .describe("An image target for the series references' pictures instead of each one's own"),
  keyframe_target: targetIdOrBlank
    .nullish()
    .describe("An image target for keyframe stills instead of the default"),
  dry_run: z.boolean().nullish().describe("Answer what would be done, writing and queueing nothing"),
});

export type GenerateMissingBody = z.output<typeof generateMissingBody>;

export type Method = "generate" | "continuity" | "import";

export interface MissingQueued extends QueuedCandidate {
  method: Method;
}

export interface MissingAnswer {
  queued: MissingQueued[];
  picked: { ref: string; take: number | null; method: Method }[];
  skipped: { ref: string; reason: string; view?: RefView }[];
  errors: CandidateError[];
}

type MissingServices = Parameters<typeof queueGenerate>[0] &
  Pick<Services, "home" | "env" | "caches" | "locks" | "now" | "events" | "media" | "targets">;

/** Events held back so that they go out in the contract's order (the episode event once, at the end). */
class HeldEvents {
  readonly held: { type: string; data: unknown }[] = [];
  readonly events = {
    emit: (type: string, data: unknown) => {
      if (type !== "studio.episode") this.held.push({ type, data });
    },
  };
}

const two = (n: number) => String(n).padStart(2, "0");

/** Why a reference (or a view) already has what it needs, or null when it needs a candidate. */
function coveredBy(takes: readonly RefTake[], view: RefView | null): string | null {
  const mine = takes.filter((t) => t.view === view);
  const queued = mine.find((t) => t.status === "queued");
  if (queued) return `t${two(queued.take)} is queued`;
  const done = mine.find((t) => t.usable);
  if (done) return `t${two(done.take)} is finished and waits to be picked`;
  return null;
}

/** A 400 for a target that is not an installed image target. */
function checkImageTarget(
  registry: GenerateScene["settings"]["registry"],
  field: string,
  id: string | null | undefined,
): string | null {
  if (!id) return null;
  const spec = registry.get(id);
  const known = registry.ids("image").join(", ") || "none";
  if (!spec) throw badRequest(`${field}: ${id} is not an installed target (image targets: ${known})`);
  if (spec.kind !== "image")
    throw badRequest(`${field}: ${id} makes ${spec.kind}, not pictures (image targets: ${known})`);
  return id;
}

/** Whether the shot before `shot` in the pass's cut has a usable take a continuity frame can be cut from. */
async function continuityReady(services: MissingServices, epReal: string, pass: Pass, shot: string) {
  const build = await readBuild(services, epReal, pass);
  if (!build) return false;
  const cut = await readCutList(services, epReal, pass);
  const before = previousInCut(cut, build, shot);
  if (!before) return false;
  const takes = await folderTakes(services, epReal, before.pass ?? pass, before.shot);
  return takes.some(takeUsable);
}

/** Fill what `pass` reads and lacks; answers at once (candidates are queued, not waited for). */
export async function generateMissing(
  services: MissingServices,
  epReal: string,
  body: GenerateMissingBody,
  deps: GenerateDeps,
): Promise<MissingAnswer> {
  const pass = body.pass;
  const kinds = new Set<MissingKind>(body.kinds ?? KINDS);
  const dryRun = body.dry_run === true;
  if (!(await readBuild(services, epReal, pass))) {
    throw notFound(`the ${pass} pass has no build: build the episode first`);
  }
  const place = await refsPlace(services, epReal);
  const [catalog, settings] = await Promise.all([
    readCatalog(services, place),
    readRefSettings(services, place),
  ]);
  const target = checkImageTarget(settings.registry, "target", body.target);
  const keyframeTarget = checkImageTarget(settings.registry, "keyframe_target", body.keyframe_target);
  const scene: GenerateScene = { place, catalog, settings };
  const fence = await liveFence(place);
  const picks: Record<"series" | "shot", Promise<PicksFile> | null> = { series: null, shot: null };
  const picksOf = (c: CatalogRef) => {
    const scope = c.ref.scope === "shot" ? "shot" : "series";
    picks[scope] ??= readPicks(services, place, c.ref);
    return picks[scope];
  };

  const answer: MissingAnswer = { queued: [], picked: [], skipped: [], errors: [] };
  const queuedTakes: RefTakeRef[] = [];
  const failedTakes: RefTakeRef[] = [];
  const held = new HeldEvents();
  const quiet = { ...services, events: held.events };

  /** One generate request of the reference (a view, or all four when null), its outcome gathered. */
  const queueOne = async (c: CatalogRef, view: RefView | null, method: Method, over: string | null) => {
    const req = generateBody.parse({
      ep: body.ep,
      ref: c.ref.id,
      ...(view ? { view } : {}),
      pass,
      ...(over ? { target: over } : {}),
    });
    try {
      const out = await queueGenerate(services, scene, req, deps, { voice: true, dryRun });
      for (const q of out.queued) answer.queued.push({ ...q, method });
      answer.errors.push(...out.errors);
      queuedTakes.push(...out.queuedTakes);
      failedTakes.push(...out.failedTakes);
    } catch (err) {
      answer.errors.push({ ref: c.ref.id, view, error: errorMessage(err) });
    }
  };

  for (const c of catalog.refs) {
    const series = c.ref.scope !== "shot";
    if (!kinds.has(series ? "series" : "keyframe")) continue;
    if (c.used_by[pass].length === 0) continue;
    const id = c.ref.id;
    let live: Awaited<ReturnType<typeof liveRefOf>>;
    try {
      live = await liveRefOf(place, c);
    } catch (err) {
      answer.errors.push({ ref: id, view: null, error: errorMessage(err) });
      continue;
    }
    if (await statShowOrNull(fence, live.file).catch(() => null)) {
      answer.skipped.push({ ref: id, reason: "its live file is there" });
      continue;
    }
    const entry = (await picksOf(c)).refs[id];
    if (isCleared(entry, null)) {
      answer.skipped.push({ ref: id, reason: "cleared: pick or generate it by hand" });
      continue;
    }
    const takes = (await listTakes(services, place, c.ref)).filter(
      (t) => t.view !== "pano" && t.view !== "tour",
    );

    if (series && live.stitches) {
      // A character sheet stitched from four views: only the views with nothing picked or under way are made.
      const missing: CharacterView[] = [];
      for (const view of VIEWS) {
        const picked = typeof entry?.views?.[view]?.take === "number";
        const why = isCleared(entry, view)
          ? "cleared: pick or generate it by hand"
          : picked
            ? "picked"
            : coveredBy(takes, view);
        if (why === null) missing.push(view);
        else if (why !== "picked") answer.skipped.push({ ref: id, view, reason: why });
      }
      if (missing.length === VIEWS.length) await queueOne(c, null, "generate", target);
      else for (const view of missing) await queueOne(c, view, "generate", target);
      continue;
    }
    const why = coveredBy(takes, null) ?? (c.kind === "character" ? coveredBy(takes, "sheet") : null);
    if (why) {
      answer.skipped.push({ ref: id, reason: why });
      continue;
    }
    if (series) {
      await queueOne(c, null, "generate", isVoice(c.ref) ? null : target);
      continue;
    }

    // A keyframe, by the script's method.
    const kf = c.keyframe;
    if (!kf) continue;
    if (kf.method === "import") {
      if (!kf.import_path) {
        answer.skipped.push({ ref: id, reason: "the script asks for an imported picture: import one" });
        continue;
      }
      if (dryRun) {
        answer.picked.push({ ref: id, take: null, method: "import" });
        continue;
      }
      try {
        const source = await sourceFile(place, kf.import_path);
        const made = await importRefTake(
          quiet,
          place,
          live,
          { name: source.name, file: source.file, fill: copyFrom(source.fence, source.file) },
          { view: null, pick: true },
        );
        answer.picked.push({ ref: id, take: made.take, method: "import" });
      } catch (err) {
        answer.errors.push({
          ref: id,
          view: null,
          error: `import of ${kf.import_path}: ${errorMessage(err)}`,
        });
      }
      continue;
    }
    if (kf.method === "continuity" && (await continuityReady(services, epReal, pass, kf.shot))) {
      if (dryRun) {
        answer.picked.push({ ref: id, take: null, method: "continuity" });
        continue;
      }
      try {
        const cut = await cutKeyframe(quiet, epReal, { pass, shot: kf.shot, which: kf.which, pick: true });
        answer.picked.push({ ref: id, take: cut.take.take, method: "continuity" });
      } catch (err) {
        const why = err instanceof StudioError ? err.message : errorMessage(err);
        answer.errors.push({ ref: id, view: null, error: `continuity frame: ${why}` });
      }
      continue;
    }
    await queueOne(c, null, "generate", keyframeTarget);
  }

  if (dryRun) return answer;
  if (answer.queued.length) deps.wake?.();
  for (const t of queuedTakes) services.events.emit("studio.ref", refEvent(t, "queued"));
  for (const e of held.held) services.events.emit(e.type, e.data);
  for (const t of failedTakes) services.events.emit("studio.ref", refEvent(t, "failed"));
  if (queuedTakes.length || held.held.length || failedTakes.length) {
    services.events.emit("studio.episode", { ep: place.ep });
  }
  return answer;
}
