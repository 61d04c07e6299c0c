// realpath for paths that may not exist yet: the nearest existing ancestor is resolved, the rest appended.
import { realpath } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "../store/json-guards.ts";

export interface RealPath {
  real: string;
  exists: boolean;
}

export async function realpathNearest(p: string): Promise<RealPath> {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      const real = await realpath(cur);
      return { real: rest.length ? path.join(real, ...rest.reverse()) : real, exists: rest.length === 0 };
    } catch (err) {
      const code = errorCode(err);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      const up = path.dirname(cur);
      if (up === cur) return { real: path.resolve(p), exists: false };
      rest.push(path.basename(cur));
      cur = up;
    }
  }
}
