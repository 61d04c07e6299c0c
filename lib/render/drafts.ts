// Drafts (contract rendering rule 9): a proxy take rendered as a draft on a router target records `draft` {task,
// made, expires}; the provider keeps it 7 days, and a final can be made from its task id alone. Here: the drafts the
// proxy cut plays (GET /studio/drafts), and the check of a render's `from_draft` before anything is queued.
import type { Services } from "../context.ts";
import { cutPick, folderTakes } from "../episode/cut-view.ts";
import { DRAFT_LIFE_MS, takeFileRel } from "../episode/take-summary.ts";
import { type TakeRecord, takeStatus } from "../episode/takes.ts";
import { loadViewInputs } from "../episode/view-inputs.ts";
import { badRequest, conflict, notFound, shown } from "../errors.ts";
import { isObject, str } from "../store/json-guards.ts";
import type { RenderRequest } from "./request.ts";
import { localIso } from "./time.ts";

export interface DraftRow {
  shot: string;
  take: number;
  thumb: string | null;
  mp4: string | null;
  expires: string | null;
  expired: boolean;
  /** Final takes of the shot made from this draft. */
  finals: number[];
  /** Whether the final cut plays one of those finals. */
  made_from_it: boolean;
  target: string | null;
}

/** The draft block of a take's sidecar, or null when the take is not a draft. */
export function draftOf(
  t: TakeRecord | null,
): { task: string; made: string | null; expires: string | null } | null {
  const d = t?.sidecar?.draft;
  if (!isObject(d)) return null;
  const task = str(d.task);
  return task ? { task, made: str(d.made), expires: str(d.expires) } : null;
}

/** When a draft can no longer be made final: its `expires`, else 7 days after it was made; null when unknown. */
export function draftExpiry(d: { made: string | null; expires: string | null }): number | null {
  const made = d.made ? Date.parse(d.made) : Number.NaN;
  if (Number.isFinite(made)) return made + DRAFT_LIFE_MS;
  const expires = d.expires ? Date.parse(d.expires) : Number.NaN;
  return Number.isFinite(expires) ? expires : null;
}

const expiredAt = (d: { made: string | null; expires: string | null }, now: Date) => {
  const at = draftExpiry(d);
  return at !== null && at < now.getTime();
};

const fromDraftTake = (t: TakeRecord): number | null => {
  const f = t.sidecar?.from_draft;
  return isObject(f) && typeof f.take === "number" ? f.take : null;
};

/** GET /studio/drafts: the draft take each shot of the proxy cut plays, with the finals made from it. */
export async function listDrafts(
  services: Pick<Services, "home" | "env" | "caches" | "now" | "targets">,
  ep: string,
): Promise<{ drafts: DraftRow[] }> {
  const proxy = await loadViewInputs(services, ep, "proxy");
  if (!proxy) throw notFound(`the proxy pass of ${ep} is not built: build the episode first`);
  const final = await loadViewInputs(services, ep, "final");
  const finalPicks = new Map<string, number | null>();
  for (const e of final?.cut ?? []) {
    const pick = cutPick(e, "final", await folderTakes(services, ep, e.pass ?? "final", e.shot));
    finalPicks.set(e.shot, pick.usable ? pick.number : null);
  }
  const now = services.now();
  const drafts: DraftRow[] = [];
  for (const e of proxy.cut) {
    const pass = e.pass ?? "proxy";
    if (pass !== "proxy") continue;
    const pick = cutPick(e, "proxy", await folderTakes(services, ep, pass, e.shot));
    const d = draftOf(pick.take);
    if (!pick.take || !pick.usable || !d) continue;
    const t = pick.take;
    const finals = (await folderTakes(services, ep, "final", e.shot))
      .filter((f) => fromDraftTake(f) === t.take)
      .map((f) => f.take);
    const inFinal = finalPicks.get(e.shot);
    const file = (name: unknown) =>
      typeof name === "string" && t.files.includes(name) ? takeFileRel(pass, e.shot, name) : null;
    const at = draftExpiry(d);
    drafts.push({
      shot: e.shot,
      take: t.take,
      thumb: file(t.sidecar?.thumb),
      mp4: file(t.sidecar?.mp4),
      expires: d.expires ?? (at !== null ? localIso(new Date(at)) : null),
      expired: expiredAt(d, now),
      finals,
      made_from_it: inFinal !== null && inFinal !== undefined && finals.includes(inFinal),
      target: str(t.sidecar?.target),
    });
  }
  return { drafts };
}

export interface DraftSource {
  take: number;
  task: string;
  target: string;
}

/** `from_draft` as sent: `{shot: take}` with whole take numbers; 400 otherwise. */
export function parseFromDraft(v: unknown): Record<string, number> | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw badRequest(`from_draft must be {shot: proxy draft take}; got ${shown(v)}`);
  const out: Record<string, number> = {};
  for (const [shot, take] of Object.entries(v)) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(shot)) throw badRequest(`from_draft: ${shown(shot)} is not a shot id`);
    if (typeof take !== "number" || !Number.isInteger(take) || take < 1)
      throw badRequest(`from_draft.${shot} must be a take number; got ${shown(take)}`);
    out[shot] = take;
  }
  return Object.keys(out).length ? out : null;
}

/**
 * The drafts a final is made from, checked: final pass only, each a finished proxy draft take (400 otherwise),
 * none expired (409).
 */
export async function draftSources(
  services: Pick<Services, "caches" | "now">,
  ep: string,
  pass: string,
  wanted: Record<string, number>,
): Promise<Record<string, DraftSource>> {
  if (pass !== "final") throw badRequest(`from_draft makes finals: send it with pass "final", not "${pass}"`);
  const out: Record<string, DraftSource> = {};
  for (const [shot, take] of Object.entries(wanted)) {
    const t = (await folderTakes(services, ep, "proxy", shot)).find((x) => x.take === take) ?? null;
    const name = `${shot} t${String(take).padStart(2, "0")}`;
    if (!t) throw badRequest(`from_draft: ${name} is not a proxy take of ${shot}`);
    const d = draftOf(t);
    if (!d)
      throw badRequest(`from_draft: ${name} is not a proxy draft take (it was not rendered as a draft)`);
    if (takeStatus(t) !== "ok")
      throw badRequest(`from_draft: ${name} is not a finished draft (${takeStatus(t)})`);
    if (expiredAt(d, services.now()))
      throw conflict(`from_draft: ${name} expired (drafts last 7 days); render a new draft first`);
    const target = str(t.sidecar?.target);
    if (!target) throw badRequest(`from_draft: ${name} records no target`);
    out[shot] = { take, task: d.task, target };
  }
  return out;
}

/**
 * A render with `from_draft`, checked and narrowed: exactly the drafts' shots, on the drafts' target, always a new
 * take. 400 when the drafts are on different targets or `shots` names other shots.
 */
export async function withDrafts(
  services: Pick<Services, "caches" | "now">,
  ep: string,
  req: RenderRequest,
): Promise<RenderRequest> {
  const wanted = req.fromDraftTakes;
  if (!wanted) return req;
  const sources = await draftSources(services, ep, req.pass, wanted);
  const shots = Object.keys(sources);
  const outside = req.shots ? shots.filter((s) => !req.shots?.includes(s)) : [];
  if (outside.length) throw badRequest(`from_draft names ${outside.join(", ")}, which shots leaves out`);
  const extra = (req.shots ?? []).filter((s) => !shots.includes(s));
  if (extra.length)
    throw badRequest(`shots names ${extra.join(", ")}, which from_draft does not: finals from drafts only`);
  const targets = [...new Set(Object.values(sources).map((d) => d.target))];
  if (targets.length > 1)
    throw badRequest(`from_draft: the drafts are on ${targets.join(" and ")}; send one request per target`);
  if (req.target && req.target !== targets[0])
    throw badRequest(`from_draft: the drafts were made on ${targets[0]}, not ${req.target}`);
  return { ...req, shots: req.shots ?? shots, target: targets[0], redo: true, fromDraft: sources };
}
