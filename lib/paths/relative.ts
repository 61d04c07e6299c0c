// Resolves a path relative to an episode and enforces where it may lead: the episode, and above it only what
// its series config opens (contract conventions; api extras 5.2, 5.4).
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { badRequest, forbidden, notFound, StudioError } from "../errors.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { resolveEpisode } from "./episode.ts";
import { isInsideOrEqual, samePath, segmentsBelow } from "./inside.ts";
import { realpathNearest } from "./real.ts";
import { insideRoots, realRoots } from "./roots.ts";
import { type SeriesHome, type SeriesSituation, seriesHome } from "./series-home.ts";
import { checkRelativePath } from "./text.ts";

export interface ResolveOptions {
  /** Field name used in error messages (default `path`). */
  field?: string;
  /** Which series config applies (from `seriesHome`). Absent: nothing above the episode opens. */
  series?: SeriesSituation | null;
  /** File serving only: a sibling's reference candidates `../<sibling>/refs/_takes/...` open too. */
  siblingRefTakes?: boolean;
  /** Real configured roots; when given, whatever the path reaches must lie inside one (403). */
  roots?: readonly string[];
  /** Default true: a missing target is 404. Writers pass false to get the path a new file would take. */
  mustExist?: boolean;
  /** Status for a symbolic link that leads outside what is open: 403 (default, /file) or 400 (peaks). */
  linkEscapeStatus?: 400 | 403;
}

const RENDERS = new Set(["renders", "renders_proxy"]);

/**
 * The real path `rel` names. `..` is refused (400) unless it lands where the series config opens:
 * the whole parent when the config is the parent's, the parent's refs/ and audio/ when the episode's own config
 * names them, or (file serving) a sibling's refs/_takes/. A sibling's renders never open. Links are resolved
 * and re-checked, so a link leading out is refused (403).
 */
export async function resolveInEpisode(
  epReal: string,
  rel: unknown,
  opts: ResolveOptions = {},
): Promise<string> {
  const field = opts.field ?? "path";
  const segments = checkRelativePath(rel, field);
  const shown = JSON.stringify(rel);
  const series = opts.series ?? { inParent: false, opensParentRefsAudio: false };
  const parent = path.dirname(epReal);
  const lexical = path.resolve(epReal, ...segments);

  if (segments.includes("..")) {
    const area = climbArea(epReal, lexical, series, opts.siblingRefTakes === true);
    if (area === "sibling-renders") {
      throw badRequest(`${field}: ${shown} reaches another episode's renders, which are never served`);
    }
    if (area === null && isInsideOrEqual(epReal, lexical)) {
      throw badRequest(`${field}: ${shown} must not use ".." inside the episode; write the path without it`);
    }
    if (area === null) {
      throw badRequest(
        `${field}: ${shown} leaves the episode folder; ".." may only lead where the series config opens (${opened(series)})`,
      );
    }
    if (opts.roots && !insideRoots(opts.roots, parent)) {
      throw forbidden(`${field}: ${shown} leads above the episode to a folder outside the configured roots`);
    }
  }

  let found: { real: string; exists: boolean };
  try {
    found = await realpathNearest(lexical);
  } catch (err) {
    const code = errorCode(err);
    if (code === "EACCES" || code === "EPERM") throw forbidden(`${field}: ${shown} cannot be read`);
    if (code === "ELOOP") throw forbidden(`${field}: ${shown} is a symbolic link loop`);
    throw new StudioError(500, `${field}: ${shown} cannot be opened: ${errorMessage(err)}`);
  }
  const { real, exists } = found;
  if (!(await realAllowed(epReal, real, series, opts.siblingRefTakes === true, opts.roots))) {
    const status = opts.linkEscapeStatus ?? 403;
    throw new StudioError(status, `${field}: ${shown} is a link that leads outside the episode`);
  }
  if (opts.roots && !insideRoots(opts.roots, real)) {
    throw forbidden(`${field}: ${shown} leads outside the configured roots`);
  }
  if (!exists && opts.mustExist !== false) throw notFound(`${field}: no file at ${shown} in the episode`);
  return real;
}

export interface EpisodePath {
  ep: string;
  path: string;
  series: SeriesHome;
}

/** `resolveEpisode`, `seriesHome` and `resolveInEpisode` in one call, with the configured roots applied. */
export async function resolveEpisodePath(
  services: Pick<Services, "home" | "env" | "caches">,
  ep: unknown,
  rel: unknown,
  opts: Omit<ResolveOptions, "series" | "roots"> = {},
): Promise<EpisodePath> {
  const epReal = await resolveEpisode(ep, services);
  const roots = await realRoots(services);
  const series = await seriesHome(services, epReal, roots);
  const real = await resolveInEpisode(epReal, rel, { ...opts, series, roots });
  return { ep: epReal, path: real, series };
}

type Area = "episode" | "parent" | "parent-shared" | "sibling-takes" | "sibling-renders";

// Where a lexically resolved path lands, judged against what the series situation opens.
function climbArea(epReal: string, p: string, series: SeriesSituation, siblingTakes: boolean): Area | null {
  const parent = path.dirname(epReal);
  if (samePath(parent, epReal)) return null;
  if (series.inParent) {
    if (isSiblingRenders(epReal, p)) return "sibling-renders";
    if (isInsideOrEqual(parent, p)) return "parent";
  }
  if (series.opensParentRefsAudio) {
    if (isInsideOrEqual(path.join(parent, "refs"), p) || isInsideOrEqual(path.join(parent, "audio"), p)) {
      return "parent-shared";
    }
  }
  if (siblingTakes && isSiblingTakes(epReal, p)) return "sibling-takes";
  if (isSiblingRenders(epReal, p)) return "sibling-renders";
  return null;
}

async function realAllowed(
  epReal: string,
  real: string,
  series: SeriesSituation,
  siblingTakes: boolean,
  roots: readonly string[] | undefined,
): Promise<boolean> {
  if (isInsideOrEqual(epReal, real)) return true;
  const area = climbArea(epReal, real, series, siblingTakes);
  if (area !== null && area !== "sibling-renders") return true;
  if (!series.opensParentRefsAudio) return false;
  // A show's shared refs/ or audio/ may itself be a link to storage elsewhere inside a root.
  const parent = path.dirname(epReal);
  for (const name of ["refs", "audio"]) {
    const target = await realpath(path.join(parent, name)).catch(() => null);
    if (target && (!roots || insideRoots(roots, target)) && isInsideOrEqual(target, real)) return true;
  }
  return false;
}

function otherEpisodeParts(epReal: string, p: string): string[] | null {
  const parts = segmentsBelow(path.dirname(epReal), p);
  if (!parts || parts.length < 2 || samePath(parts[0], path.basename(epReal))) return null;
  return parts;
}

function isSiblingRenders(epReal: string, p: string): boolean {
  const parts = otherEpisodeParts(epReal, p);
  return parts !== null && RENDERS.has(parts[1].toLowerCase());
}

function isSiblingTakes(epReal: string, p: string): boolean {
  const parts = otherEpisodeParts(epReal, p);
  return parts !== null && parts.length >= 3 && parts[1] === "refs" && parts[2] === "_takes";
}

function opened(series: SeriesSituation): string {
  if (series.inParent) return "the show folder, since its series.json is there";
  if (series.opensParentRefsAudio) return "the show's refs/ and audio/ folders";
  return "nothing above the episode";
}
