// A real server process on loopback: starter show listed and built, info, graceful stop and restart codes.
import { cp, mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { startServer } from "./support/server.ts";

let env: TestEnv;
let shows: string;
let ep: string;

beforeAll(async () => {
  env = await makeTestEnv();
  shows = path.join(env.dir, "shows");
  ep = path.join(shows, "gold_path", "ep01");
  await mkdir(ep, { recursive: true });
  await cp("lib/episode/starter/series.json", path.join(ep, "series.json"));
  await cp("lib/episode/starter/starter.md", path.join(ep, "ep01.md"));
});
afterAll(() => env.cleanup());

const json = (url: string, init?: RequestInit) =>
  fetch(url, init).then(async (r) => ({ status: r.status, body: await r.json() }));

describe("node runtime/serve.js", () => {
  it("lists and builds the starter show, then stops with exit code 3 on a restart request", async () => {
    const server = await startServer({ STUDIO_HOME: env.home, STUDIO_ROOTS: shows });
    try {
      for (const prefix of ["/studio", "/api/studio"]) {
        const list = await json(`${server.url}${prefix}/episodes`);
        expect(list.status).toBe(200);
        expect((list.body as { ep: string; name: string }[]).map((e) => e.name)).toEqual(["ep01"]);
      }
      const build = await json(`${server.url}/studio/build`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ep }),
      });
      expect(build.status).toBe(200);
      expect(build.body).toMatchObject({ ok: true, passes: { final: { ok: true }, proxy: { ok: true } } });

      const info = await json(`${server.url}/studio/info`);
      expect(info.body).toMatchObject({
        service: "episode-studio",
        roles: ["api", "worker"],
        settings: env.home,
      });

      const stop = await json(`${server.url}/api/studio/server/stop`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ restart: true }),
      });
      expect(stop).toEqual({ status: 200, body: { ok: true, restart: true } });
      expect(await server.exited).toBe(3);
    } finally {
      server.child.kill("SIGKILL");
    }
  });

  it("exits 0 on SIGTERM and on a plain stop", async () => {
    const a = await startServer({ STUDIO_HOME: env.home, STUDIO_ROOTS: shows });
    a.child.kill("SIGTERM");
    expect(await a.exited).toBe(0);

    const b = await startServer({ STUDIO_HOME: env.home, STUDIO_ROOTS: shows });
    const stop = await json(`${b.url}/studio/server/stop`, { method: "POST" });
    expect(stop.body).toEqual({ ok: true, restart: false });
    expect(await b.exited).toBe(0);
  });
});
