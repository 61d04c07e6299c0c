// POST /studio/refs/generate through callFunction on a built show: what it queues (views, counts, seeds, sizes,
// the queue-time sidecar and the job), what it refuses (400s), what it reports per candidate (`errors`), and the
// events in the contract's order. The jobs themselves run in test/ref-job.test.ts.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobStore } from "../lib/jobs/types.ts";
import { stableRefSeed } from "../lib/refs/effective.ts";
import { candidateSeeds, onGrid, viewsOf } from "../lib/refs/generate.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  // Nothing runs here: the builtin lane stays paused so every job stays queued.
  await store.pause("builtin", true);
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const j of (await store.list()).jobs) if (j.status === "queued") await store.cancel(j.id);
});

/** Series S with its references made on the built-in card (the shipped default is krea2). */
function cardSeries() {
  const series = seriesS();
  series.refs = { target: "card", keyframe_target: "card" };
  return series;
}
const episode = () => s.episode(SCRIPT, { series: cardSeries() });
const generate = (body: Record<string, unknown>) => s.call("POST", "/refs/generate", body);
const takesDir = (ep: string, key: string) => path.join(ep, "refs", "_takes", key);
const sidecar = async (ep: string, key: string, stem: string): Promise<Any> =>
  JSON.parse(await readFile(path.join(takesDir(ep, key), `${stem}.json`), "utf8"));
const pageEvents = () => s.env.events.filter((e) => e.type === "studio.ref" || e.type === "studio.episode");

describe("planning", () => {
  it("makes a character's four views, one view, or nothing else", () => {
    expect(viewsOf({ views: [1, 2, 3, 4] }, null)).toEqual([
      "01_threequarter",
      "02_side",
      "03_back",
      "04_face",
    ]);
    expect(viewsOf({ views: [1, 2, 3, 4] }, "02_side")).toEqual(["02_side"]);
    expect(viewsOf({ views: [] }, null)).toEqual([null]);
  });

  it("gives only the first candidate the asked seed", () => {
    let n = 100n;
    const seeds = candidateSeeds({ seed: 7n, source: "stable" }, 3, () => n++);
    expect(seeds).toEqual([
      { seed: 7n, source: "stable" },
      { seed: 100n, source: "new" },
      { seed: 101n, source: "new" },
    ]);
  });

  it("snaps a size onto the target's grid and says so", () => {
    const spec = { template: { size_multiple: 16 }, short: "Klein" } as Any;
    expect(onGrid(1024, 768, spec)).toEqual({ width: 1024, height: 768, note: null });
    expect(onGrid(1000, 770, spec)).toEqual({
      width: 1008,
      height: 768,
      note: "size 1000x770 snapped to 1008x768 for Klein",
    });
  });
});

describe("queueing candidates on the built-in card", () => {
  it("queues a character's four views sharing the stable seed, each with a queued sidecar and a ref job", async () => {
    const ep = await episode();
    const res = await generate({ ep, ref: "subject:ada", note: "first look" });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    const seed = stableRefSeed("subject:ada").toString();
    expect(res.body.queued).toEqual(
      ["01_threequarter", "02_side", "03_back", "04_face"].map((view) => ({
        ref: "subject:ada",
        view,
        take: 1,
        prompt_id: expect.stringMatching(/^j_/),
        seed,
        seed_source: "stable",
        backend: "builtin",
        target: "card",
      })),
    );
    const sc = await sidecar(ep, "subject__ada", "subject__ada_02_side_t01");
    expect(sc).toMatchObject({
      version: 1,
      ref: "subject:ada",
      view: "02_side",
      take: 1,
      ep,
      status: "queued",
      queue: "studio",
      job: res.body.queued[1].prompt_id,
      backend: "builtin",
      source: "generated",
      target: "card",
      seed_source: "stable",
      width: 1024,
      height: 1024,
      note: "first look",
      image: "subject__ada_02_side_t01.png",
    });
    expect(sc.prompt).toMatch(/side/i);
    // The seed is written as an integer, as every sidecar's seed is.
    const text = await readFile(
      path.join(takesDir(ep, "subject__ada"), "subject__ada_02_side_t01.json"),
      "utf8",
    );
    expect(text).toContain(`"seed": ${seed}`);
    const job: Any = await store.get(res.body.queued[0].prompt_id);
    expect(job).toMatchObject({
      kind: "ref",
      lane: "builtin",
      status: "queued",
      title: "subject:ada 01_threequarter t01",
      info: { ep, ref: "subject:ada", view: "01_threequarter", take: 1, target: "card", backend: "builtin" },
      payload: { kind: "image", width: 1024, height: 1024, seed, stem: "subject__ada_01_threequarter_t01" },
    });
    expect(
      pageEvents().map((e) => [e.type, (e.data as Any).view ?? null, (e.data as Any).status ?? null]),
    ).toEqual([
      ["studio.ref", "01_threequarter", "queued"],
      ["studio.ref", "02_side", "queued"],
      ["studio.ref", "03_back", "queued"],
      ["studio.ref", "04_face", "queued"],
      ["studio.episode", null, null],
    ]);
    // The listing shows the candidates queued.
    const listed = await s.call("GET", "/refs", { ep });
    const ada = listed.body.refs.find((r: Any) => r.id === "subject:ada");
    expect(ada.views[0].takes[0]).toMatchObject({ take: 1, status: "queued", usable: false });
  });

  it("counts candidates: the first on the asked seed, the rest new; numbers go on from the last", async () => {
    const ep = await episode();
    const first = await generate({ ep, ref: "subject:kettle", seed: "42", count: 3 });
    expect(first.body.queued.map((q: Any) => [q.view, q.take, q.seed_source])).toEqual([
      [null, 1, "typed"],
      [null, 2, "new"],
      [null, 3, "new"],
    ]);
    expect(first.body.queued[0].seed).toBe("42");
    expect(new Set(first.body.queued.map((q: Any) => q.seed)).size).toBe(3);
    const again = await generate({ ep, ref: "subject:kettle", seed_mode: "same" });
    expect(again.body.queued[0]).toMatchObject({
      take: 4,
      seed_source: "take:3",
      seed: first.body.queued[2].seed,
    });
    const fresh = await generate({ ep, ref: "subject:kettle", seed_mode: "new" });
    expect(fresh.body.queued[0]).toMatchObject({ take: 5, seed_source: "new" });
  });

  it("takes the request's values over the reference's override, and the override over the built ones", async () => {
    const ep = await episode();
    const put = await s.call("PUT", "/refs/override", {
      ep,
      ref: "location:kitchen",
      fields: { prompt: "the kitchen, overridden", size: "1280x720", seed: "9" },
    });
    expect(put.status).toBe(200);
    const res = await generate({ ep, ref: "location:kitchen" });
    expect(res.body.queued[0]).toMatchObject({ seed: "9", seed_source: "override" });
    let sc = await sidecar(ep, "location__kitchen", "location__kitchen_t01");
    expect(sc).toMatchObject({
      prompt: "the kitchen, overridden",
      width: 1280,
      height: 720,
      overrides: ["prompt", "seed", "size"],
    });
    const res2 = await generate({ ep, ref: "location:kitchen", prompt: "asked for", size: "1024x512" });
    expect(res2.body.queued[0]).toMatchObject({ take: 2, seed: "9" });
    sc = await sidecar(ep, "location__kitchen", "location__kitchen_t02");
    expect(sc).toMatchObject({ prompt: "asked for", width: 1024, height: 512, overrides: ["seed"] });
  });

  it("draws a location at the target's plate size and a keyframe at its shot's size in the asked pass", async () => {
    const ep = await episode();
    await s.call("POST", "/build", { ep, pass: "proxy" });
    const plate = await generate({ ep, ref: "location:street" });
    expect(plate.body.queued).toHaveLength(1);
    expect(await sidecar(ep, "location__street", "location__street_t01")).toMatchObject({
      width: 1344,
      height: 768,
    });
    const kf = await generate({ ep, ref: "shot:sh010:first" });
    expect(kf.body.errors).toEqual([]);
    const final: Any = await sidecar(ep, "shot__sh010__first", "shot__sh010__first_t01");
    expect(final).toMatchObject({ width: 1344, height: 768, pass: "final" });
    expect(final.prompt).toMatch(/first frame/i);
    expect(final.prompt).not.toMatch(/Ada waits\b.*:/);
    const proxy = await generate({ ep, ref: "shot:sh010:first", pass: "proxy" });
    const small: Any = await sidecar(ep, "shot__sh010__first", "shot__sh010__first_t02");
    expect(proxy.body.queued[0].take).toBe(2);
    expect(small.pass).toBe("proxy");
    expect(small.shot_size.width).toBeLessThan(1344);
    expect(small.width / small.height).toBeCloseTo(small.shot_size.width / small.shot_size.height, 1);
  });
});

describe("refusals and per-candidate errors", () => {
  it("refuses what the contract refuses with a 400 saying why", async () => {
    const ep = await episode();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ref: "subject:ada", prompt: "a woman" }, /character.*name the view/],
      [{ ref: "voice:ada" }, /voices are not generated here/],
      [{ ref: "subject:ada", view: "sheet" }, /sheet of subject:ada is not generated/],
      [{ ref: "subject:kettle", view: "02_side" }, /has no views/],
      [{ ref: "location:kitchen", target: "nope" }, /target: 'nope' is not an image target/],
      [{ ref: "location:kitchen", target: "animatic" }, /target: 'animatic' is not an image target/],
      [{ ref: "location:kitchen", count: 17 }, /count/],
      [{ ref: "location:kitchen", size: "99x99" }, /size must be WxH/],
      [{ ref: "shot:sh010:first", size: "1024x1024" }, /size is not set on a keyframe/],
      [{ ref: "nothing:here" }, /reference id/],
    ];
    for (const [body, why] of cases) refusal(await generate({ ep, ...body }), 400, why);
    refusal(await generate({ ep, ref: "subject:nobody" }), 404, /not a reference of this episode/);
    expect(pageEvents()).toEqual([]);
  });

  it("reports a candidate its backend cannot make as an error entry, queuing nothing and emitting nothing", async () => {
    const ep = await episode();
    const res = await generate({ ep, ref: "location:kitchen", backend: "local" });
    expect(res.status).toBe(200);
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      {
        ref: "location:kitchen",
        view: null,
        target: "card",
        error: "Card is drawn by the built-in engine only: leave backend out or send builtin",
      },
    ]);
    const none = await generate({ ep, ref: "location:kitchen", backend: "nowhere" });
    expect(none.body.errors[0].error).toMatch(/nowhere/);
    const edit = await generate({ ep, ref: "location:kitchen", target: "flux2_klein_edit" });
    expect(edit.body.errors).toEqual([
      expect.objectContaining({
        target: "flux2_klein_edit",
        error: expect.stringMatching(/is an edit target/),
      }),
    ]);
    expect(pageEvents()).toEqual([]);
  });
});
