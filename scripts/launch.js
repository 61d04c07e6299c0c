// Launchers' choice between the build in dist/ and compiling on the fly: the build runs when it is current (no
// source newer than the build's start, same number of source files), else tsx compiles the sources as they are.
// Synchronous on purpose: this runs once before anything is served, and ~300 stats in a loop cost a third of the
// same stats as promises.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Folders whose modules make up the service (tests and benches always run from source). */
export const SOURCE_DIRS = ["lib", "functions", "runtime", "workers", "scripts", "cli"];
export const STAMP = "build.json";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * What a build is made of, relative to the repository: every `.ts` module, and under lib/ the files modules read
 * beside themselves (JSON, the starter episode, the thread bootstrap); package.json too (the version).
 */
export async function sourceFiles(base = root) {
  const out = [];
  for (const dir of SOURCE_DIRS) {
    const entries = readdirSync(path.join(base, dir), { recursive: true, withFileTypes: true });
    for (const e of entries) {
      if (!e.isFile()) continue;
      const rel = path
        .relative(base, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join("/");
      if (rel.endsWith(".d.ts")) continue;
      if (rel.endsWith(".ts") || (dir === "lib" && !rel.endsWith("README.md"))) out.push(rel);
    }
  }
  return out.sort();
}

/** Why dist/ cannot be used, or null when it is current. */
export async function staleReason(env = process.env) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(path.join(root, "dist", STAMP), "utf8"));
  } catch {
    return "no build in dist/ (npm run build)";
  }
  // Modules named by the environment in TypeScript load the sources they import: one copy of the tree, not two.
  if (/\.ts(,|\s|$)/.test(env.STUDIO_WORKER_EXTRA_HANDLERS ?? ""))
    return "STUDIO_WORKER_EXTRA_HANDLERS names TypeScript";
  const files = await sourceFiles();
  if (files.length !== stamp.files) return "source files were added or removed since the build";
  try {
    for (const f of [...files, "package.json"]) {
      if (statSync(path.join(root, f)).mtimeMs > stamp.started) return "sources changed since the build";
    }
  } catch {
    return "sources are changing";
  }
  return null;
}

/** Import `rel` ("runtime/serve"): the built module when current, else the TypeScript through tsx. */
export async function load(rel, name) {
  const reason = await staleReason();
  if (reason === null) return import(pathToFileURL(path.join(root, "dist", `${rel}.js`)).href);
  process.stderr.write(`${name}: ${reason}; compiling on the fly\n`);
  const { register } = await import("tsx/esm/api");
  register();
  return import(pathToFileURL(path.join(root, `${rel}.ts`)).href);
}
