// Schema-driven fuzz: every route and method of the OpenAPI document gets a few hundred malformed requests built from
// its own schema. None may answer 5xx (bar the 501/503 the contract names), every refusal is a short {"error"} body,
// and nothing is written outside the test's roots and settings folder. FUZZ_SEED replays a run, FUZZ_COUNT sets the
// requests per route, FUZZ_ROUTE keeps only the routes whose "METHOD /path" contains it.
import { cp, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { createApp } from "../runtime/app.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20240807) >>> 0;
const COUNT = Number(process.env.FUZZ_COUNT ?? 250);
const ONLY = process.env.FUZZ_ROUTE ?? "";
const MAX_ERROR_BODY = 2048;
const SLOW_MS = 10_000;

// 503 where the engine is asked and does not answer; 501 where a feature is not built yet.
const ALLOWED_5XX: Record<string, number[]> = {
  "GET /models": [503],
  "GET /models/{folder}": [503],
  "GET /object_info/{node}": [503],
  "GET /queue": [503],
  "GET /studio/models": [503],
  "POST /studio/assemble": [501],
  // The engine's saved workflows and node list are asked; 502 is the contract's answer when it does not answer.
  "POST /studio/workflow/install": [502],
  "DELETE /studio/workflow/install": [502],
  "GET /studio/workflows": [502],
  "POST /studio/targets/inspect": [502],
  // The hosted-model router is asked: 503 without a key or when it does not answer, 502 when it answers wrongly.
  "GET /studio/router/models": [502, 503],
  "POST /studio/targets/router-inspect": [502, 503],
};

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes are walked by their keys
type Schema = any;
type Json = unknown;

/** mulberry32: small, fast and the same on every machine, so a seed replays a run. */
class Rand {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

interface Fixture {
  root: string;
  show: string;
  ep: string;
  outside: string;
  outsideEp: string;
  closedUrl: string;
}

const UNICODE = [
  "\u202eevil\u202c",
  "مرحبا بالعالم",
  "😀🎬🎞️👩‍👩‍👧",
  "e\u0301\u0302\u0303\u0304\u0305",
  "\ud800",
  "\udfff\ud800x",
  "\ufeff",
  "\u2028\u2029",
  "ｓｈ０１０",
  "\u0000",
  "a\u0000b",
  "\u0001\u0002\u0003\u001f\u007f",
  "\r\n",
  "\t",
  "\\",
  '"',
  "'; DROP TABLE jobs; --",
  "<script>alert(1)</script>",
  "{{7*7}} $(id)",
  "%s%s%n",
  "__proto__",
  "constructor",
];
const NUMBERISH = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e309",
  "-0",
  "0x10",
  "1_000",
  " 1 ",
  "",
  " ",
  "0",
  "-1",
  "1.5",
];
const NUMBERS = [
  0,
  -1,
  -0,
  1.5,
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 64,
  -(2 ** 63),
  5e-324,
  999999999999,
];

function pathLike(f: Fixture): string[] {
  return [
    "..",
    "../..",
    "../../../../../../etc/passwd",
    "/",
    "/etc/passwd",
    "/dev/zero",
    "/proc/self/environ",
    "%2e%2e",
    "%2e%2e%2f%2e%2e",
    "..%2f..%2f",
    "..\\..\\",
    "C:\\Windows\\system32",
    "\\\\server\\share\\x",
    "~",
    "~/.ssh",
    "./",
    "a/../../b",
    "renders_proxy/../../..",
    "renders_proxy/sh010/../../../../outside",
    f.outside,
    f.outsideEp,
    path.join(f.root, "..", "outside"),
    path.join(f.ep, "..", "..", "..", "outside", "ep01"),
    `${f.ep}/../../../outside/ep01`,
    `${f.ep}\u0000`,
    `${f.root}/nope`,
    f.root,
    f.show,
    `${f.ep}/`,
    `${f.ep}//`,
    "file:///etc/passwd",
    f.closedUrl,
  ];
}

function oversized(r: Rand): string {
  const n = 10_000 + r.int(20_000);
  const unit = r.pick(["a", "é", "😀", "/", "../", "sh010", "\u0000", "x".repeat(255) + "/"]);
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

/** Nesting too deep for JSON.stringify itself: kept as a marker and written out by toJson. */
class Deep {
  readonly depth: number;
  readonly arrays: boolean;
  readonly leaf: Json;
  constructor(depth: number, arrays: boolean, leaf: Json) {
    this.depth = depth;
    this.arrays = arrays;
    this.leaf = leaf;
  }
}

function deep(r: Rand, depth: number): Json {
  const leaf = r.pick([1, "x", null, true, [], {}]);
  if (depth > 500) return new Deep(depth, r.chance(0.5), leaf);
  let v: Json = leaf;
  const kind = r.int(3);
  for (let i = 0; i < depth; i++) {
    const asArray = kind === 0 || (kind === 2 && i % 2 === 0);
    v = asArray ? [v] : { a: v };
  }
  return v;
}

/** JSON text of `v`, Deep markers included. */
function toJson(v: Json): string {
  if (v instanceof Deep) {
    const [open, close] = v.arrays ? ["[", "]"] : ['{"a":', "}"];
    return open.repeat(v.depth) + JSON.stringify(v.leaf) + close.repeat(v.depth);
  }
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  if (v && typeof v === "object") {
    const parts = Object.keys(v).map((k) => `${JSON.stringify(k)}:${toJson((v as Record<string, Json>)[k])}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function strangeString(r: Rand, f: Fixture): string {
  switch (r.int(6)) {
    case 0:
      return oversized(r);
    case 1:
      return r.pick(UNICODE);
    case 2:
      return r.pick(NUMBERISH);
    case 3:
      return r.pick(pathLike(f));
    case 4: {
      // A short run of random code units, surrogates and controls included.
      let s = "";
      for (let i = 1 + r.int(20); i > 0; i--) s += String.fromCharCode(r.int(0x10000));
      return s;
    }
    default:
      return `${r.pick(["sh010", "s01a", "animatic", "builtin", "proxy"])}${r.pick(UNICODE)}`;
  }
}

/** Any wrong or odd value: strings, numbers, deep nesting, arrays where objects belong, objects where strings do. */
function strangeValue(r: Rand, f: Fixture): Json {
  switch (r.int(10)) {
    case 0:
    case 1:
    case 2:
      return strangeString(r, f);
    case 3:
      return r.pick(NUMBERS);
    case 4:
      return r.pick([true, false, null]);
    case 5:
      return r.pick([[], [1, 2], ["sh010"], [null], [[[]]], [strangeString(r, f)]]);
    case 6:
      return r.pick([
        {},
        { a: 1 },
        JSON.parse('{"__proto__": {"polluted": true}}'),
        { constructor: { prototype: {} } },
      ]);
    case 7:
      return deep(r, 100 + r.int(200));
    case 8:
      return deep(r, r.chance(0.5) ? 70 : 3000 + r.int(3000));
    default:
      return Array.from({ length: 2000 + r.int(3000) }, () => r.int(10));
  }
}

/** A plausible value for a named field, so a request gets past the first check and deeper code runs. */
function hinted(name: string, r: Rand, f: Fixture): Json | undefined {
  switch (name) {
    case "ep":
      return f.ep;
    case "parent":
      return r.pick([f.show, f.root]);
    case "name":
      return `ep${10 + r.int(80)}`;
    case "shot":
      return r.pick(["sh010", "sh020", "sh030", "sh999"]);
    case "shots":
      return r.pick([["sh010"], ["sh010", "sh020"], []]);
    case "take":
      return 1 + r.int(2);
    case "path":
      return r.pick([
        "renders_proxy/sh010/sh010_t01.jpg",
        "renders_proxy/sh010/sh010_t01.mp4",
        "ep01.md",
        "series.json",
        f.root,
        f.ep,
      ]);
    case "w":
      return r.pick(["160", "320", "0", "100000"]);
    case "target":
      return r.pick(["animatic", "ltx2", "flux2_klein"]);
    case "lane":
      return r.pick(["builtin", "local", "cloud", "deployment:ltx2"]);
    case "text":
      return r.pick([SCRIPT, "", "= e01  T\n# sq01 x\n## sh010\nHi."]);
    case "note":
      return "too dark";
    case "folder":
      return r.pick(["checkpoints", "loras"]);
    case "node":
      return r.pick(["KSampler", "CheckpointLoaderSimple"]);
    case "roots":
      return [f.root];
    case "kind":
      return r.pick(["video", "image", "audio"]);
    case "ready":
      return "1";
    case "files":
      return r.pick(["image", "video", "audio"]);
    case "size":
      return r.pick(["1344x768", [640, 360]]);
    case "seed":
      return "123";
    case "id":
      // Issue ids, and history version ids (GET /studio/source/version).
      return r.pick(["1", "nope", "20240101-000000", "20240101-000000-2"]);
    case "local_url":
    case "engine_url":
    case "cloud_url":
      return f.closedUrl;
    default:
      return undefined;
  }
}

/** A value that fits `schema`, preferring the hint for `name`. */
function sample(schema: Schema, name: string, r: Rand, f: Fixture, depth = 0): Json {
  const hint = hinted(name, r, f);
  if (hint !== undefined) return hint;
  if (!schema || typeof schema !== "object" || depth > 4) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return r.pick(schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) return sample(r.pick(options), name, r, f, depth + 1);
  const type = Array.isArray(schema.type)
    ? r.pick(schema.type.filter((t: string) => t !== "null"))
    : schema.type;
  switch (type) {
    case "string":
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 1);
    case "boolean":
      return r.chance(0.5);
    case "array":
      return schema.minItems ? [sample(schema.items, name, r, f, depth + 1)] : [];
    case "object": {
      const out: Record<string, Json> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || r.chance(0.5)) out[key] = sample(sub, key, r, f, depth + 1);
      }
      return out;
    }
    case "null":
      return null;
    default:
      return r.pick(["x", 1, true, null]);
  }
}

interface Op {
  method: string;
  /** The OpenAPI path, `{param}` included. */
  path: string;
  params: { name: string; in: string; required: boolean; schema: Schema }[];
  body: Schema | undefined;
}

function operations(doc: Schema): Op[] {
  const ops: Op[] = [];
  for (const [p, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path: p,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.["application/json"]?.schema,
      });
    }
  }
  return ops;
}

interface Attempt {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to the request, for the failure report. */
  what: string;
}

// encodeURIComponent throws on a lone surrogate; a browser sends U+FFFD for it, so do the same.
function enc(value: string): string {
  return encodeURIComponent(
    value.replace(/[\ud800-\udfff]/g, (c, i, s) => (isPairedAt(s, i) ? c : "\ufffd")),
  );
}
function isPairedAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) return i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
  return i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
}

const asQueryText = (v: Json): string =>
  typeof v === "string" ? v : v === null || v === undefined ? "" : toJson(v);

/** One request: a valid-looking input from the schema with one thing wrong (or, now and then, nothing wrong). */
function makeAttempt(op: Op, r: Rand, f: Fixture): Attempt {
  const prefix = op.path.startsWith("/studio") ? (r.chance(0.2) ? "/api" : "") : r.chance(0.2) ? "/api" : "";
  let what = "valid-looking";
  let pathWhat = "";
  const pathParams = op.params.filter((p) => p.in === "path");
  const queryParams = op.params.filter((p) => p.in === "query");

  let urlPath = op.path;
  let action = "";
  for (const p of pathParams) {
    let value = asQueryText(sample(p.schema, p.name, r, f));
    if (op.path === "/studio/jobs/{action}")
      value = r.pick(["cancel", "move", "retry", "pause", "paid-reset"]);
    let raw = enc(value);
    if (r.chance(0.3)) {
      const odd = r.chance(0.3) ? r.pick(["..%2f..%2fetc", "%00", "%ff%fe", "%2e%2e", "a%2fb"]) : null;
      value = odd ?? strangeString(r, f);
      raw = odd ?? enc(value);
      pathWhat = `path param ${p.name} = ${short(value)}; `;
    }
    if (p.name === "action") action = value;
    urlPath = urlPath.replace(`{${p.name}}`, raw);
  }

  if (op.method === "GET" || op.method === "DELETE") {
    const query: [string, string][] = [];
    for (const p of queryParams) {
      if (p.required || r.chance(0.5)) query.push([p.name, asQueryText(sample(p.schema, p.name, r, f))]);
    }
    let rawExtra = "";
    if (queryParams.length === 0 || r.chance(0.9)) {
      const p = queryParams.length ? r.pick(queryParams) : { name: "x" };
      const i = query.findIndex(([k]) => k === p.name);
      const kind = r.int(5);
      if (kind === 0 && i >= 0) {
        query.splice(i, 1);
        what = `missing ${p.name}`;
      } else if (kind === 1) {
        query.push([p.name, asQueryText(strangeValue(r, f))]);
        what = `repeated ${p.name}`;
      } else if (kind === 2) {
        rawExtra = `&${p.name}=${r.pick(["%00", "%ff", "%2e%2e%2f%2e%2e", "%", "%zz", "%c0%ae%c0%ae", "a%2fb%5c"])}`;
        if (i >= 0) query.splice(i, 1);
        what = `raw ${rawExtra}`;
      } else {
        const value = asQueryText(strangeValue(r, f));
        if (i >= 0) query[i] = [p.name, value];
        else query.push([p.name, value]);
        what = `${p.name} = ${short(value)}`;
      }
    }
    const qs = query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&") + rawExtra;
    return {
      method: op.method,
      url: `${prefix}${urlPath}${qs ? `?${qs}` : ""}`,
      headers: {},
      what: pathWhat + what,
    };
  }

  const headers: Record<string, string> = { "content-type": "application/json" };
  let schema = op.body;
  if (op.path === "/studio/jobs/{action}") schema = undefined;
  let body: Json = schema ? sample(schema, "", r, f) : {};
  if (op.path === "/studio/jobs/{action}") body = jobsBody(action, r);
  let text: string | undefined;
  const roll = r.int(20);
  if (roll === 0) {
    text = r.pick(["", "{", "[1,", "nul", "NaN", '{"a":1}{', "\u0000", '{"ep": "\ud800"}', "{'a':1}"]);
    what = `malformed body ${JSON.stringify(text)}`;
  } else if (roll === 1) {
    body = strangeValue(r, f);
    what = "whole body replaced";
  } else if (roll === 2) {
    headers["content-type"] = r.pick([
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "",
    ]);
    what = `content-type ${headers["content-type"]}`;
  } else if (roll === 3 && body && typeof body === "object" && !Array.isArray(body)) {
    // defineProperty, so "__proto__" becomes a key of the JSON rather than the object's prototype.
    Object.defineProperty(body, r.pick(["extra", "__proto__", "constructor", "ép", "", "a".repeat(5000)]), {
      value: strangeValue(r, f),
      enumerable: true,
    });
    what = "extra field";
  } else if (body && typeof body === "object" && !Array.isArray(body)) {
    const obj = body as Record<string, Json>;
    const keys = [...new Set([...Object.keys(obj), ...Object.keys(schema?.properties ?? {})])];
    if (keys.length) {
      const key = r.pick(keys);
      const current = obj[key];
      if (r.chance(0.15)) {
        delete obj[key];
        what = `missing ${key}`;
      } else if (current && typeof current === "object" && r.chance(0.4)) {
        obj[key] = mutateInside(current, r, f);
        what = `inside ${key}`;
      } else {
        obj[key] = strangeValue(r, f);
        what = `${key} = ${short(obj[key])}`;
      }
    }
  }
  if (text === undefined) text = toJson(body);
  return { method: op.method, url: `${prefix}${urlPath}`, headers, body: text, what: pathWhat + what };
}

function jobsBody(action: string, r: Rand): Json {
  switch (action) {
    case "move":
      return { id: "1", index: r.int(3) };
    case "pause":
      return { lane: r.pick(["builtin", "local", "deployment:ltx2"]), paused: true };
    case "paid-reset":
      return {};
    default:
      return { id: r.pick(["1", "2", "nope"]) };
  }
}

/** One element or key inside an object or array made strange. */
function mutateInside(value: Json, r: Rand, f: Fixture): Json {
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[value.length ? r.int(value.length) : 0] = strangeValue(r, f);
    return copy;
  }
  const obj = { ...(value as Record<string, Json>) };
  const keys = Object.keys(obj);
  const key = keys.length && r.chance(0.7) ? r.pick(keys) : strangeString(r, f).slice(0, 200);
  obj[key] = strangeValue(r, f);
  return obj;
}

function short(v: Json): string {
  let text: string;
  try {
    text = toJson(v);
  } catch {
    text = "<too deep to print>";
  }
  return text.length > 120 ? `${text.slice(0, 100)}… (${text.length} chars)` : text;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every file under `dir` with its size and mtime (the folder itself absent: empty). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(d, e.name);
      const s = await stat(full).catch(() => null);
      out.set(full, s ? `${e.isDirectory() ? "d" : s.size}:${s.mtimeMs}` : "gone");
      if (e.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  return out;
}

async function leftovers(dir: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries)
    if (e.isFile() && /\.tmp(\.[A-Za-z0-9]{1,8})?$/.test(e.name)) found.push(path.join(e.parentPath, e.name));
  return found;
}

describe("fuzz: every route refuses bad input with a short 4xx", () => {
  let studio: Studio;
  let app: Hono;
  let f: Fixture;
  let pristine: string;
  const stops: boolean[] = [];

  beforeAll(async () => {
    studio = await makeStudio();
    const port = await closedPort();
    const closedUrl = `http://127.0.0.1:${port}`;
    const env = studio.env.services.env;
    // Every engine address points at a closed loopback port (the environment wins over any address the fuzz saves).
    env.STUDIO_LOCAL_URL = closedUrl;
    env.STUDIO_ENGINE_URL = closedUrl;
    env.STUDIO_CLOUD_URL = closedUrl;
    env.STUDIO_DEPLOYMENTS = "{}";
    env.STUDIO_ENGINE_PATH = path.join(studio.env.home, "engine");
    studio.env.services.server = { host: "127.0.0.1", port: 1, stop: (restart) => stops.push(restart) };
    app = createApp(studio.env.services, functions);

    const ep = await studio.episode(SCRIPT);
    for (const shot of ["sh010", "sh020"]) {
      await studio.take(ep, "proxy", shot, 1);
      await studio.take(ep, "final", shot, 1);
    }
    const outside = path.join(studio.env.dir, "outside");
    const outsideEp = path.join(outside, "ep01");
    await mkdir(outsideEp, { recursive: true });
    await writeFile(path.join(outside, "secret.txt"), "keep out");
    await writeFile(path.join(outsideEp, "ep01.md"), SCRIPT);
    await writeFile(path.join(outsideEp, "series.json"), "{}");
    pristine = path.join(studio.env.dir, "pristine");
    await cp(ep, pristine, { recursive: true });
    f = { root: studio.root, show: path.dirname(ep), ep, outside, outsideEp, closedUrl };
    await putRoots();
    // The environment's closed addresses win over anything the fuzz saves, so no request leaves the machine.
    const fromEnv = (await (await send("GET", "/studio/settings")).json()) as {
      from_env: Record<string, string>;
    };
    expect(Object.keys(fromEnv.from_env).sort()).toEqual(
      ["cloud_url", "deployments", "engine_url", "local_url", "path"].sort(),
    );
    // Assembly waits for its job: with the builtin lane paused it answers at once instead.
    await pauseBuiltin();
  }, 60_000);

  afterAll(async () => {
    await studio?.cleanup();
  });

  const send = (method: string, url: string, body?: Json) =>
    app.request(`http://127.0.0.1:8190${url}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const putRoots = async () =>
    expect((await send("PUT", "/studio/config", { roots: [f.root] })).status).toBe(200);
  const pauseBuiltin = async () =>
    expect((await send("POST", "/studio/jobs/pause", { lane: "builtin", paused: true })).status).toBe(200);

  it("answers every generated request below 500, with a short JSON error, and writes only inside its folders", async () => {
    const doc = (await (await send("GET", "/studio/openapi.json")).json()) as Schema;
    const ops = operations(doc).filter((op) => `${op.method} ${op.path}`.includes(ONLY));
    expect(ops.length).toBeGreaterThan(ONLY ? 0 : 40);
    const top = (await readdir(studio.env.dir)).sort();
    const outsideBefore = await snapshot(f.outside);
    const failures: string[] = [];
    const tally = new Map<string, Map<number | string, number>>();
    const replay = (op: Op) => `FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT} FUZZ_ROUTE='${op.method} ${op.path}'`;

    for (const op of ops) {
      const key = `${op.method} ${op.path}`;
      const r = new Rand(SEED ^ hash(key));
      if (op.method !== "GET") {
        await rm(f.ep, { recursive: true, force: true });
        await cp(pristine, f.ep, { recursive: true });
      }
      let found = 0;
      const routeStarted = Date.now();
      for (let i = 0; i < COUNT && found < 3; i++) {
        const a = makeAttempt(op, r, f);
        const started = Date.now();
        const res = await app.request(`http://127.0.0.1:8190${a.url}`, {
          method: a.method,
          headers: a.headers,
          body: a.body,
          signal: AbortSignal.timeout(SLOW_MS),
        });
        const text = await res.text();
        const took = Date.now() - started;
        const counts = tally.get(key) ?? new Map<number | string, number>();
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
        tally.set(key, counts);
        const problem = judge(key, res, text, took);
        if (problem) {
          found++;
          failures.push(
            `${key} #${i} (${a.what}): ${problem}\n  request: ${a.method} ${short(a.url)} ${a.body === undefined ? "" : short(a.body)}\n  answer: ${res.status} ${short(text)}\n  replay: ${replay(op)}`,
          );
        }
        if (op.path === "/studio/config" && op.method === "PUT") await putRoots();
        if (op.path === "/studio/jobs/{action}") await pauseBuiltin();
      }
      tally.get(key)?.set("ms", Date.now() - routeStarted);
    }

    if (process.env.FUZZ_VERBOSE) {
      for (const [key, counts] of tally) console.log(`${key} ${JSON.stringify(Object.fromEntries(counts))}`);
    }
    expect(stops, "server/stop must refuse callers it cannot place on this machine").toEqual([]);
    expect((await readdir(studio.env.dir)).sort(), "nothing new beside the roots").toEqual(top);
    expect(await snapshot(f.outside), "the outside folder is untouched").toEqual(outsideBefore);
    expect(await leftovers(f.root), "no half-written file in the roots").toEqual([]);
    // The count, not the list, is compared: the message already holds every failure once (at most 3 a route).
    expect(failures.length, `seed ${SEED}:\n${failures.join("\n")}`).toBe(0);
  }, 240_000);
});

function judge(key: string, res: Response, text: string, took: number): string | null {
  if (took > SLOW_MS - 500) return `took ${took} ms`;
  if (res.status >= 500 && !(ALLOWED_5XX[key] ?? []).includes(res.status)) return `status ${res.status}`;
  if (res.status < 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "error body is not JSON";
  }
  if (!body || typeof body !== "object" || typeof (body as { error?: unknown }).error !== "string") {
    return 'error body is not {"error": string}';
  }
  if (text.length > MAX_ERROR_BODY) return `error body is ${text.length} characters`;
  return null;
}
