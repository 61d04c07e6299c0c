// The editor page as the service serves it: the HTML never cached, naming the entry script and the chunks it needs
// and preloading a deep link's episode, content-hashed assets (the views' chunks too) cached for a year with ETag
// and gzip, the redirects to /studio/ keeping a deep link's query, and the guard in front of it all.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { silentLogger } from "../lib/context.ts";
import { createApp } from "../runtime/app.ts";
import { pageSource } from "../runtime/page.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let app: ReturnType<typeof createApp>;
const page = pageSource(silentLogger);
const local = { host: "127.0.0.1:8190" };

beforeAll(async () => {
  env = await makeTestEnv();
  app = createApp(env.services, functions, { page });
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
    expect(html).not.toMatch(/rel="preload"/);
  });

  it("names the entry script and preloads the chunks it imports; the views opened later are chunks of their own", async () => {
    const html = await (await app.request("/studio/", { headers: local })).text();
    const entry = /<script type="module" src="\/studio\/assets\/(main-[A-Z0-9]+\.js)">/.exec(html)?.[1];
    expect(entry).toBeTruthy();
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/studio\/assets\/([\w.-]+)"/g)].map(
      (m) => m[1],
    );
    const { assets } = await page.load();
    const main = new TextDecoder().decode(assets.get(entry!)!.bytes);
    // Every chunk the entry imports at its top is fetched beside it, not after it has been read.
    const imported = [...main.matchAll(/import\s*(?:[^"();]*?from\s*)?"\.\/([\w.-]+)"/g)].map((m) => m[1]);
    expect(imported.length).toBeGreaterThan(0);
    expect(preloaded).toEqual(expect.arrayContaining(imported));
    const script = [...assets.keys()].find((n) => /^script-view-[A-Z0-9]+\.js$/.test(n));
    expect(script).toBeTruthy();
    expect(preloaded).not.toContain(script);
    expect(main).toContain(`./${script}`);
    // CodeMirror is the Script view's: the entry and what it preloads hold none of it.
    for (const name of [entry!, ...preloaded]) {
      expect(new TextDecoder().decode(assets.get(name)!.bytes)).not.toMatch(/cm-editor/);
    }
    expect(new TextDecoder().decode(assets.get(script!)!.bytes)).toMatch(/cm-editor/);
  });

  it("preloads a deep link's episode at the address the page's first read asks for", async () => {
    // The page reads `episode?ep=&pass=` (its pass proxy unless the link says final), its query written by
    // URLSearchParams; any other spelling would be fetched twice.
    const links = [
      ["?ep=%2Fshows%2Fa%26b%20c%2Fep01&view=cut", "/studio/episode?ep=%2Fshows%2Fa%26b+c%2Fep01&pass=proxy"],
      ["?shot=sh0010&pass=final&ep=%2Fshows%2Fep01", "/studio/episode?ep=%2Fshows%2Fep01&pass=final"],
      ["?ep=%2Fshows%2Fep01&pass=other", "/studio/episode?ep=%2Fshows%2Fep01&pass=proxy"],
    ];
    for (const [search, episode] of links) {
      const html = await (await app.request(`/studio/${search}`, { headers: local })).text();
      const href = /<link rel="preload" as="fetch" crossorigin="anonymous" href="([^"]+)"/.exec(html)?.[1];
      expect(href?.replaceAll("&amp;", "&")).toBe(episode);
    }
  });

  it("serves each asset with a year's caching, an ETag, 304 on a match and gzip when asked", async () => {
    const names = [...(await page.load()).assets.keys()];
    expect(names.length).toBeGreaterThan(2);
    for (const name of names) {
      const res = await app.request(`/studio/assets/${name}`, { headers: local });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
      const plain = Buffer.from(await res.arrayBuffer());
      expect(plain.length).toBeGreaterThan(100);
      const again = await app.request(`/studio/assets/${name}`, {
        headers: { ...local, "if-none-match": etag! },
      });
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
