// Bundles the editor page (web/) with esbuild: the entry script, the chunks it shares with the views loaded on
// demand (the Script view's CodeMirror is most of the page's code and the Shots view needs none of it), one
// stylesheet, all with content-hashed names, and the HTML that names what the first render needs. Written to dist/web/ by `npm run build`, or kept in memory by a server whose dist/web/ is
// older than the page's sources.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const WEB_SOURCES = path.join(root, "web");
export const WEB_DIST = path.join(root, "dist", "web");
export const MANIFEST = "manifest.json";

const TYPES = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

/**
 * The page, built: `{html, assets: [{name, type, bytes}], gzipped, initial}`; `gzipped` is the page's weight over
 * the wire (the HTML and every asset, each gzipped), `initial` the part of it a first visit loads before the views
 * it has not opened (the HTML, the stylesheet, the entry script and the chunks it imports).
 */
export async function bundleWeb({ minify = true } = {}) {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: {
      main: path.join(WEB_SOURCES, "src", "main.tsx"),
      style: path.join(WEB_SOURCES, "src", "style.css"),
    },
    bundle: true,
    write: false,
    outdir: "/assets",
    entryNames: "[name]-[hash]",
    chunkNames: "[name]-[hash]",
    // Views imported with import() become their own chunks, loaded when first opened.
    splitting: true,
    metafile: true,
    format: "esm",
    platform: "browser",
    target: ["chrome110", "firefox115", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    minify,
    sourcemap: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const assets = result.outputFiles.map((f) => {
    const name = path.basename(f.path);
    return {
      name,
      type: TYPES[path.extname(name)] ?? "application/octet-stream",
      bytes: Buffer.from(f.contents),
    };
  });
  // The metafile names outputs relative to the working folder; the assets go by their file names.
  const outputs = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([out, meta]) => [path.basename(out), meta]),
  );
  const entry = (source) => Object.keys(outputs).find((name) => outputs[name].entryPoint === source) ?? null;
  const script = entry("web/src/main.tsx");
  const style = entry("web/src/style.css");
  if (!script) throw new Error("the page's build has no entry script");
  // The chunks the entry imports statically are fetched with it (modulepreload), not one after another.
  const shared = [];
  const walk = (name) => {
    for (const i of outputs[name]?.imports ?? []) {
      const dep = path.basename(i.path);
      if (i.kind !== "import-statement" || shared.includes(dep)) continue;
      shared.push(dep);
      walk(dep);
    }
  };
  walk(script);
  const preloads = shared
    .map((n) => `<link rel="modulepreload" href="/studio/assets/${n}" />`)
    .join("\n    ");
  const template = await readFile(path.join(WEB_SOURCES, "index.html"), "utf8");
  const html = template
    .replace("%SCRIPT%", `/studio/assets/${script}`)
    .replace("%STYLE%", style ? `/studio/assets/${style}` : "")
    .replace("</head>", preloads ? `  ${preloads}\n  </head>` : "</head>");
  const weigh = (list) => list.reduce((sum, b) => sum + gzipSync(b, { level: 9 }).length, 0);
  const first = new Set([script, style, ...shared]);
  const gzipped = weigh([Buffer.from(html), ...assets.map((a) => a.bytes)]);
  const initial = weigh([Buffer.from(html), ...assets.filter((a) => first.has(a.name)).map((a) => a.bytes)]);
  // Modules of the service's own the page bundles from outside web/ (pure ones shared with the service).
  const inputs = Object.keys(result.metafile.inputs).filter(
    (p) => !p.startsWith("web/") && !p.split("/").includes("node_modules"),
  );
  return { html, assets, gzipped, initial, inputs };
}

/**
 * The newest modification time among the page's sources (web/ and the files `also` names, relative to the
 * repository): a build started after it is current. A named file that is gone counts as changed now.
 */
export async function newestSource(dir = WEB_SOURCES, also = []) {
  let newest = 0;
  for (const rel of also) {
    const st = await stat(path.join(root, rel)).catch(() => null);
    newest = Math.max(newest, st ? st.mtimeMs : Date.now());
  }
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const st = await stat(path.join(e.parentPath ?? e.path, e.name));
    newest = Math.max(newest, st.mtimeMs);
  }
  return newest;
}

/** Build the page into dist/web/ (assets/, index.html, manifest.json). */
export async function buildWeb() {
  const started = Date.now();
  const page = await bundleWeb();
  await rm(WEB_DIST, { recursive: true, force: true });
  await mkdir(path.join(WEB_DIST, "assets"), { recursive: true });
  for (const a of page.assets) await writeFile(path.join(WEB_DIST, "assets", a.name), a.bytes);
  await writeFile(path.join(WEB_DIST, "index.html"), page.html);
  const manifest = {
    started,
    assets: page.assets.map((a) => ({ name: a.name, type: a.type, sha1: sha1(a.bytes) })),
    gzipped: page.gzipped,
    initial: page.initial,
    inputs: page.inputs,
  };
  await writeFile(path.join(WEB_DIST, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(
    `build: the page into dist/web/ in ${Date.now() - started} ms, ${(page.gzipped / 1024).toFixed(1)} KB gzipped\n`,
  );
  return manifest;
}

function sha1(bytes) {
  return createHash("sha1").update(bytes).digest("hex");
}
