// GET /studio/features: the catalog with what is installed (on the engine's disk, or as the target's readiness on
// the local ComfyUI says), where installs go, whether a download token is held, and the install job's tasks.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { Job } from "../jobs/types.ts";
import { errorMessage } from "../store/json-guards.ts";
import { readinessOf } from "../targets/listing.ts";
import { baseName, type Readiness } from "../targets/models.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { buildCatalog, type CatalogFeature, type CatalogItem, GROUPS } from "./catalog.ts";
import { installPlace, modelsDir, type Place } from "./place.ts";
import { type InstallTask, readInstallTasks } from "./state.ts";
import { hfToken } from "./token.ts";

type Svc = Pick<Services, "home" | "env" | "log" | "engines" | "targets" | "caches" | "media" | "jobs">;

export type ItemStatus = "installed" | "missing" | "restart" | "unknown";
export type FeatureStatus = "installed" | "partial" | "missing" | "restart" | "unknown" | "unavailable";

export interface ItemView {
  key: string;
  kind: "model" | "pack";
  name: string;
  folder?: string;
  url: string | null;
  target: string;
  where: string;
  tier: string;
  feature?: string;
  status: ItemStatus;
  /** Why the item cannot be installed by the service, when it cannot. */
  note?: string;
}

export interface FeatureView {
  id: string;
  group: string;
  label: string;
  about: string;
  restart: boolean;
  status: FeatureStatus;
  items: ItemView[];
}

export interface InstallJobView {
  running: boolean;
  restart: boolean;
  /** The install jobs the tasks come from (queued or running ones, else the last one). */
  ids: string[];
  tasks: InstallTask[];
}

const isFile = (p: string) =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
const isDir = (p: string) =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

const lower = (name: string) => baseName(name).toLowerCase();

/** Files the readiness found (exactly or by family) and files it reports missing, by lower-case name. */
function readinessFiles(r: Readiness): { found: Set<string>; missing: Set<string> } {
  const missing = new Set(r.missing.map((m) => lower(m.want)));
  const found = new Set<string>();
  for (const res of Object.values(r.by_pass)) {
    if (!res) continue;
    for (const p of Object.values(res.params))
      if (p.using !== null && p.how !== "off") found.add(lower(p.want));
    for (const l of res.loras) if (!missing.has(lower(l.name))) found.add(lower(l.name));
  }
  return { found, missing };
}

const PACK_NOTE =
  "node packs are installed with git and pip from the internet, which this service does not do: install it with ComfyUI-Manager, then restart ComfyUI";

/** The project's own pack: no public list has it, so the note says where it must come from instead. */
const ownPackNote = (name: string, tier: string) =>
  `${name} is the project's own node pack and is not shipped here, so nothing here installs it: copy it into ComfyUI's custom_nodes folder yourself, then restart ComfyUI${tier === "required" ? "" : " (the target renders without it)"}`;

export function notInstallable(item: CatalogItem): string | null {
  if (item.kind === "pack") return item.own ? ownPackNote(item.name, item.tier) : PACK_NOTE;
  if (!item.url) return `no trustworthy download address is recorded: ${item.source}`;
  return null;
}

async function itemView(
  item: CatalogItem,
  target: string,
  place: Place,
  r: Readiness | undefined,
): Promise<ItemView> {
  const root = place.why_not ? null : place.root;
  const note = notInstallable(item);
  if (item.kind === "pack") {
    const dir = root ? path.join(root, "custom_nodes", item.name) : null;
    return {
      key: item.key,
      kind: "pack",
      name: item.name,
      url: null,
      target,
      where: dir ?? `custom_nodes/${item.name}`,
      tier: item.tier,
      status: dir ? ((await isDir(dir)) ? "installed" : "missing") : "unknown",
      ...(note ? { note } : {}),
    };
  }
  const dir = root ? modelsDir(root, item.folder) : null;
  let status: ItemStatus = dir ? "missing" : "unknown";
  if (dir && (await isFile(path.join(dir, item.name)))) status = "installed";
  else if (r && r.status !== "unknown") {
    const { found, missing } = readinessFiles(r);
    if (found.has(lower(item.name))) status = "installed";
    else if (missing.has(lower(item.name))) status = "missing";
  }
  return {
    key: item.key,
    kind: "model",
    name: item.name,
    folder: item.folder,
    url: item.url,
    target,
    where: dir ?? `models/${item.folder}`,
    tier: item.tier,
    ...(item.feature ? { feature: item.feature } : {}),
    status,
    ...(note && status !== "installed" ? { note } : {}),
  };
}

function featureStatus(items: readonly ItemView[]): FeatureStatus {
  const count = (s: ItemStatus) => items.filter((i) => i.status === s).length;
  if (count("installed") === items.length) return "installed";
  if (count("restart") > 0 && count("missing") === 0) return "restart";
  if (count("missing") === 0) return "unknown";
  if (count("installed") > 0) return "partial";
  return items.some((i) => i.status === "missing" && !i.note) ? "missing" : "unavailable";
}

async function readinessByTarget(services: Svc, catalog: readonly CatalogFeature[]) {
  const specs = catalog.map((f) => services.targets.get(f.target)).filter((s): s is TargetSpec => !!s);
  try {
    const checked = await readinessOf(services, specs, null);
    return new Map([...checked].map(([id, c]) => [id, c.readiness]));
  } catch (err) {
    services.log.debug(`features: readiness not known: ${errorMessage(err)}`);
    return new Map<string, Readiness>();
  }
}

const ENDED = new Set(["succeeded", "failed", "canceled"]);

/** The tasks as they stand, with a job that ended before its worker closed them shown ended too. */
function settle(job: Job, tasks: InstallTask[]): InstallTask[] {
  if (!ENDED.has(job.status)) return tasks;
  const to = job.status === "canceled" ? "canceled" : "failed";
  return tasks.map((t) =>
    t.status === "queued" || t.status === "running"
      ? {
          ...t,
          status: to,
          ...(to === "failed" ? { error: t.error ?? job.error ?? "the install job ended" } : {}),
        }
      : t,
  );
}

/** Install jobs, newest first, and those still queued or running. */
export async function installJobs(services: Pick<Services, "jobs">): Promise<{ all: Job[]; active: Job[] }> {
  const store = await services.jobs();
  const all = (await store.list()).jobs.filter((j) => j.kind === "install");
  all.sort((a, b) => b.created.localeCompare(a.created));
  return { all, active: all.filter((j) => !ENDED.has(j.status)) };
}

export async function installJobView(services: Pick<Services, "jobs" | "home">): Promise<InstallJobView> {
  const { all, active } = await installJobs(services);
  const shown = active.length ? [...active].reverse() : all.slice(0, 1);
  const tasks: InstallTask[] = [];
  for (const job of shown) tasks.push(...settle(job, (await readInstallTasks(services.home, job.id)) ?? []));
  return { running: active.length > 0, restart: false, ids: shown.map((j) => j.id), tasks };
}

export interface FeaturesAnswer {
  groups: typeof GROUPS;
  features: FeatureView[];
  place: Place;
  hf_token: boolean;
  job: InstallJobView;
}

export async function featuresAnswer(services: Svc): Promise<FeaturesAnswer> {
  const catalog = buildCatalog(services.targets);
  const [place, readiness, token, job] = await Promise.all([
    installPlace(services),
    readinessByTarget(services, catalog),
    hfToken(services),
    installJobView(services),
  ]);
  const features = await Promise.all(
    catalog.map(async (f): Promise<FeatureView> => {
      const items = await Promise.all(
        f.items.map((i) => itemView(i, f.target, place, readiness.get(f.target))),
      );
      return {
        id: f.id,
        group: f.group,
        label: f.label,
        about: f.about,
        restart: f.restart,
        status: featureStatus(items),
        items,
      };
    }),
  );
  const groups = GROUPS.filter((g) => features.some((f) => f.group === g.id));
  return { groups, features, place, hf_token: token !== null, job };
}
