// The editor page: GET /studio/ answers the HTML (never cached), /studio/assets/<content-hashed name> the scripts and
// stylesheet (cached for a year, ETag, gzipped when the browser takes it), and / and /studio redirect to /studio/.
// The HTML of a deep link to an episode asks for the episode's answer at once, while the scripts load.
// The build in dist/web/ is served when it is newer than the page's sources (web/ and the service modules it
// bundles); else the page is built in memory once.
import { createHash } from "node:crypto";
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Context, Hono } from "hono";
import type { Logger } from "../lib/context.ts";

const gzipped = promisify(gzip);

export interface PageAsset {
  type: string;
  bytes: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
}

export interface PageBuild {
  html: string;
  assets: ReadonlyMap<string, PageAsset>;
  /** Where it came from, for the log: "the build" or "built in memory". */
  from: string;
}

export interface PageSource {
  load(): Promise<PageBuild>;
}

interface BuiltFiles {
  html: string;
  assets: { name: string; type: string; bytes: Uint8Array }[];
}

/** The nearest folder above this module holding `rel`, or null. */
async function above(rel: string): Promise<string | null> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
    const found = await access(path.join(dir, rel)).then(
      () => true,
      () => false,
    );
    if (found) return dir;
  }
}

/** The page as `npm run build` wrote it into `dir` (web/ of the build), or null when it is not there. */
async function readBuilt(dir: string): Promise<(BuiltFiles & { started: number; inputs: string[] }) | null> {
  let manifest: { started: number; assets: { name: string; type: string }[]; inputs?: unknown };
  try {
    manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8"));
  } catch {
    return null;
  }
  const assets = [];
  for (const a of manifest.assets) {
    assets.push({
      name: a.name,
      type: a.type,
      bytes: await readFile(path.join(dir, "assets", path.basename(a.name))),
    });
  }
  // A build from before the manifest named them has no inputs beyond web/.
  const inputs = Array.isArray(manifest.inputs)
    ? manifest.inputs.filter((i): i is string => typeof i === "string")
    : [];
  return {
    html: await readFile(path.join(dir, "index.html"), "utf8"),
    assets,
    started: manifest.started,
    inputs,
  };
}

/**
 * The built page when it is newer than the page's sources (or there are no sources beside the service), else the
 * page bundled now from web/ (esbuild, a development install); loaded once.
 */
export function pageSource(log: Logger): PageSource {
  let loading: Promise<PageBuild> | null = null;
  const load = async (): Promise<PageBuild> => {
    // The repository holds the sources (web/src/); the build (dist/, or wherever it was written) holds web/manifest.json.
    const root = await above(path.join("web", "src", "main.tsx"));
    const builtIn =
      (await above(path.join("web", "manifest.json"))) ?? (root ? path.join(root, "dist") : null);
    const built = builtIn ? await readBuilt(path.join(builtIn, "web")) : null;
    const builder = root
      ? await import(pathToFileURL(path.join(root, "scripts", "build-web.js")).href)
      : null;
    const newest: number = builder ? await builder.newestSource(undefined, built?.inputs ?? []) : 0;
    let files: BuiltFiles | null = built && built.started > newest ? built : null;
    let from = "the build";
    if (!files) {
      if (!builder)
        throw new Error(
          "the editor page is not built and its sources (web/) are not here: run npm run build",
        );
      try {
        files = (await builder.bundleWeb()) as BuiltFiles;
      } catch (err) {
        throw new Error(
          `the editor page is not built and cannot be built here (${err instanceof Error ? err.message.split("\n")[0] : String(err)}): run npm run build`,
        );
      }
      from = "built in memory";
      log.info("page: the built page is missing or older than web/; built the page in memory");
    }
    const assets = new Map<string, PageAsset>();
    for (const a of files.assets) {
      const etag = `"${createHash("sha1").update(a.bytes).digest("hex")}"`;
      assets.set(a.name, {
        type: a.type,
        bytes: new Uint8Array(a.bytes),
        gzip: new Uint8Array(await gzipped(a.bytes)),
        etag,
      });
    }
    return { html: files.html, assets, from };
  };
  return {
    load() {
      loading ??= load();
      // A failed load is tried again on the next request (the user may run the build meanwhile).
      loading.catch(() => {
        loading = null;
      });
      return loading;
    },
  };
}

// The page talks to this origin only; CodeMirror writes its own style elements, hence inline styles. Only when
// mounted in ComfyUI may it be framed, and then by its own origin only (ComfyUI's, whose sidebar shows it).
const pagePolicy = (framedBySelf: boolean) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    `frame-ancestors ${framedBySelf ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");

/**
 * A preload of the episode the page's address opens, or "": the page's first read of the open episode (its `ep`,
 * at `pass` final or else proxy) then finds the answer on its way instead of asking only once its script has run.
 * The address is the one the page's own read asks for, byte for byte, or the browser fetches it twice.
 */
export function episodePreload(search: string): string {
  const q = new URLSearchParams(search);
  const ep = q.get("ep");
  if (!ep) return "";
  const query = new URLSearchParams({ ep, pass: q.get("pass") === "final" ? "final" : "proxy" });
  const href = `/studio/episode?${query}`.replaceAll("&", "&amp;");
  return `<link rel="preload" as="fetch" crossorigin="anonymous" href="${href}" />`;
}

/**
 * GET /studio/, /studio/assets/:name, and the redirects to the page. `framedBySelf`: the page may be shown in a
 * frame of its own origin (mounted in ComfyUI); otherwise it refuses every frame.
 */
export function mountPage(app: Hono, page: PageSource, opts: { framedBySelf?: boolean } = {}): void {
  const policy = pagePolicy(opts.framedBySelf === true);
  const toPage = (url: string) => {
    const q = new URL(url).search;
    return `/studio/${q}`;
  };
  app.get("/", (c) => c.redirect(toPage(c.req.url), 302));
  app.get("/studio", (c) => c.redirect(toPage(c.req.url), 302));
  // Both answers need the page; one that cannot be loaded or built says why (503), and is tried again next time.
  const withPage =
    (answer: (built: PageBuild, c: Context) => Response | Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      let built: PageBuild;
      try {
        built = await page.load();
      } catch (err) {
        return c.json({ error: err instanceof Error ? err.message : String(err) }, 503);
      }
      return answer(built, c);
    };
  app.get(
    "/studio/",
    withPage((built, c) => {
      const preload = episodePreload(new URL(c.req.url).search);
      const html = preload ? built.html.replace("</head>", `  ${preload}\n  </head>`) : built.html;
      return c.html(html, 200, {
        "cache-control": "no-store",
        "content-security-policy": policy,
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
      });
    }),
  );
  app.get(
    "/studio/assets/:name",
    withPage((built, c) => {
      const name = c.req.param("name") ?? "";
      const asset = built.assets.get(name);
      if (!asset) return c.json({ error: `no page asset named ${JSON.stringify(name.slice(0, 100))}` }, 404);
      const headers: Record<string, string> = {
        "content-type": asset.type,
        "cache-control": "public, max-age=31536000, immutable",
        etag: asset.etag,
        "x-content-type-options": "nosniff",
        vary: "accept-encoding",
      };
      if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304, headers);
      if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
        return c.body(asset.gzip, 200, { ...headers, "content-encoding": "gzip" });
      }
      return c.body(asset.bytes, 200, headers);
    }),
  );
}
