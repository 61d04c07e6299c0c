// The build (scripts/build.js) into a temp folder: one file per entry plus shared chunks, what a single-function
// process loads before its first answer, and the built server, function process and worker host answering for real.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Metafile {
  outputs: Record<
    string,
    { imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown> }
  >;
  inputs: Record<string, unknown>;
}

let out: string;
let meta: Metafile;
let env: TestEnv;
let shows: string;
let ep: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Inside the repository's node_modules, so the packages left as imports resolve from the build.
  out = await mkdtemp(path.join(root, "node_modules", ".studio-build-test-"));
  const { build } = (await import(pathToFileURL(path.join(root, "scripts", "build.js")).href)) as {
    build(opts: { out: string; web: boolean }): Promise<Metafile | false>;
  };
  const result = await build({ out, web: false });
  if (!result) throw new Error("esbuild is not installed");
  meta = result;
  env = await makeTestEnv();
  shows = path.join(env.dir, "shows");
  ep = path.join(shows, "show", "ep01");
  await mkdir(ep, { recursive: true });
  await mkdir(path.join(shows, "other"));
  await cp(path.join(root, "lib/episode/starter/series.json"), path.join(ep, "series.json"));
  await cp(path.join(root, "lib/episode/starter/starter.md"), path.join(ep, "ep01.md"));
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rm(out, { recursive: true, force: true });
  await env?.cleanup();
});

/** Every input (source module or package file) an output loads before it runs: its static imports, followed. */
function staticInputs(entries: string[]): string[] {
  const outputs = new Set<string>();
  const visit = (file: string) => {
    if (outputs.has(file)) return;
    outputs.add(file);
    for (const imp of meta.outputs[file]?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) visit(imp.path);
    }
  };
  for (const e of entries) visit(e);
  return [...outputs].flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}));
}

/** The output path of an entry, as the metafile names it. */
function outputOf(entry: string): string {
  const want = path.join(out, entry.replace(/\.ts$/, ".js"));
  const key = Object.keys(meta.outputs).find((k) => path.resolve(root, k) === want);
  if (!key) throw new Error(`no output for ${entry}`);
  return key;
}

/** Start `call` on a module of the build in a child process, resolved once it prints `ready`. */
async function start(module: string, call: string, ready: RegExp): Promise<string> {
  const launcher = path.join(out, `start-${children.length}.mjs`);
  await writeFile(
    launcher,
    `const m = await import(${JSON.stringify(pathToFileURL(path.join(out, module)).href)});\n${call}\n`,
  );
  const child = spawn(process.execPath, [launcher], {
    env: {
      ...process.env,
      STUDIO_HOME: env.home,
      STUDIO_ROOTS: shows,
      STUDIO_HOST: "127.0.0.1",
      STUDIO_LOG: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let text = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      text += c.toString();
      const m = ready.exec(text);
      if (m) resolve(m[1] ?? "");
    });
    child.stderr?.on("data", (c: Buffer) => {
      text += c.toString();
    });
    child.once("exit", (code) => reject(new Error(`${module} exited with ${code}:\n${text}`)));
  });
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("npm run build", () => {
  it("bundles a file per entry and shares the rest in chunks", () => {
    const files = Object.keys(meta.outputs).filter((f) => f.endsWith(".js"));
    for (const entry of ["runtime/serve.js", "runtime/function-main.js", "workers/main.js", "cli/main.js"]) {
      expect(files.some((f) => path.resolve(root, f) === path.join(out, entry))).toBe(true);
    }
    expect(
      files.some((f) => path.resolve(root, f) === path.join(out, "functions/source/check.post.js")),
    ).toBe(true);
    // Fewer files than modules (every route is an entry of its own, so the count grows with the routes):
    // resolving and reading each one is what made start-up slow. bench/startup.ts measures the start itself.
    const modules = Object.keys(meta.inputs).filter((f) => !f.includes("node_modules")).length;
    expect(files.length).toBeLessThan(modules * 0.8);
  });

  it("a single-function process loads its route and the runtime, not the socket server, database or page", () => {
    const inputs = staticInputs([
      outputOf("runtime/function-main.ts"),
      outputOf("functions/source/check.post.ts"),
    ]);
    expect(inputs.some((i) => i.includes("functions/source/check.post.ts"))).toBe(true);
    for (const absent of [
      "node_modules/ws/",
      "node_modules/drizzle-orm/",
      "node_modules/@libsql/",
      "runtime/ws.ts",
      "lib/jobs/store.ts",
      "functions/config/get.ts",
      "workers/",
    ]) {
      expect(inputs.filter((i) => i.includes(absent))).toEqual([]);
    }
  });

  it("a single-function process starts its compile thread before it loads zod, the router or its route", () => {
    const inputs = staticInputs([outputOf("runtime/function-main.ts")]);
    expect(inputs.some((i) => i.includes("lib/threads/pool.ts"))).toBe(true);
    for (const absent of ["node_modules/zod/", "node_modules/hono/", "runtime/router.ts", "functions/"]) {
      expect(inputs.filter((i) => i.includes(absent))).toEqual([]);
    }
  });

  it("the server loads the database client once it listens, not before its first answer", () => {
    const inputs = staticInputs([outputOf("runtime/serve.ts")]);
    expect(inputs.some((i) => i.includes("functions/config/get.ts"))).toBe(true);
    for (const absent of ["node_modules/drizzle-orm/", "node_modules/@libsql/", "lib/jobs/store.ts"]) {
      expect(inputs.filter((i) => i.includes(absent))).toEqual([]);
    }
  });

  it("leaves out zod's messages in languages other than English", () => {
    const inputs = staticInputs([outputOf("runtime/serve.ts")]);
    const locales = inputs.filter((i) => /zod\/v4\/locales\/(?!index)/.test(i));
    expect(locales.map((l) => path.basename(l))).toEqual(["en.js"]);
  });

  it("the built single function answers its route (on its compile thread) and nothing else", async () => {
    const url = await start(
      "runtime/function-main.js",
      'await m.main(["POST /studio/source/check", "--port", "0"], process.env);',
      /listening on (http:\/\/\S+?)\/studio\//,
    );
    const res = await post(`${url}/studio/source/check`, {
      ep,
      file: "script",
      text: "# Broken\n\nno scene",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; diagnostics: unknown[] };
    expect(body.ok).toBe(false);
    expect(body.diagnostics.length).toBeGreaterThan(0);
    expect((await fetch(`${url}/studio/config`)).status).toBe(404);
  }, 60_000);

  it("the built server answers, makes a new episode from the starter and documents its routes", async () => {
    const url = await start(
      "runtime/serve.js",
      'await m.main(["--port", "0"], process.env);',
      /listening on (http:\/\/\S+?)\/studio\//,
    );
    expect((await fetch(`${url}/studio/config`)).status).toBe(200);
    // The starter episode is read from files beside its module, wherever the bundle put the code.
    const made = await post(`${url}/studio/episode/new`, { parent: path.join(shows, "other"), name: "ep01" });
    expect(made.status, await made.clone().text()).toBe(200);
    const doc = (await (await fetch(`${url}/studio/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain("/studio/source/check");
    expect((await fetch(`${url}/studio/no-such-route`)).status).toBe(404);
    expect((await fetch(`${url}/studio/source/check`)).status).toBe(405);
  }, 60_000);

  it("the built worker host starts", async () => {
    await start("workers/main.js", "await m.main(process.env);", /worker \S+ running/);
  }, 60_000);

  it("the built command line answers a route in its own process", async () => {
    await start("cli/main.js", 'await m.main(["jobs", "--json"], process.env);', /"jobs": \[/);
  }, 60_000);
});
