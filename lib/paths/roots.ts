// The configured roots as real paths, so containment is judged after symlinks are resolved.
import { configRoots } from "../config/config.ts";
import type { Services } from "../context.ts";
import { isInsideOrEqual, samePath } from "./inside.ts";
import { realFolder } from "./real.ts";

/** Realpath of every configured root that exists now (a root that vanished opens nothing). */
export async function realRoots(services: Pick<Services, "home" | "env" | "caches">): Promise<string[]> {
  const roots = await configRoots(services);
  const real = await Promise.all(
    roots.map((r) =>
      realFolder(services, r).then(
        (f) => f.real,
        () => null,
      ),
    ),
  );
  const out: string[] = [];
  for (const r of real) if (r !== null && !out.some((o) => samePath(o, r))) out.push(r);
  return out;
}

/** True when the (real) path lies in one of the (real) roots. */
export function insideRoots(roots: readonly string[], p: string): boolean {
  return roots.some((r) => isInsideOrEqual(r, p));
}
