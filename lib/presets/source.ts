// A picture a request names by `source_path` for a preset: an absolute path inside the configured roots (a preset
// belongs to no episode, so there is no folder for a relative path to start from).
import { stat } from "node:fs/promises";
import type { Services } from "../context.ts";
import { badRequest, forbidden, notFound, shown } from "../errors.ts";
import { realpathNearest } from "../paths/real.ts";
import { insideRoots, realRoots } from "../paths/roots.ts";
import { checkAbsolutePath } from "../paths/text.ts";

/** The real path of the file: 400 not absolute or a folder, 403 outside the roots (even when missing), 404 missing. */
export async function presetSourceFile(
  services: Pick<Services, "home" | "env" | "caches">,
  value: string,
  field = "source_path",
): Promise<string> {
  const abs = checkAbsolutePath(value, field);
  const found = await realpathNearest(abs).catch(() => null);
  if (found === null || !insideRoots(await realRoots(services), found.real)) {
    throw forbidden(`${field}: ${shown(value)} is outside the configured roots`);
  }
  if (!found.exists) throw notFound(`${field}: no file at ${shown(value)}`);
  const st = await stat(found.real).catch(() => null);
  if (st === null) throw notFound(`${field}: no file at ${shown(value)}`);
  if (!st.isFile()) throw badRequest(`${field}: ${shown(value)} is a folder, not a file`);
  return found.real;
}
