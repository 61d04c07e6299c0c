// POST /studio/features/install and /features/cancel: which items an install takes (by feature, file name or node
// class; installed, queued and uninstallable ones left out with the reason), the `install` job that fetches them,
// and stopping it.
import type { Services } from "../context.ts";
import { conflict } from "../errors.ts";
import { newJobId } from "../jobs/job-id.ts";
import type { Job } from "../jobs/types.ts";
import { buildCatalog, type CatalogModel } from "./catalog.ts";
import {
  featuresAnswer,
  type InstallJobView,
  type ItemView,
  installJobs,
  installJobView,
} from "./listing.ts";
import { freshTasks, writeInstallTasks } from "./state.ts";

type Svc = Parameters<typeof featuresAnswer>[0] & Pick<Services, "jobSignals">;

export interface InstallAsk {
  features?: string[];
  files?: string[];
  classes?: string[];
}

export interface InstallItem {
  key: string;
  name: string;
  folder: string;
  url: string;
  sha256?: string;
}

export interface InstallAnswer {
  job: string | null;
  queued: string[];
  skipped: string[];
}

export async function installFeatures(services: Svc, ask: InstallAsk): Promise<InstallAnswer> {
  const answer = await featuresAnswer(services);
  const catalog = new Map(
    buildCatalog(services.targets).flatMap((f) => f.items.map((i) => [i.key, i] as const)),
  );
  const views = new Map<string, ItemView>();
  for (const f of answer.features) for (const i of f.items) if (!views.has(i.key)) views.set(i.key, i);
  const skipped: string[] = [];
  const picked: ItemView[] = [];
  const pick = (view: ItemView) => {
    if (!picked.some((p) => p.key === view.key)) picked.push(view);
  };

  for (const id of ask.features ?? []) {
    const feature = answer.features.find((f) => f.id === id);
    if (!feature) skipped.push(`${id}: no such feature`);
    else for (const item of feature.items) pick(item);
  }
  for (const name of ask.files ?? []) {
    const view = [...views.values()].find(
      (v) => v.kind === "model" && v.name.toLowerCase() === name.toLowerCase(),
    );
    if (!view) skipped.push(`${name}: not a file any shipped target names`);
    else pick(view);
  }
  for (const cls of ask.classes ?? []) {
    const pack = [...catalog.values()].find((i) => i.kind === "pack" && i.classes.includes(cls));
    if (!pack)
      skipped.push(`${cls}: no node pack known for this class (core nodes come with updating ComfyUI)`);
    else pick(views.get(pack.key)!);
  }

  const inJob = new Set(
    answer.job.tasks.filter((t) => t.status === "queued" || t.status === "running").map((t) => t.key),
  );
  const wanted = picked.filter((v) => v.status !== "installed");
  if (wanted.length && answer.place.why_not) throw conflict(answer.place.why_not, { place: answer.place });
  const items: InstallItem[] = [];
  for (const view of wanted) {
    if (inJob.has(view.key)) {
      skipped.push(`${view.name}: already queued`);
      continue;
    }
    const item = catalog.get(view.key);
    if (view.note || !item || item.kind !== "model" || !item.url) {
      skipped.push(`${view.name}: ${view.note ?? "cannot be installed here"}`);
      continue;
    }
    items.push(modelItem(item, item.url));
  }
  if (items.length === 0 || !answer.place.root) return { job: null, queued: [], skipped };

  const store = await services.jobs();
  const id = newJobId();
  await writeInstallTasks(services.home, id, freshTasks(items));
  const job = await store.add({
    id,
    kind: "install",
    lane: "install",
    title: items.length === 1 ? `install ${items[0].name}` : `install ${items.length} model files`,
    info: { files: items.map((i) => i.name) },
    payload: { root: answer.place.root, items },
  });
  services.jobSignals.jobAdded();
  return { job: job.id, queued: items.map((i) => i.key), skipped };
}

function modelItem(item: CatalogModel, url: string): InstallItem {
  return {
    key: item.key,
    name: item.name,
    folder: item.folder,
    url,
    ...(item.sha256 ? { sha256: item.sha256 } : {}),
  };
}

/**
 * Stop installing: waiting install jobs end at once, the running one stops its download (the partial file kept for
 * the next install to resume) and starts no other item.
 */
export async function cancelInstall(
  services: Pick<Services, "jobs" | "home" | "jobSignals">,
): Promise<{ canceled: string[]; job: InstallJobView }> {
  const store = await services.jobs();
  const { active } = await installJobs(services);
  const canceled: string[] = [];
  for (const job of active) {
    let changed: Job;
    try {
      changed = await store.cancel(job.id);
    } catch {
      continue; // it ended meanwhile
    }
    if (changed.status === "running") services.jobSignals.cancelRequested(changed.id);
    canceled.push(job.id);
  }
  return { canceled, job: await installJobView(services) };
}
