// The "Models and node packs" panel's mapping: the features listing grouped for display with each file's download
// size, install tasks kept up to date from `studio.features` events, progress in words, and which missing files a
// target's readiness names that the service can fetch. Free of DOM and page imports so vitest runs it as plain TS.

export type ItemStatus = "installed" | "missing" | "restart" | "unknown";
export type FeatureStatus = "installed" | "partial" | "missing" | "restart" | "unknown" | "unavailable";
export type TaskStatus = "queued" | "running" | "done" | "failed" | "canceled";

export interface FeatureItem {
  key: string;
  kind: "model" | "pack" | "pip" | "ffmpeg";
  name: string;
  folder?: string;
  url?: string | null;
  target?: string;
  where?: string;
  tier?: string;
  feature?: string;
  gated?: boolean;
  licence?: string | null;
  status: ItemStatus;
  /** Why the service cannot install it, when it cannot. */
  note?: string;
}

export interface Feature {
  id: string;
  group: string;
  label: string;
  about: string;
  restart: boolean;
  status: FeatureStatus;
  items: FeatureItem[];
}

export interface InstallTask {
  key: string;
  kind: string;
  name: string;
  folder: string;
  status: TaskStatus;
  bytes: number;
  total: number | null;
  error: string | null;
  note: string | null;
}

export interface Place {
  root: string | null;
  custom_nodes: string | null;
  python: string | null;
  why_not: string | null;
}

/** `GET /studio/features`. */
export interface FeaturesAnswer {
  groups: { id: string; label: string; about: string }[];
  features: Feature[];
  place: Place;
  hf_token: boolean;
  job: { running: boolean; restart: boolean; ids?: string[]; tasks: InstallTask[] };
}

/** A `studio.features` event. */
export interface FeaturesEvent {
  job: string;
  task: InstallTask;
}

export type Sizes = Record<string, number | null>;

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** Bytes as a person reads a download: `840 KB`, `312 MB`, `4.7 GB`; `–` when not known. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n) || n < 0) return "–";
  if (n >= GB) return `${(n / GB).toFixed(n >= 100 * GB ? 0 : 1)} GB`;
  if (n >= MB) return `${Math.round(n / MB)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} B`;
}

export interface ItemRow extends FeatureItem {
  size: number | null;
  /** The service can fetch it now: a missing model file with a recorded address and no note against it. */
  installable: boolean;
  task: InstallTask | null;
}

export interface FeatureRow extends Omit<Feature, "items"> {
  items: ItemRow[];
  /** Bytes the installable missing files add up to, null when one of them has no known size. */
  missingBytes: number | null;
  installable: number;
  /** Any of its files queued or being fetched. */
  active: boolean;
}

export interface GroupRow {
  id: string;
  label: string;
  about: string;
  features: FeatureRow[];
}

const ACTIVE: ReadonlySet<TaskStatus> = new Set(["queued", "running"]);
export const isActive = (t: InstallTask | null | undefined) => !!t && ACTIVE.has(t.status);

export function itemRow(item: FeatureItem, sizes: Sizes, tasks: readonly InstallTask[]): ItemRow {
  const size = item.url ? (sizes[item.url] ?? null) : null;
  return {
    ...item,
    size,
    installable: item.kind === "model" && item.status === "missing" && !!item.url && !item.note,
    task: tasks.find((t) => t.key === item.key) ?? null,
  };
}

/** The listing by group, in the service's order, each file with its size and its task, if any. */
export function featureGroups(
  answer: FeaturesAnswer,
  sizes: Sizes,
  tasks: readonly InstallTask[],
): GroupRow[] {
  return answer.groups.map((g) => ({
    ...g,
    features: answer.features
      .filter((f) => f.group === g.id)
      .map((f) => {
        const items = f.items.map((i) => itemRow(i, sizes, tasks));
        const toInstall = items.filter((i) => i.installable);
        const missingBytes = toInstall.every((i) => i.size !== null)
          ? toInstall.reduce((sum, i) => sum + (i.size ?? 0), 0)
          : null;
        return {
          ...f,
          items,
          missingBytes,
          installable: toInstall.length,
          active: items.some((i) => isActive(i.task)),
        };
      }),
  }));
}

/** The tasks with one event's task put in place (by key), a new key added at the end. */
export function withTask(tasks: readonly InstallTask[], task: InstallTask): InstallTask[] {
  const at = tasks.findIndex((t) => t.key === task.key);
  if (at < 0) return [...tasks, task];
  return tasks.map((t, i) => (i === at ? task : t));
}

/** How far a task is, 0 to 1, or null while its size is not known. */
export function taskFraction(t: InstallTask): number | null {
  if (t.status === "done") return 1;
  if (!t.total) return null;
  return Math.min(1, t.bytes / t.total);
}

/** A task's state in a few words: `queued`, `120 MB of 1.2 GB · 10%`, `done · SHA-256 checked`. */
export function taskText(t: InstallTask): string {
  const amount = t.total ? `${formatBytes(t.bytes)} of ${formatBytes(t.total)}` : formatBytes(t.bytes);
  switch (t.status) {
    case "queued":
      return "queued";
    case "running": {
      const f = taskFraction(t);
      return f === null ? `${amount} so far` : `${amount} · ${Math.floor(f * 100)}%`;
    }
    case "done":
      return t.note ? `done · ${t.note}` : "done";
    case "canceled":
      return t.bytes > 0 ? `canceled at ${amount}` : "canceled";
    case "failed":
      return "failed";
  }
}

const FEATURE_STATUS: Record<FeatureStatus, string> = {
  installed: "installed",
  partial: "partly installed",
  missing: "not installed",
  restart: "restart ComfyUI",
  unknown: "not known",
  unavailable: "install by hand",
};
export const featureStatusText = (s: FeatureStatus) => FEATURE_STATUS[s] ?? s;

const ITEM_STATUS: Record<ItemStatus, string> = {
  installed: "installed",
  missing: "missing",
  restart: "restart ComfyUI",
  unknown: "not known",
};
export const itemStatusText = (s: ItemStatus) => ITEM_STATUS[s] ?? s;

/** A file's place in words: `models/checkpoints`, a pack's `custom_nodes/<name>`. */
export function itemPlace(i: FeatureItem): string {
  if (i.kind === "model" && i.folder) return `models/${i.folder}`;
  if (i.kind === "pack") return `custom_nodes/${i.name}`;
  return i.where ?? "";
}

/** The missing files of a target's readiness the service records an address for, each name once. */
export function downloadableFiles(missing: readonly { want: string; url: string | null }[]): string[] {
  const names: string[] = [];
  for (const m of missing) if (m.url && !names.includes(m.want)) names.push(m.want);
  return names;
}

/** The tasks for the given file names (as a target's readiness names them), matched without case. */
export function tasksForFiles(tasks: readonly InstallTask[], names: readonly string[]): InstallTask[] {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return tasks.filter((t) => wanted.has(t.name.toLowerCase()));
}

/** What an install answered, in words: how many files were queued (the reasons for the rest are shown as written). */
export function installSummary(a: { queued: string[] }): string {
  const n = a.queued.length;
  return n ? `${n} file${n === 1 ? "" : "s"} queued` : "nothing queued";
}
