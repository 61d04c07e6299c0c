// Turns a request's `ep` into the real path of an episode folder inside a configured root.
import type { Services } from "../context.ts";
import { forbidden, notFound, StudioError } from "../errors.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import { samePath } from "./inside.ts";
import { realFolder, realpathNearest } from "./real.ts";
import { insideRoots, realRoots } from "./roots.ts";
import { checkAbsolutePath } from "./text.ts";

/**
 * Checks in the contract's order: malformed 400, outside every root 403 (even when missing), missing 404.
 * Symlinks are resolved before the root check, so a link out of a root is refused and a symlinked root works.
 * An episode lies strictly inside a root: the root itself is refused (403).
 */
export function resolveEpisode(
  ep: unknown,
  services: Pick<Services, "home" | "env" | "caches">,
  field = "ep",
): Promise<string> {
  return resolveFolder(ep, services, field, "episode folder", true);
}

/** The same checks for any folder inside a root (`parent` of a new episode, an import's target). */
export async function resolveFolder(
  value: unknown,
  services: Pick<Services, "home" | "env" | "caches">,
  field: string,
  noun = "folder",
  strictlyInside = false,
): Promise<string> {
  const abs = checkAbsolutePath(value, field);
  const roots = await realRoots(services);
  const outside = () =>
    forbidden(
      roots.length
        ? `${field}: "${abs}" is outside the configured roots`
        : `${field}: "${abs}" is outside the configured roots (no roots are configured; add one in the config)`,
    );
  let real: string;
  let isDirectory: boolean;
  try {
    ({ real, isDirectory } = await realFolder(services, abs));
  } catch (err) {
    const code = errorCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") {
      const nearest = await realpathNearest(abs);
      if (!insideRoots(roots, nearest.real)) throw outside();
      throw notFound(`${field}: no ${noun} at "${abs}"`);
    }
    if (code === "EACCES" || code === "EPERM") throw forbidden(`${field}: "${abs}" cannot be read`);
    if (code === "ELOOP") throw forbidden(`${field}: "${abs}" is a symbolic link loop`);
    throw new StudioError(500, `${field}: "${abs}" cannot be opened: ${errorMessage(err)}`);
  }
  if (!insideRoots(roots, real)) throw outside();
  // A root is where shows live; taking it as an episode would open the folder above it (its series.json).
  if (strictlyInside && roots.some((r) => samePath(r, real))) {
    throw forbidden(`${field}: "${abs}" is a configured root; an episode is a folder inside a root`);
  }
  if (!isDirectory) throw notFound(`${field}: no ${noun} at "${abs}" (it is a file)`);
  return real;
}
