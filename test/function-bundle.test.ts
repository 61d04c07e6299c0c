// The per-function entry bundled for a browser-like platform (esbuild, platform neutral): the compile routes pull in
// no Node-only module, and the bundle, run as it is, answers a check and a preview from the texts in the request.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NODE_PACKAGES = [
  "sharp",
  "execa",
  "@libsql/client",
  "ws",
  "@hono/node-server",
  "undici",
  "drizzle-orm",
];
const BUILTINS = new Set(builtinModules);

/** A module that exists only on Node: a built-in (with or without `node:`) or a package built on them. */
function nodeOnly(spec: string): boolean {
  if (spec.startsWith("node:") || BUILTINS.has(spec) || BUILTINS.has(spec.split("/")[0])) return true;
  return NODE_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`));
}

/** Bundle an entry for a browser-like platform; every Node-only import is left out and reported with its importer. */
async function bundle(entry: { file: string } | { contents: string }) {
  const found: string[] = [];
  const result = await esbuild.build({
    ...("file" in entry
      ? { entryPoints: [path.join(root, entry.file)] }
      : { stdin: { contents: entry.contents, resolveDir: root, loader: "ts" as const } }),
    absWorkingDir: root,
    bundle: true,
    platform: "neutral",
    format: "esm",
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
    plugins: [
      {
        name: "node-only",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (!nodeOnly(args.path)) return undefined;
            found.push(`${args.path} (from ${path.relative(root, args.importer) || "the entry"})`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return { code: result.outputFiles[0].text, nodeOnly: found };
}

type Entry = { fetch(request: Request, env?: Record<string, string>): Promise<Response> };

const VARS = { STUDIO_FUNCTIONS: "POST /studio/source/check, POST /studio/shot/preview" };
let dir: string;
let entry: Entry;
let script: string;
let series: string;

const post = (route: string, body: unknown, vars: Record<string, string> = VARS) =>
  entry.fetch(
    new Request(`http://127.0.0.1/studio/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    vars,
  );

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "function-bundle-"));
  const starter = path.join(root, "lib", "episode", "starter");
  [script, series] = await Promise.all([
    readFile(path.join(starter, "starter.md"), "utf8"),
    readFile(path.join(starter, "series.json"), "utf8"),
  ]);
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("runtime/worker-entry.ts bundled for a browser-like platform", () => {
  it("pulls in no Node-only module", async () => {
    const { code, nodeOnly } = await bundle({ file: "runtime/worker-entry.ts" });
    expect(nodeOnly).toEqual([]);
    const file = path.join(dir, "worker.mjs");
    await writeFile(file, code);
    entry = ((await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default: Entry }).default;
  }, 60_000);

  it("checks a script against the series config carried in the request", async () => {
    const res = await post("source/check", { file: "script", text: script, series });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; errors: unknown[]; shots: { id: string }[] };
    expect(body.ok).toBe(true);
    expect(body.errors).toEqual([]);
    expect(body.shots.map((s) => s.id)).toEqual(["sh010", "sh020", "sh030", "sh040"]);

    const broken = script.replace("who: riley", "who: nobody_here");
    const bad = (await (await post("source/check", { file: "script", text: broken, series })).json()) as {
      ok: boolean;
      errors: { file: string; line: number | null; message: string }[];
    };
    expect(bad.ok).toBe(false);
    expect(bad.errors[0]).toMatchObject({ file: "script", line: 7 });
    expect(bad.errors[0].message).toMatch(/nobody_here/);
  });

  it("checks a series config given as an object, with the script carried too", async () => {
    const body = (await (
      await post("source/check", { file: "series", text: series, script, ep: null })
    ).json()) as { ok: boolean; shots: unknown[] };
    expect(body).toMatchObject({ ok: true });
    expect(body.shots).toHaveLength(4);
    const asObject = (await (
      await post("source/check", { file: "script", text: script, series: JSON.parse(series) })
    ).json()) as { ok: boolean };
    expect(asObject.ok).toBe(true);
  });

  it("previews one edited shot merged into the carried script", async () => {
    const shot = "## sh020\nwho: riley\nsize: cu\ndur: 2\nRiley looks up at the sky.\n";
    const res = await post("shot/preview", { shot: "sh020", text: shot, script, series, pass: "final" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, shot: "sh020", target: "animatic", fps: 24 });
    expect(body.frames).toBeGreaterThanOrEqual(48);
    expect(String(body.prompt)).toMatch(/sky/);
  });

  it("says what is missing instead of reading a disk it does not have", async () => {
    const noSeries = await post("shot/preview", { shot: "sh010", text: script });
    expect(noSeries.status).toBe(400);
    expect(((await noSeries.json()) as { error: string }).error).toMatch(/^series: give the series config/);
    const withEp = await post("source/check", { ep: "/shows/a/ep01", file: "script", text: script });
    expect(withEp.status).toBe(400);
    expect(((await withEp.json()) as { error: string }).error).toMatch(/reads no episode folders/);
    const twice = await post("source/check", { file: "script", text: script, script, series });
    expect(twice.status).toBe(400);
  });

  it("serves only the routes it was named, and refuses a route that needs a studio host", async () => {
    const config = await entry.fetch(new Request("http://127.0.0.1/studio/config"), VARS);
    expect(config.status).toBe(404);
    const only = { STUDIO_FUNCTIONS: "POST /studio/shot/preview" };
    // A fresh entry is built per bundle import; this one already serves VARS, so build another from the file.
    const again = (
      (await import(/* @vite-ignore */ `${pathToFileURL(path.join(dir, "worker.mjs")).href}?only`)) as {
        default: Entry;
      }
    ).default;
    const refused = await again
      .fetch(new Request("http://127.0.0.1/studio/config"), { STUDIO_FUNCTIONS: "GET /studio/config" })
      .catch((err: unknown) => err);
    expect(String(refused)).toMatch(/GET \/studio\/config cannot run here.*shared storage of a studio host/);
    const checkNotNamed = await (
      (await import(/* @vite-ignore */ `${pathToFileURL(path.join(dir, "worker.mjs")).href}?preview`)) as {
        default: Entry;
      }
    ).default.fetch(
      new Request("http://127.0.0.1/studio/source/check", { method: "POST", body: "{}" }),
      only,
    );
    expect(checkNotNamed.status).toBe(404);
  });
});

describe("wrangler.toml.example", () => {
  it("names in STUDIO_FUNCTIONS only routes the worker entry can serve", async () => {
    const text = await readFile(path.join(root, "wrangler.toml.example"), "utf8");
    const list = /^STUDIO_FUNCTIONS = "([^"]*)"/m.exec(text)?.[1];
    expect(list).toBeTruthy();
    const { platformFunctions } = await import("../runtime/worker-entry.ts");
    const fns = await platformFunctions(list);
    expect(fns.map((f) => `${f.method} ${f.path}`).sort()).toEqual([
      "POST /shot/preview",
      "POST /source/check",
    ]);
  });
});

describe("the bundle check", () => {
  it("reports the Node-only modules a route that needs disk pulls in (GET /studio/config)", async () => {
    const { nodeOnly } = await bundle({
      contents: [
        'import config from "./functions/config/get.ts";',
        'import { serveFunctions } from "./runtime/worker-entry.ts";',
        "export default serveFunctions(async () => [config]);",
      ].join("\n"),
    });
    expect(nodeOnly.length).toBeGreaterThan(0);
    expect(nodeOnly.some((m) => m.startsWith("node:fs"))).toBe(true);
  }, 60_000);
});
