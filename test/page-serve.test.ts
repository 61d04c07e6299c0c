// The editor page as the service serves it: the HTML never cached, content-hashed assets cached for a year with
// ETag and gzip, the redirects to /studio/ keeping a deep link's query, and the guard in front of it all.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { silentLogger } from "../lib/context.ts";
import { createApp } from "../runtime/app.ts";
import { pageSource } from "../runtime/page.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let app: ReturnType<typeof createApp>;
const local = { host: "127.0.0.1:8190" };

beforeAll(async () => {
  env = await makeTestEnv();
  app = createApp(env.services, functions, { page: pageSource(silentLogger) });
});
afterAll(() => env.cleanup());

async function assetNames(): Promise<string[]> {
  const html = await (await app.request("/studio/", { headers: local })).text();
  return [...html.matchAll(/\/studio\/assets\/([\w.-]+)/g)].map((m) => m[1]);
}

describe("the editor page", () => {
  it("answers the HTML at /studio/, never cached, with a policy that keeps it to this origin", async () => {
    const res = await app.request("/studio/", { headers: local });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
    expect(res.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    const html = await res.text();
    expect(html).toMatch(/<div id="app">/);
    const names = await assetNames();
    expect(names.some((n) => /^main-[A-Z0-9]+\.js$/.test(n))).toBe(true);
    expect(names.some((n) => /^style-[A-Z0-9]+\.css$/.test(n))).toBe(true);
  });

  it("redirects / and /studio to /studio/ with the deep link's query", async () => {
    for (const from of ["/", "/studio"]) {
      const res = await app.request(`${from}?ep=%2Fshows%2Fep01&view=cut`, { headers: local });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/studio/?ep=%2Fshows%2Fep01&view=cut");
    }
  });

  it("serves each asset with a year's caching, an ETag, 304 on a match and gzip when asked", async () => {
    for (const name of await assetNames()) {
      const res = await app.request(`/studio/assets/${name}`, { headers: local });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
      const plain = Buffer.from(await res.arrayBuffer());
      expect(plain.length).toBeGreaterThan(100);
      const again = await app.request(`/studio/assets/${name}`, { headers: { ...local, "if-none-match": etag! } });
      expect(again.status).toBe(304);
      const zipped = await app.request(`/studio/assets/${name}`, {
        headers: { ...local, "accept-encoding": "gzip, br" },
      });
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).equals(plain)).toBe(true);
    }
  });

  it("answers 404 JSON for an asset it does not have, and the page's neighbours are still the API's", async () => {
    const res = await app.request("/studio/assets/main-NOPE.js", { headers: local });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/no page asset named "main-NOPE.js"/);
    const traversal = await app.request("/studio/assets/..%2F..%2Fpackage.json", { headers: local });
    expect(traversal.status).toBe(404);
    const config = await app.request("/studio/config", { headers: local });
    expect(config.status).toBe(200);
  });

  it("is refused to a foreign Host like every route (DNS rebinding)", async () => {
    const res = await app.request("/studio/", { headers: { host: "evil.example" } });
    expect(res.status).toBe(403);
  });
});
