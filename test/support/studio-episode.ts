// Test helpers for the cut, override, issue and discard routes: an app over a temp root, built episodes and
// takes written on disk as a render would leave them (sidecar plus small placeholder files).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { functions } from "../../functions/index.ts";
import { createApp } from "../../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./ctx.ts";
import { seriesS } from "./series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
export type Answer = { status: number; body: any };

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

export interface Studio {
  env: TestEnv;
  root: string;
  call(
    method: "GET" | "POST" | "PUT" | "DELETE",
    route: string,
    input?: Record<string, unknown>,
  ): Promise<Answer>;
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

export async function makeStudio(): Promise<Studio> {
  const env = await makeTestEnv();
  const root = path.join(env.dir, "shows");
  await mkdir(root, { recursive: true });
  env.services.env.STUDIO_ROOTS = root;
  const app = createApp(env.services, functions);
  let n = 0;

  const call: Studio["call"] = async (method, route, input = {}) => {
    let res: Response;
    if (method === "GET" || method === "DELETE") {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(input)) if (v !== undefined) query.set(k, String(v));
      res = await app.request(`/studio${route}?${query}`, { method });
    } else {
      res = await app.request(`/studio${route}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
    }
    return { status: res.status, body: await res.json() };
  };

  return {
    env,
    root,
    call,
    async episode(script, opts = {}) {
      const ep = path.join(root, `show${++n}`, "ep01");
      await mkdir(ep, { recursive: true });
      await writeFile(path.join(ep, "series.json"), JSON.stringify(opts.series ?? seriesS(), null, 2));
      await writeFile(path.join(ep, "ep01.md"), script);
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

/** Every refusal is a flat `{error}` body, plus the extra keys named. */
export function refusal(
  answer: Answer,
  status: number,
  message: RegExp | string,
  extra: string[] = [],
): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(Object.keys(answer.body).sort()).toEqual(["error", ...extra].sort());
  if (typeof message === "string") expect(answer.body.error).toBe(message);
  else expect(answer.body.error).toMatch(message);
}
