// A file a request names by `source_path` for the reference routes to copy in: an absolute path inside the
// configured roots, or a path relative to the episode (where its series config opens, as every relative path).
import { stat } from "node:fs/promises";
import path from "node:path";
import { badRequest, forbidden, notFound, shown } from "../errors.ts";
import { type Fence, rootsFence } from "../paths/guarded.ts";
import { realpathNearest } from "../paths/real.ts";
import { resolveInEpisode } from "../paths/relative.ts";
import { insideRoots } from "../paths/roots.ts";
import { checkAbsolutePath } from "../paths/text.ts";
import type { RefsPlace } from "./place.ts";

export interface SourceFile {
  /** The real path of the file. */
  file: string;
  /** What it may be read through (the roots: a relative path never leads outside them either). */
  fence: Fence;
  /** The name the request gave it (a link's own name, not its target's): what judges its type. */
  name: string;
  size: number;
}

/** 403 outside the roots (even when missing), 404 missing, 400 a folder. */
export async function sourceFile(
  place: RefsPlace,
  value: unknown,
  field = "source_path",
): Promise<SourceFile> {
  let real: string;
  if (typeof value === "string" && (path.isAbsolute(value) || /^[A-Za-z]:[\\/]/.test(value))) {
    const abs = checkAbsolutePath(value, field);
    const found = await realpathNearest(abs).catch(() => null);
    if (found === null || !insideRoots(place.roots, found.real)) {
      throw forbidden(`${field}: ${shown(value)} is outside the configured roots`);
    }
    if (!found.exists) throw notFound(`${field}: no file at ${shown(value)}`);
    real = found.real;
  } else {
    real = await resolveInEpisode(place.ep, value, {
      field,
      series: place.series,
      roots: place.roots,
    });
  }
  const st = await stat(real).catch(() => null);
  if (st === null) throw notFound(`${field}: no file at ${shown(value)}`);
  if (!st.isFile()) throw badRequest(`${field}: ${shown(value)} is a folder, not a file`);
  const name = path.basename(String(value).replaceAll("\\", "/"));
  return { file: real, fence: rootsFence(place.roots), name, size: st.size };
}
