// The temp-show fixture for route tests: a temp settings folder, a root with show folders and built episodes, takes
// written on disk as a render leaves them (sidecar plus small placeholder files), routes called through callFunction.
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Method, StudioFunction } from "../../functions/fn.ts";
import { functions } from "../../functions/index.ts";
import { type Answer, callFunction } from "./call.ts";
import { makeTestEnv, type TestEnv } from "./ctx.ts";
import { seriesS } from "./series-s.ts";

export { type Answer, refusal, refused } from "./call.ts";

export interface TakeOptions {
  status?: "queued" | "ok" | "failed";
  frames?: number;
  fps?: number;
  seed?: number | string;
  /** Write the mp4 (default true). */
  mp4?: boolean;
  /** Extra sidecar fields. */
  sidecar?: Record<string, unknown>;
}

/** Files of a new episode folder, by path relative to it (`../` is the show folder): text, bytes, else JSON. */
export type EpisodeFiles = Record<string, unknown>;

export interface Studio {
  env: TestEnv;
  /** The configured root (links resolved), holding `show<n>/ep01` folders. */
  root: string;
  /** A folder beside the root, outside every root (made when the fixture is asked for it). */
  outside: string;
  /** Call the route `method route` (a path below /studio) on `input` through callFunction. */
  call(method: Method, route: string, input?: Record<string, unknown>): Promise<Answer>;
  /** A new empty show folder `<root>/<name>`, by default `show<n>`. */
  show(name?: string): Promise<string>;
  /** A new episode folder `<root>/show<n>/ep01` holding `files` (an `undefined` one is not written). */
  folder(files?: EpisodeFiles): Promise<string>;
  /** A new episode folder with series S and `script`, built unless `build` is false. */
  episode(script: string, opts?: { build?: boolean; series?: Record<string, unknown> }): Promise<string>;
  /** Write take `take` of `shot` as a finished render would leave it; returns the stem. */
  take(ep: string, pass: "final" | "proxy", shot: string, take: number, opts?: TakeOptions): Promise<string>;
  readJson(file: string): Promise<unknown>;
  cleanup(): Promise<void>;
}

/** The three-shot script most tests use: sh010 3 s, sh020 2 s, sh030 2 s, all on the series target. */
export const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 3",
  "Ada waits.",
  "## sh020",
  "who: bo",
  "dur: 2",
  "Bo waits.",
  "## sh030",
  "dur: 2",
  "Cy runs.",
].join("\n");

/** The route-table function answering `method route`, with the values of its path parameters. */
export function routeFor(
  method: Method,
  route: string,
): { fn: StudioFunction; params: Record<string, string> } {
  const parts = route.split("/");
  for (const fn of functions) {
    const pattern = fn.path.split("/");
    if (fn.method !== method || fn.root || pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((p, i) => {
      if (!p.startsWith(":")) return p === parts[i];
      params[p.slice(1)] = parts[i];
      return parts[i] !== "";
    });
    if (matches) return { fn, params };
  }
  throw new Error(`no route ${method} /studio${route} in the route table`);
}

export interface StudioOptions {
  /** Make the `outside` folder. */
  outside?: boolean;
}

/** A fixture of its own (the caller cleans it up). */
export async function makeStudio(opts: StudioOptions = {}): Promise<Studio> {
  const env = await makeTestEnv();
  const base = await realpath(env.dir);
  const root = path.join(base, "shows");
  const outside = path.join(base, "outside");
  await mkdir(root, { recursive: true });
  if (opts.outside) await mkdir(outside, { recursive: true });
  env.services.env.STUDIO_ROOTS = root;
  let n = 0;

  const call: Studio["call"] = (method, route, input = {}) => {
    const { fn, params } = routeFor(method, route);
    return callFunction(fn, input, env.services, { params });
  };

  const show: Studio["show"] = async (name = `show${++n}`) => {
    const dir = path.join(root, name);
    await mkdir(dir, { recursive: true });
    return dir;
  };

  const folder: Studio["folder"] = async (files = {}) => {
    const ep = path.join(await show(), "ep01");
    await mkdir(ep);
    for (const [name, content] of Object.entries(files)) {
      if (content === undefined) continue;
      const file = path.join(ep, name);
      await mkdir(path.dirname(file), { recursive: true });
      const isText = typeof content === "string" || content instanceof Uint8Array;
      await writeFile(file, isText ? content : JSON.stringify(content, null, 2));
    }
    return ep;
  };

  return {
    env,
    root,
    outside,
    call,
    show,
    folder,
    async episode(script, opts = {}) {
      const ep = await folder({ "series.json": opts.series ?? seriesS(), "ep01.md": script });
      if (opts.build !== false) {
        const built = await call("POST", "/build", { ep });
        if (!built.body.ok) throw new Error(`build failed: ${JSON.stringify(built.body)}`);
      }
      env.events.length = 0;
      return ep;
    },
    async take(ep, pass, shot, take, opts = {}) {
      const stem = `${shot}_t${String(take).padStart(2, "0")}`;
      const dir = path.join(ep, pass === "final" ? "renders" : "renders_proxy", shot);
      await mkdir(dir, { recursive: true });
      const status = opts.status ?? "ok";
      const mp4 = opts.mp4 ?? status === "ok";
      const sidecar: Record<string, unknown> = {
        version: 1,
        shot,
        take,
        pass,
        status,
        seed: opts.seed ?? 123,
        frames: opts.frames ?? 72,
        fps: opts.fps ?? 24,
        mp4: mp4 ? `${stem}.mp4` : null,
        thumb: `${stem}.jpg`,
        strip: `${stem}_strip.jpg`,
        ...opts.sidecar,
      };
      // The seed is written as an integer literal, as the service's own sidecars are.
      const text = JSON.stringify(sidecar, null, 2).replace(/"seed": "(\d+)"/, '"seed": $1');
      await writeFile(path.join(dir, `${stem}.json`), text);
      if (mp4) await writeFile(path.join(dir, `${stem}.mp4`), "mp4");
      await writeFile(path.join(dir, `${stem}.jpg`), "jpg");
      await writeFile(path.join(dir, `${stem}_strip.jpg`), "jpg");
      return stem;
    },
    async readJson(file) {
      return JSON.parse(await readFile(file, "utf8"));
    },
    cleanup: () => env.cleanup(),
  };
}

/**
 * The fixture shared by the tests of one file: made before them, removed after, its events cleared before each.
 * Its fields are there once the file's tests run.
 */
export function useStudio(opts: StudioOptions = {}): Studio {
  const holder: { studio?: Studio } = {};
  const studio = (): Studio => {
    if (!holder.studio) throw new Error("the studio fixture is made before the tests run");
    return holder.studio;
  };
  beforeAll(async () => {
    holder.studio = await makeStudio(opts);
  });
  afterAll(() => holder.studio?.cleanup());
  beforeEach(() => {
    studio().env.events.length = 0;
  });
  return {
    get env() {
      return studio().env;
    },
    get root() {
      return studio().root;
    },
    get outside() {
      return studio().outside;
    },
    call: (...args) => studio().call(...args),
    show: (...args) => studio().show(...args),
    folder: (...args) => studio().folder(...args),
    episode: (...args) => studio().episode(...args),
    take: (...args) => studio().take(...args),
    readJson: (...args) => studio().readJson(...args),
    cleanup: () => studio().cleanup(),
  };
}
