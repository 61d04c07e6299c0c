#!/usr/bin/env node
// npm run build: bundles the service's TypeScript into dist/ with esbuild, one file per entry (the launchers' modules,
// the compile thread's task module, every route module) plus chunks they share, copies the files read beside their
// modules, and stamps the build so the launchers know it is current. Never fails an install: without esbuild
// (production install) it says so and leaves dist/ alone.
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWeb } from "./build-web.js";
import { SOURCE_DIRS, STAMP, sourceFiles } from "./launch.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

/**
 * What is imported by file name at run time, so each must be a file of its own: the launchers' modules, the compile
 * thread's task module, and the route modules a single-function process imports by name.
 */
export function entryPoints(files) {
  const fixed = [
    "runtime/serve.ts",
    "runtime/function-main.ts",
    "workers/main.ts",
    "cli/main.ts",
    "scripts/demo.ts",
    "lib/episode/compile-task.ts",
  ];
  const routes = files.filter((f) => /^functions\/.+\b(get|post|put|delete)\.ts$/.test(f));
  return [...fixed, ...routes];
}

/**
 * Packages that stay imports: native code (sharp, libsql's binding), binaries found beside their package (the
 * ffmpeg installers), tools run only in development (esbuild, tsx), and optional add-ons a package only tries to
 * load. Every other package is bundled: a few files load much faster than zod's or drizzle's hundred.
 */
const EXTERNAL = [
  "sharp",
  "libsql",
  "@libsql/linux-*",
  "@libsql/darwin-*",
  "@libsql/win32-*",
  "@ffmpeg-installer/*",
  "@ffprobe-installer/*",
  "esbuild",
  "tsx",
  // Loaded on an engine's first call with import(); bundled, its CommonJS exports come out without their classes.
  "undici",
  "bufferutil",
  "utf-8-validate",
];

/**
 * A module's own URL (`import.meta.url`) is where its data files and sibling modules are found. Bundled, the code
 * runs from an entry or a chunk elsewhere; so each use is marked with the module's place in dist/, and once the
 * files are written the mark becomes that place resolved against the file the code ended up in.
 */
const MARK = "studio-module-url:";
const markModuleUrl = {
  name: "mark-module-url",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const rel = path.relative(root, args.path).split(path.sep).join("/").replace(/\.ts$/, ".js");
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(MARK + rel)), loader: "ts" };
    });
  },
};

/**
 * zod's messages in every language are reachable from its namespace object, so bundling cannot drop them: nearly
 * half of zod's code, parsed by every process and by the compile thread. The service speaks English only (zod's
 * default, set by zod itself), so the other languages are left out.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
    }));
  },
};

function resolveMarks(out, outFile, text) {
  return text.replace(/(["'`])studio-module-url:([^"'`]+)\1/g, (_m, _q, rel) => {
    let to = path.relative(path.dirname(outFile), path.join(out, rel)).split(path.sep).join("/");
    if (!to.startsWith(".")) to = `./${to}`;
    return `new URL(${JSON.stringify(to)}, import.meta.url).href`;
  });
}

/**
 * Build into `out` (dist/ by default; tests build elsewhere). Answers esbuild's metafile (what each output file is
 * made of and imports), or false when esbuild is not installed.
 */
export async function build({ out = dist, web = true } = {}) {
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
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const entries = entryPoints(files);
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir: out,
    outbase: root,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    external: EXTERNAL,
    plugins: [markModuleUrl, englishOnlyZod],
    format: "esm",
    platform: "node",
    target: "node20",
    // Bundled CommonJS packages (ws) require Node's own modules: give the ES modules a require.
    banner: {
      js: 'import { createRequire as __studioRequire } from "node:module"; const require = __studioRequire(import.meta.url);',
    },
    sourcemap: "linked",
    logLevel: "error",
    metafile: true,
    write: false,
  });
  for (const file of result.outputFiles) {
    await mkdir(path.dirname(file.path), { recursive: true });
    await writeFile(
      file.path,
      file.path.endsWith(".js") ? resolveMarks(out, file.path, file.text) : file.contents,
    );
  }
  // Files read next to their modules (target descriptions, the starter episode, the thread bootstrap).
  for (const file of files.filter((f) => !f.endsWith(".ts"))) {
    await mkdir(path.dirname(path.join(out, file)), { recursive: true });
    await cp(path.join(root, file), path.join(out, file));
  }
  await cp(path.join(root, "package.json"), path.join(out, "package.json"));
  await writeFile(path.join(out, STAMP), `${JSON.stringify({ started, files: files.length })}\n`);
  const js = result.outputFiles.filter((o) => o.path.endsWith(".js")).length;
  process.stdout.write(
    `build: ${files.filter((f) => f.endsWith(".ts")).length} modules bundled into ${entries.length} entries and ${js - entries.length} shared chunks in ${path.relative(root, out) || "."}/ in ${Date.now() - started} ms (${SOURCE_DIRS.join(", ")})\n`,
  );
  if (!web) return result.metafile;
  try {
    await buildWeb();
  } catch (err) {
    // The service runs without the built page: it then builds the page in memory, or says how to build it.
    process.stderr.write(
      `build: the page was not built: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
  return result.metafile;
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
