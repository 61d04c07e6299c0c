#!/usr/bin/env node
// npm run build: compiles the service's TypeScript into dist/ file by file (same layout, imports rewritten to .js)
// with esbuild, copies the files read beside their modules, and stamps the build so the launchers know it is current.
// Never fails an install: without esbuild (production install) it says so and leaves dist/ alone.
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWeb } from "./build-web.js";
import { SOURCE_DIRS, STAMP, sourceFiles } from "./launch.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

/**
 * Relative imports stay separate files; their `.ts` becomes `.js`. Packages stay imports too. JSON modules (the
 * shipped targets) are inlined: Node 20 warns on importing JSON.
 */
const keepImports = {
  name: "keep-imports",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point" || args.path.endsWith(".json")) return undefined;
      if (args.path.startsWith(".")) return { path: args.path.replace(/\.ts$/, ".js"), external: true };
      return { path: args.path, external: true };
    });
  },
};

export async function build() {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    process.stderr.write(
      "build: esbuild is not installed (dev dependency); the launchers compile on the fly\n",
    );
    return false;
  }
  const started = Date.now();
  const files = await sourceFiles(root);
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  const entries = files.filter((f) => f.endsWith(".ts"));
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir: dist,
    outbase: root,
    bundle: true,
    plugins: [keepImports],
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
  });
  // Files read next to their modules (target descriptions, the starter episode, the thread bootstrap).
  for (const file of files.filter((f) => !f.endsWith(".ts"))) {
    await mkdir(path.dirname(path.join(dist, file)), { recursive: true });
    await cp(path.join(root, file), path.join(dist, file));
  }
  await cp(path.join(root, "package.json"), path.join(dist, "package.json"));
  await writeFile(path.join(dist, STAMP), `${JSON.stringify({ started, files: files.length })}\n`);
  process.stdout.write(
    `build: ${entries.length} modules into dist/ in ${Date.now() - started} ms (${SOURCE_DIRS.join(", ")})\n`,
  );
  try {
    await buildWeb();
  } catch (err) {
    // The service runs without the built page: it then builds the page in memory, or says how to build it.
    process.stderr.write(
      `build: the page was not built: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await build();
  } catch (err) {
    // A broken source must not fail `npm ci`: the launchers then compile on the fly and report the error there.
    process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}; dist/ not written\n`);
    await rm(dist, { recursive: true, force: true }).catch(() => {});
  }
}
