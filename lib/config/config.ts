// The Config resource: configured roots, engine address and review_copy, stored in <home>/default/studio/config.json.
import { realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Services } from "../context.ts";
import { badRequest, StudioError } from "../errors.ts";
import { isInsideOrEqual } from "../paths/inside.ts";
import { realpathNearest } from "../paths/real.ts";
import { writeJsonAtomic } from "../store/atomic.ts";
import { forgetJsonFile, readJsonFile } from "../store/json-file.ts";
import { errorCode, errorMessage, isObject } from "../store/json-guards.ts";
import { recordKind } from "../store/record.ts";
import { studioDataDir } from "./home.ts";
import { type Mounted, mountedAnswer, mountedComfy } from "./mounted.ts";
import { readSettings } from "./settings.ts";

/** `config.json`: the stored roots and `version` 1 (contract versioning 9.2); unknown fields are kept on read. */
export const configRecord = recordKind({
  version: z.number().int(),
  roots: z.array(z.string()),
  review_copy: z.boolean(),
});

export interface Config {
  roots: string[];
  /** The node-graph backend's address (reported, never stored). */
  engine: string;
  review_copy: boolean;
  version: 1;
  /** The ComfyUI this service runs inside (STUDIO_MOUNTED_COMFY), or null when it stands alone. */
  mounted: Mounted | null;
}

export interface ConfigUpdate {
  roots: readonly string[];
  review_copy?: boolean;
}

export const DEFAULT_ENGINE = "http://127.0.0.1:8188";

type ConfigServices = Pick<Services, "home" | "env" | "caches">;

export function configFile(services: Pick<Services, "home">): string {
  return path.join(studioDataDir(services.home), "config.json");
}

/** The config in force. An absent file means roots from STUDIO_ROOTS (else none); a broken file is a 500. */
export async function readConfig(services: ConfigServices): Promise<Config> {
  // Both files sit in the settings folder: read at once, they share one look at it.
  const [stored, engine] = await Promise.all([readStored(services), engineAddress(services)]);
  return {
    roots: stored ? stored.roots : envRoots(services.env),
    engine,
    review_copy: stored?.review_copy ?? false,
    version: 1,
    mounted: mountedAnswer(services.env),
  };
}

/** Just the roots in force (no settings read): what path checks need on every request. */
export async function configRoots(services: ConfigServices): Promise<string[]> {
  const stored = await readStored(services);
  return stored ? stored.roots : envRoots(services.env);
}

/** Validate and store new roots; `review_copy` keeps its stored value when omitted. Returns the new config. */
export async function writeConfig(services: ConfigServices, update: ConfigUpdate): Promise<Config> {
  if (!Array.isArray(update.roots)) throw badRequest("roots must be a list of folder paths");
  const roots: string[] = [];
  for (const [i, value] of update.roots.entries()) {
    const root = await checkRoot(value, i);
    await checkRootScope(services, root, `roots[${i}]`);
    if (!roots.some((r) => sameRoot(r, root))) roots.push(root);
  }
  const stored = await readStored(services);
  const review_copy = update.review_copy ?? stored?.review_copy ?? false;
  const file = configFile(services);
  await writeJsonAtomic(file, { roots, review_copy, version: 1 });
  forgetJsonFile(services, file);
  return readConfig(services);
}

/** STUDIO_ROOTS split on the platform's path list separator, blanks dropped, made absolute. */
export function envRoots(env: Services["env"]): string[] {
  const raw = env.STUDIO_ROOTS;
  if (!raw) return [];
  const out: string[] = [];
  for (const part of raw.split(path.delimiter)) {
    const trimmed = part.trim();
    if (!trimmed || trimmed.includes("\0")) continue;
    const root = path.resolve(trimmed);
    if (!out.some((r) => sameRoot(r, root))) out.push(root);
  }
  return out;
}

interface Stored {
  roots: string[];
  review_copy: boolean;
}

async function readStored(services: ConfigServices): Promise<Stored | undefined> {
  const file = configFile(services);
  const raw = await readJsonFile(services, file, "config.json");
  if (raw === undefined) return undefined;
  const obj = configRecord.parse(raw);
  if (!isObject(raw) || obj === null) {
    throw new StudioError(500, `config.json at ${file} must be a JSON object`);
  }
  // A roots value of the wrong type reads as null: refused rather than taken for "no roots".
  if (obj.roots === null && raw.roots !== null) {
    throw new StudioError(500, `config.json at ${file}: roots must be a list of folder paths`);
  }
  return { roots: obj.roots ?? [], review_copy: obj.review_copy === true };
}

async function checkRoot(value: unknown, i: number): Promise<string> {
  const field = `roots[${i}]`;
  if (typeof value !== "string" || !value.trim()) throw badRequest(`${field} must be a folder path`);
  if (value.includes("\0")) throw badRequest(`${field}: ${JSON.stringify(value)} contains a NUL byte`);
  if (!path.isAbsolute(value)) throw badRequest(`${field}: "${value}" must be an absolute folder path`);
  const root = path.resolve(value);
  try {
    const st = await stat(root);
    if (!st.isDirectory()) throw badRequest(`${field}: "${root}" is not a folder`);
  } catch (err) {
    if (err instanceof StudioError) throw err;
    const code = errorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") throw badRequest(`${field}: "${root}" does not exist`);
    throw badRequest(`${field}: "${root}" cannot be read (${code ?? errorMessage(err)})`);
  }
  return root;
}

/**
 * A root opens everything below it to the API, so it must be a folder the user could mean for shows: not a
 * file-system or drive root, not the settings folder or a folder holding it, not the home folder or above it.
 */
async function checkRootScope(services: ConfigServices, root: string, field: string): Promise<void> {
  const real = await realpath(root).catch(() => root);
  const shown = real === root ? `"${root}"` : `"${root}" (a link to "${real}")`;
  if (path.parse(real).root === real) {
    throw badRequest(`${field}: ${shown} is the top of a drive; choose the folder that holds your shows`);
  }
  const home = (await realpathNearest(services.home)).real;
  if (isInsideOrEqual(real, home)) {
    throw badRequest(
      `${field}: ${shown} holds the service's settings folder (${services.home}); choose the folder that holds your shows`,
    );
  }
  const userHome = services.env.HOME?.trim() || services.env.USERPROFILE?.trim() || os.homedir();
  const realUserHome = (await realpathNearest(userHome)).real;
  if (isInsideOrEqual(real, realUserHome)) {
    throw badRequest(
      `${field}: ${shown} holds your home folder (${userHome}) and everything in it; choose the folder that holds your shows`,
    );
  }
}

// Roots differing only in case are the same folder on the case-insensitive file systems of Windows and macOS.
function sameRoot(a: string, b: string): boolean {
  if (process.platform === "win32" || process.platform === "darwin")
    return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

async function engineAddress(services: ConfigServices): Promise<string> {
  const fromEnv = services.env.STUDIO_ENGINE_URL?.trim();
  if (fromEnv) return fromEnv;
  try {
    const settings = await readSettings(services);
    for (const key of ["engine_url", "local_url"]) {
      const value = settings[key];
      if (typeof value === "string" && value.trim()) return value.trim();
    }
  } catch {
    // A broken settings file is reported by the settings routes; the config still answers.
  }
  return mountedComfy(services.env) ?? DEFAULT_ENGINE;
}
