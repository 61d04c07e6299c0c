// The real path /file and /thumb serve: the contract's climb-out rules (a sibling's refs/_takes too); a folder is 404.
import { stat } from "node:fs/promises";
import type { Services } from "../context.ts";
import { notFound } from "../errors.ts";
import { resolveEpisodePath } from "../paths/relative.ts";

/** The real path of a file `rel` names for serving: the contract's climb-out rules, and a folder is 404. */
export async function servedFile(
  services: Pick<Services, "home" | "env" | "caches">,
  ep: string,
  rel: string,
): Promise<string> {
  const found = await resolveEpisodePath(services, ep, rel, { siblingRefTakes: true });
  const info = await stat(found.path);
  if (!info.isFile()) throw notFound(`path: ${JSON.stringify(rel)} is a folder, not a file`);
  return found.path;
}
