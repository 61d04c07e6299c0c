// The Settings view's mapping: server facts as label/value rows, a target's readiness as what is missing by tier,
// and the text fields' values turned into what PUT /studio/settings takes.
// Free of DOM and page imports so vitest can run it as plain TypeScript.

export interface Fact {
  label: string;
  value: string;
  /** `bad` for a tool that was not found (its reason is the value). */
  tone: "ok" | "bad" | null;
}

const LABELS: Record<string, string> = {
  service: "Service",
  version: "Version",
  node: "Node.js",
  roles: "Roles",
  host: "Address",
  port: "Port",
  settings: "Settings folder",
  ffmpeg: "ffmpeg",
  ffprobe: "ffprobe",
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function plain(v: unknown): string {
  if (v === null || v === undefined) return "–";
  if (Array.isArray(v)) return v.map(plain).join(", ");
  if (isRecord(v))
    return Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => `${k} ${plain(x)}`)
      .join(" · ");
  return String(v);
}

/**
 * `GET /studio/info` as rows, whatever fields it carries: a tool found reads `version (path)`, a tool not found its
 * reason; other objects are listed field by field.
 */
export function infoFacts(info: Record<string, unknown>): Fact[] {
  return Object.entries(info).map(([key, v]) => {
    const label = LABELS[key] ?? key.replace(/_/g, " ");
    if (isRecord(v) && "path" in v && (typeof v.error === "string" || typeof v.version === "string")) {
      if (typeof v.path === "string")
        return {
          label,
          value: `${typeof v.version === "string" ? v.version : "found"} (${v.path})`,
          tone: "ok",
        };
      return { label, value: `not found: ${v.error}`, tone: "bad" };
    }
    return { label, value: plain(v), tone: null };
  });
}

export type Tier = "required" | "accelerator" | "optional";

export interface MissingFile {
  param: string;
  tier: Tier;
  want: string;
  folder: string | null;
  url: string | null;
  source?: string;
  label?: string;
  passes?: ("final" | "proxy")[];
  feature?: string;
}

export interface Readiness {
  status: "ready" | "degraded" | "not_ready" | "unknown";
  missing: MissingFile[];
  features_off: string[];
  nodes_missing: string[];
  error?: string;
}

/** The fields of a `GET /studio/targets?ready=1` item this module reads. */
export interface ReadyTarget {
  id: string;
  label: string;
  short?: string;
  kind: string;
  draft?: boolean | unknown;
  custom?: boolean | unknown;
  readiness?: Readiness;
}

export interface ReadinessRow {
  id: string;
  label: string;
  kind: string;
  status: Readiness["status"] | "not asked";
  /** What the status means, in a few words. */
  summary: string;
  /** Missing files per tier, the tiers in the order they matter. */
  missing: { tier: Tier; files: MissingFile[] }[];
  nodes: string[];
  featuresOff: string[];
  error: string | null;
  isDefault: boolean;
}

const TIERS: Tier[] = ["required", "accelerator", "optional"];

const SUMMARY: Record<ReadinessRow["status"], string> = {
  ready: "ready",
  degraded: "ready, with less",
  not_ready: "not ready",
  unknown: "unknown",
  "not asked": "not checked",
};

/** One row per target, its missing files grouped by tier (required first) and the default marked. */
export function readinessRows(targets: ReadyTarget[], defaultId: string | null): ReadinessRow[] {
  return targets.map((t) => {
    const r = t.readiness;
    const missing = TIERS.map((tier) => ({
      tier,
      files: (r?.missing ?? []).filter((m) => m.tier === tier),
    })).filter((g) => g.files.length > 0);
    const status = r?.status ?? "not asked";
    return {
      id: t.id,
      label: t.label,
      kind: t.kind,
      status,
      summary: SUMMARY[status],
      missing,
      nodes: r?.nodes_missing ?? [],
      featuresOff: r?.features_off ?? [],
      error: r?.error ?? null,
      isDefault: t.id === defaultId,
    };
  });
}

/** A target's problems counted in a few words: `2 required files, 1 node missing · workflow problem`. */
export function detailSummary(row: ReadinessRow): string {
  const parts: string[] = [];
  for (const g of row.missing)
    parts.push(`${g.files.length} ${g.tier} file${g.files.length === 1 ? "" : "s"}`);
  if (row.nodes.length) parts.push(`${row.nodes.length} node${row.nodes.length === 1 ? "" : "s"}`);
  const missing = parts.length ? `${parts.join(", ")} missing` : "";
  const off = row.featuresOff.length ? `${row.featuresOff.length} off` : "";
  const error = row.error ? (row.status === "unknown" ? "the engine did not answer" : "see why") : "";
  return [missing, off, error].filter(Boolean).join(" · ");
}

/** Which passes a missing file holds back, when it is not both. */
export function passesNote(m: MissingFile): string {
  const p = m.passes ?? [];
  return p.length === 1 ? `${p[0]} pass only` : "";
}

/** What a tier's absence does, for the heading above its files. */
export function tierMeaning(tier: Tier): string {
  if (tier === "required") return "required: the target cannot render without";
  if (tier === "accelerator") return "accelerator: renders fall back to the base preset without";
  return "optional: a feature is off without";
}

/** A text box's value for an address or folder field: blank clears it (null). */
export function textValue(text: string): string | null {
  const t = text.trim();
  return t ? t : null;
}

/**
 * The paid-run cap as typed: blank is no cap (null); a whole number is sent as a number; anything else is sent
 * as typed so the service answers with its own rule.
 */
export function paidLimitValue(text: string): number | string | null {
  const t = text.trim();
  if (!t) return null;
  return /^\d+$/.test(t) ? Number(t) : t;
}

/** Deployment rows (target, address) as the settings object; blank rows are left out. */
export function deploymentsValue(rows: { target: string; url: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) {
    const target = r.target.trim();
    if (target) out[target] = r.url.trim();
  }
  return out;
}
