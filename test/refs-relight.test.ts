// POST /studio/refs/relight on real files: the series config gains the relit locations (of, relight, the description
// plus the new light, a plate beside the source's) with a history copy, a sequence's header and plate: lines are
// repointed and rebuilt, a dry run writes nothing, and the refusals the contract lists are 400s.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planRelight, relightOf, relitPlatePath, repointScript, sequenceLines } from "../lib/refs/relight.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 3",
  "Ada waits.",
  "## sh020",
  "plate: kitchen_rev",
  "dur: 2",
  "The sink.",
  "# sq02 street",
  "## sh030",
  "dur: 2",
  "Cy runs.",
].join("\n");

describe("relight pieces", () => {
  it("presets give their instruction, light and suffix; an instruction gets relit; bad suffixes refuse", () => {
    expect(relightOf("night", null)).toMatchObject({ preset: "night", suffix: "night" });
    expect(relightOf("night", null).light).toMatch(/at night/);
    expect(relightOf("make it rain", null)).toMatchObject({
      preset: null,
      suffix: "relit",
      light: "relit: make it rain",
    });
    expect(relightOf("dusk", "late_2")).toMatchObject({ suffix: "late_2" });
    expect(() => relightOf("dusk", "a-b")).toThrow(/letters, digits and _ only/);
    expect(() => relightOf("  ", null)).toThrow(/preset/);
    expect(relitPlatePath("refs/_bg/kitchen.png", "kitchen_night")).toBe("refs/_bg/kitchen_night.png");
    expect(relitPlatePath("plate.jpg", "x_dawn")).toBe("x_dawn.jpg");
  });

  it("a sequence's lines: its header and its shots' plates, not the next sequence's; repointed in place", () => {
    const lines = sequenceLines(SCRIPT, "sq01");
    expect(lines).toEqual([
      { index: 1, kind: "header", value: "kitchen" },
      { index: 7, kind: "plate", value: "kitchen_rev" },
    ]);
    expect(sequenceLines(SCRIPT, "sq09")).toBeNull();
    const r = repointScript(
      SCRIPT,
      lines ?? [],
      new Map([
        ["kitchen", "kitchen_night"],
        ["kitchen_rev", "kitchen_rev_night"],
      ]),
    );
    expect(r.changed).toEqual([
      { line: 2, from: "kitchen", to: "kitchen_night" },
      { line: 8, from: "kitchen_rev", to: "kitchen_rev_night" },
    ]);
    const out = r.text.split("\n");
    expect(out[1]).toBe("# sq01 kitchen_night");
    expect(out[7]).toBe("plate: kitchen_rev_night");
    expect(out[10]).toBe("# sq02 street");
  });

  it("plans the entries; an id taken by another location refuses, the same relight again is kept", () => {
    const series = seriesS();
    const plan = planRelight(series, SCRIPT, { relight: "night", sequence: "sq01" });
    expect(plan.locations).toEqual([
      {
        source: "kitchen",
        id: "kitchen_night",
        exists: false,
        entry: {
          of: "kitchen",
          relight: "night",
          description: "a cramped kitchen at night, at night, lit by cool moonlight and warm practical lamps",
          plate: "refs/_bg/kitchen_night.png",
        },
      },
      {
        source: "kitchen_rev",
        id: "kitchen_rev_night",
        exists: false,
        entry: expect.objectContaining({ of: "kitchen", relit_from: "kitchen_rev" }),
      },
    ]);
    series.locations.street_night = { of: "street", relight: "night", description: "d", plate: "p.png" };
    expect(planRelight(series, null, { relight: "night", locations: ["street"] }).locations[0]).toMatchObject(
      {
        exists: true,
        entry: { plate: "p.png" },
      },
    );
    series.locations.street_dusk = { description: "someone else's", plate: "q.png" };
    expect(() => planRelight(series, null, { relight: "dusk", locations: ["street"] })).toThrow(
      /street_dusk is taken/,
    );
  });
});

describe("POST /studio/refs/relight", () => {
  it("writes the relit locations with a history copy, repoints the sequence and rebuilds", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await s.call("POST", "/refs/relight", {
      ep,
      relight: "night",
      sequence: "sq01",
      repoint: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.locations.map((l: { id: string }) => l.id)).toEqual([
      "kitchen_night",
      "kitchen_rev_night",
    ]);
    expect(res.body.repointed).toEqual([
      { line: 2, from: "kitchen", to: "kitchen_night" },
      { line: 8, from: "kitchen_rev", to: "kitchen_rev_night" },
    ]);
    expect(res.body.build, JSON.stringify(res.body.build)).toMatchObject({ ok: true });
    const config = (await s.readJson(path.join(ep, "series.json"))) as { locations: Record<string, unknown> };
    expect(config.locations.kitchen_night).toMatchObject({
      of: "kitchen",
      relight: "night",
      plate: "refs/_bg/kitchen_night.png",
    });
    expect(config.locations.kitchen).toEqual(seriesS().locations.kitchen);
    const script = await readFile(path.join(ep, "ep01.md"), "utf8");
    expect(script.split("\n")[1]).toBe("# sq01 kitchen_night");
    expect(script).toContain("# sq02 street");
    const history = await readdir(path.join(ep, "_history"));
    expect(history.some((n) => n.startsWith("series.json."))).toBe(true);
    expect(history.some((n) => n.startsWith("ep01.md."))).toBe(true);
    // The build reads the relit location: the listing has it, with its source.
    const refs = await s.call("GET", "/refs", { ep });
    const relit = refs.body.refs.find((r: { id: string }) => r.id === "location:kitchen_night");
    expect(relit).toMatchObject({ kind: "location", used_by: { proxy: ["sh010"] } });
    expect(s.env.events.some((e) => e.type === "studio.episode")).toBe(true);
  });

  it("a dry run answers the plan and writes nothing", async () => {
    const ep = await s.episode(SCRIPT);
    const before = [await readFile(path.join(ep, "series.json")), await readFile(path.join(ep, "ep01.md"))];
    const res = await s.call("POST", "/refs/relight", {
      ep,
      relight: "warm candle light",
      locations: ["street"],
      dry_run: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      locations: [
        { source: "street", id: "street_relit", exists: false, entry: { relight: "warm candle light" } },
      ],
      queued: [],
      errors: [],
      repointed: [],
      build: null,
    });
    expect(await readFile(path.join(ep, "series.json"))).toEqual(before[0]);
    expect(await readFile(path.join(ep, "ep01.md"))).toEqual(before[1]);
    await expect(readdir(path.join(ep, "_history"))).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });

  it("refuses both or neither source, unknown sequence or location, no plate, a bad suffix, a taken id, repoint without a sequence", async () => {
    const series = seriesS();
    series.locations.bare = { description: "nowhere" };
    series.locations.street_dawn = { description: "taken", plate: "refs/_bg/x.png" };
    const ep = await s.episode(SCRIPT, { series });
    const before = await readFile(path.join(ep, "series.json"));
    const why = async (body: Record<string, unknown>) => {
      const a = await s.call("POST", "/refs/relight", { ep, relight: "night", ...body });
      return [a.status, String(a.body.error)];
    };
    expect(await why({ sequence: "sq01", locations: ["street"] })).toEqual([
      400,
      expect.stringMatching(/not both/),
    ]);
    expect(await why({})).toEqual([400, expect.stringMatching(/give a sequence/)]);
    expect(await why({ sequence: "sq09" })).toEqual([400, expect.stringMatching(/no sequence sq09/)]);
    expect(await why({ locations: ["attic"] })).toEqual([
      400,
      expect.stringMatching(/attic is not a location/),
    ]);
    expect(await why({ locations: ["bare"] })).toEqual([400, expect.stringMatching(/bare has no plate/)]);
    expect(await why({ locations: ["street"], suffix: "../x" })).toEqual([
      400,
      expect.stringMatching(/letters, digits/),
    ]);
    expect(await why({ locations: ["street"], relight: "dawn" })).toEqual([
      400,
      expect.stringMatching(/street_dawn is taken/),
    ]);
    expect(await why({ locations: ["street"], repoint: true })).toEqual([
      400,
      expect.stringMatching(/needs sequence/),
    ]);
    expect(await why({ locations: ["street"], target: "animatic" })).toEqual([
      400,
      expect.stringMatching(/not an edit target/),
    ]);
    expect(await readFile(path.join(ep, "series.json"))).toEqual(before);
  });
});
