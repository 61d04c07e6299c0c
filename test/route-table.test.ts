// The route table: every functions/ module is in it, every route is in the OpenAPI document,
// and runtime/function.ts serves any subset of routes.
import { readdir, readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CONTRACT_ROUTES, isQueueRoute, routeFile } from "../functions/contract.ts";
import { defineFunction, type StudioFunction } from "../functions/fn.ts";
import { functions, routes } from "../functions/index.ts";
import { createApp } from "../runtime/app.ts";
import { createFunctionHandler, loadFunctions } from "../runtime/function.ts";
import { buildOpenApi } from "../runtime/openapi.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

// The naming rule written at the top of functions/index.ts, as a file name with its extension.
const fileFor = (fn: Pick<StudioFunction, "method" | "path" | "root">): string => `${routeFile(fn)}.ts`;

// Every route module: the .ts files in the folders below functions/ (index.ts, fn.ts and contract.ts sit on top).
async function routeFiles(): Promise<string[]> {
  const entries = await readdir("functions", { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && e.parentPath !== "functions")
    .map((e) => `${e.parentPath.slice("functions/".length)}/${e.name}`)
    .sort();
}

// A path below functions/ imported by its URL (nested folders are past what a template import can name).
const loadRoute = (file: string): Promise<{ default: StudioFunction }> =>
  import(/* @vite-ignore */ new URL(`../functions/${file}`, import.meta.url).href);

let env: TestEnv;
beforeAll(async () => {
  env = await makeTestEnv();
});
afterAll(() => env.cleanup());

describe("route table", () => {
  it("holds every module in functions/", async () => {
    const files = await routeFiles();
    const modules = await Promise.all(files.map(loadRoute));
    for (const [i, mod] of modules.entries()) {
      expect(functions, `functions/${files[i]} is not in functions/index.ts`).toContain(mod.default);
    }
    expect(functions).toHaveLength(files.length);
  });

  it("names every file for its method and path", async () => {
    const files = await routeFiles();
    for (const f of files) {
      const mod = await loadRoute(f);
      const route = `${mod.default.method} ${mod.default.root ? "" : "/studio"}${mod.default.path}`;
      expect(`functions/${f}`, route).toBe(`functions/${fileFor(mod.default)}`);
    }
    expect(fileFor({ method: "GET", path: "/models" })).toBe("models/get.ts");
    expect(fileFor({ method: "PUT", path: "/refs/pick" })).toBe("refs/pick.put.ts");
    expect(fileFor({ method: "POST", path: "/jobs/:action" })).toBe("jobs/action.post.ts");
    expect(fileFor({ method: "GET", path: "/object_info/:node", root: true })).toBe(
      "root/object_info/node.get.ts",
    );
    expect(fileFor({ method: "POST", path: "/presets/own/picture" })).toBe("presets/own/picture.post.ts");
  });

  it("keeps only the table, the function contract and the route list directly in functions/; no route named root", async () => {
    const top = (await readdir("functions", { withFileTypes: true })).filter((e) => e.isFile());
    expect(top.map((e) => e.name).sort()).toEqual(["contract.ts", "fn.ts", "index.ts"]);
    expect(CONTRACT_ROUTES.filter((r) => r.split(" ")[1].split("/")[1] === "root")).toEqual([]);
  });

  it("has one module per method and path", () => {
    const keys = functions.map((f) => `${f.method} ${f.root ? "" : "/studio"}${f.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("puts every route in the OpenAPI 3.1 document served at /studio/openapi.json", async () => {
    const doc = buildOpenApi(functions, "test") as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const fn of functions) {
      const p = `${fn.root ? "" : "/studio"}${fn.path.replace(/:(\w+)/g, "{$1}")}`;
      expect(doc.paths[p]?.[fn.method.toLowerCase()], `${fn.method} ${p}`).toBeTruthy();
    }
    const app = createApp(env.services, functions);
    for (const prefix of ["/studio", "/api/studio"]) {
      const res = await app.request(`${prefix}/openapi.json`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { paths: object }).paths).toEqual(doc.paths);
    }
  });

  it("documents query parameters and bodies from the zod schemas", () => {
    const doc = buildOpenApi(functions, "test") as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>
      >;
    };
    const browse = doc.paths["/studio/browse"].get;
    expect(browse.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(["query:path", "query:files"]),
    );
    expect(doc.paths["/studio/config"].put.requestBody).toBeTruthy();
  });
});

describe("the OpenAPI document's fields", () => {
  it("gives every query, path and body field of every route a one-line description", () => {
    const doc = buildOpenApi(functions, "test") as { paths: Record<string, Record<string, Operation>> };
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = `${method.toUpperCase()} ${p}`;
        for (const param of op.parameters ?? []) {
          if (!oneLine(param.description)) missing.push(`${route} ${param.in} ${param.name}`);
        }
        const body = op.requestBody?.content["application/json"].schema;
        if (body) undescribed(body, `${route} body`, missing);
      }
    }
    expect(missing, `fields without a one-line description:\n${missing.join("\n")}`).toEqual([]);
  });

  it("fails for a field without one", () => {
    const fn = defineFunction({
      method: "POST",
      path: "/probe",
      summary: "probe",
      input: z.object({ a: z.string().describe("A field"), b: z.object({ c: z.number() }).describe("B") }),
      handler: () => null,
    });
    const doc = buildOpenApi([fn], "test") as { paths: Record<string, Record<string, Operation>> };
    const missing: string[] = [];
    undescribed(
      doc.paths["/studio/probe"].post.requestBody?.content["application/json"].schema,
      "probe",
      missing,
    );
    expect(missing).toEqual(["probe.b.c"]);
  });
});

interface Operation {
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes are walked by their keys
type JsonSchema = any;

const oneLine = (text: unknown): boolean =>
  typeof text === "string" && text.trim() !== "" && !text.includes("\n");

/** Every named property below `schema` (nested objects, list items and union branches too) lacking a description. */
function undescribed(schema: JsonSchema, at: string, missing: string[]): void {
  if (!schema || typeof schema !== "object") return;
  for (const [key, prop] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    if (!oneLine(prop?.description)) missing.push(`${at}.${key}`);
    undescribed(prop, `${at}.${key}`, missing);
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    undescribed(branch, at, missing);
  }
  if (schema.items) undescribed(schema.items, `${at}[]`, missing);
  if (schema.additionalProperties) undescribed(schema.additionalProperties, `${at}.*`, missing);
}

// Every "METHOD `/studio/path`" and "METHOD /studio/path" the contract names, read from its text.
async function contractMentions(): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of ["api-part1.md", "api-part2.md"]) {
    const text = await readFile(new URL(`../../shared/spec/${part}`, import.meta.url), "utf8");
    for (const m of text.matchAll(
      /\b(GET|POST|PUT|DELETE)(?:`?\s*\/\s*`?(GET|POST|PUT|DELETE))? `?\/studio(\/[a-z0-9_/{}-]+)`?/g,
    )) {
      const p = m[3].replace(/\{(\w+)\}/g, ":$1");
      found.add(`${m[1]} ${p}`);
      if (m[2]) found.add(`${m[2]} ${p}`);
    }
  }
  return found;
}

describe("the contract's routes", () => {
  it("lists every route the contract names with its method", async () => {
    const named = await contractMentions();
    expect(named.size).toBeGreaterThan(60);
    for (const r of named) expect(CONTRACT_ROUTES, `${r} is named by the contract`).toContain(r);
  });

  it("answers each one: built, or 501 'not built yet' (never 404 or 405)", async () => {
    const app = createApp(env.services, routes);
    const built = new Set(functions.map((f) => `${f.method} ${f.path}`));
    for (const route of CONTRACT_ROUTES) {
      const [method, p] = route.split(" ");
      const res = await app.request(`/studio${p.replace(":action", "nope")}`, { method });
      const body = (await res.json()) as { error?: string };
      expect(res.status, route).not.toBe(405);
      expect(body.error ?? "", route).not.toMatch(/^no route for/);
      if (!built.has(route)) {
        expect(res.status, route).toBe(501);
        expect(body).toEqual({ error: `${method} /studio${p} is not built yet` });
      }
    }
    expect((await app.request("/studio/no-such-route")).status).toBe(404);
  });

  it("marks the queue routes, which have no /api/studio alias standalone", async () => {
    for (const fn of functions.filter((f) => !f.root)) {
      expect(fn.queue === true, `${fn.method} ${fn.path} queue flag`).toBe(isQueueRoute(fn.path));
    }
    const app = createApp(env.services, routes);
    expect((await app.request("/studio/jobs")).status).toBe(200);
    expect((await app.request("/api/studio/jobs")).status).toBe(404);
    expect((await app.request("/api/studio/settings")).status).toBe(404);
    expect((await app.request("/api/studio/features")).status).toBe(404);
    expect((await app.request("/studio/features")).status).toBe(200);
    expect((await app.request("/api/studio/config")).status).toBe(200);
    expect((await app.request("/api/studio/upscale/options")).status).toBe(200);
    expect((await app.request("/api/studio/workflows")).status).not.toBe(404);
    expect((await app.request("/api/studio/refs")).status).not.toBe(404);
  });
});

describe("runtime/function.ts", () => {
  it("serves only the routes it was given", async () => {
    const handler = createFunctionHandler(env.services, await loadFunctions(["GET /info"]));
    const info = await handler(new Request("http://127.0.0.1/studio/info"));
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ service: "episode-studio", settings: env.home });
    const other = await handler(new Request("http://127.0.0.1/studio/config"));
    expect(other.status).toBe(404);
    await expect(loadFunctions(["GET /nope"])).rejects.toThrow(/no route GET \/nope/);
  });
});

describe("runtime/worker-entry.ts", () => {
  it("refuses a route that needs the storage of a studio host, naming the ones it can serve", async () => {
    const { default: entry } = await import("../runtime/worker-entry.ts");
    const vars = { STUDIO_HOME: env.home, STUDIO_FUNCTIONS: "GET /info" };
    await expect(entry.fetch(new Request("http://127.0.0.1/studio/info"), vars)).rejects.toThrow(
      /GET \/info cannot run here \(routes that can: POST \/source\/check, POST \/shot\/preview\)/,
    );
  });
});
