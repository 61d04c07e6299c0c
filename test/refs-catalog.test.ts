// The reference catalog: every reference the series config and the builds name, with its wording, live path,
// keyframe facts and the shots of each pass that read it; kept until the config or a build changes.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readCatalog } from "../lib/refs/catalog.ts";
import { refsPlace } from "../lib/refs/place.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "target: minimax_h3_ref2va",
  "who: ada",
  "with: kettle",
  "size: close",
  "dur: 3",
  "Ada fills the kettle. She waits.",
  "## sh020",
  "who: bo",
  "size: close",
  "first: refs/in/sh020.png",
  "dur: 2",
  "Bo waits.",
  "## sh030",
  "continuous: first",
  "last: none",
  "dur: 2",
  "Cy runs.",
].join("\n");

async function catalogOf(ep: string) {
  return readCatalog(s.env.services, await refsPlace(s.env.services, ep));
}

describe("reference catalog", () => {
  it("lists subjects, variants, locations, voices and the keyframes of built shots", async () => {
    const ep = await s.episode(SCRIPT);
    const cat = await catalogOf(ep);
    const ids = cat.refs.map((r) => r.ref.id);
    expect(ids).toEqual([
      "subject:ada",
      "subject:bo",
      "subject:cy",
      "subject:mom",
      "subject:gina",
      "subject:gina_towel",
      "subject:kettle",
      "location:kitchen",
      "location:kitchen_rev",
      "location:street",
      "voice:ada",
      "voice:bo",
      "voice:cy",
      "voice:mom",
      "voice:gina",
      "shot:sh020:first",
      "shot:sh020:last",
      "shot:sh030:first",
      "shot:sh030:last",
    ]);
    const by = (id: string) => {
      const r = cat.byId.get(id);
      if (!r) throw new Error(`no ${id}`);
      return r;
    };

    const ada = by("subject:ada");
    expect(ada).toMatchObject({
      kind: "character",
      name: "Ada",
      subject: "ada",
      panels: 4,
      built_panels: null,
    });
    expect(ada.path).toBe("refs/ada/ada_sheet_4panel.png");
    expect(ada.file).toBe(path.join(ep, "refs/ada/ada_sheet_4panel.png"));
    expect(ada.prompt).toMatch(/^A character reference sheet of Ada: four panels/);
    expect(ada.views.map((v) => v.view)).toEqual(["01_threequarter", "02_side", "03_back", "04_face"]);
    expect(ada.views[1].prompt).toContain("The view: a direct side profile facing right.");
    expect(ada.views[3].prompt).toContain("A tall woman in a green raincoat.");
    expect(ada.used_by).toEqual({ final: ["sh010"], proxy: ["sh010"] });

    // A wardrobe variant keeps its base's name, carries `of` and its derived sheet, and has no voice of its own.
    const towel = by("subject:gina_towel");
    expect(towel).toMatchObject({ kind: "character", name: "Gina", of: "gina" });
    expect(towel.path).toBe("refs/gina/gina_towel_sheet_4panel.png");
    expect(ids).not.toContain("voice:gina_towel");

    const kettle = by("subject:kettle");
    expect(kettle).toMatchObject({ kind: "prop", name: "the kettle", panels: 1, views: [] });
    expect(kettle.prompt).toMatch(/^One clean three-quarter view of the kettle/);

    const rev = by("location:kitchen_rev");
    expect(rev).toMatchObject({
      kind: "location",
      of: "kitchen",
      path: "refs/_bg/kitchen_rev.png",
      subject: null,
    });
    expect(rev.prompt).toMatch(/^An empty establishing view of the kitchen from the sink/);

    const voice = by("voice:ada");
    expect(voice).toMatchObject({ kind: "voice", name: "Ada", subject: "ada", path: "refs/voices/ada.wav" });
    expect(voice.prompt).toContain('Ada says: "Hello, my name is Ada, and this is how I sound."');

    // sh010 renders on H3 Ref2VA, which reads no keyframes; the animatic reads first frames only, so last frames
    // are listed with no need.
    const first20 = by("shot:sh020:first");
    expect(first20.path).toBe("refs/shots/sh020/first.png");
    expect(first20.file).toBe(path.join(ep, "refs", "shots", "sh020", "first.png"));
    expect(first20.keyframe).toMatchObject({
      shot: "sh020",
      which: "first",
      need: "optional",
      method: "import",
      script: "refs/in/sh020.png",
      requested: true,
      reads: true,
      import_path: "refs/in/sh020.png",
    });
    expect(first20.prompt).toMatch(/^The first frame of a close-up/);
    expect(first20.used_by).toEqual({ final: ["sh020"], proxy: ["sh020"] });
    // A lone character in a close shot gives an edit target its face view, then the plate.
    expect(first20.keyframe?.edit_candidates).toEqual([
      { ref: "subject:bo", view: "04_face" },
      { ref: "location:kitchen", view: null },
    ]);
    expect(by("shot:sh020:last").keyframe).toMatchObject({ need: null, reads: false, method: "generate" });
    expect(by("shot:sh020:last").used_by).toEqual({ final: [], proxy: [] });
    expect(by("shot:sh030:first").keyframe).toMatchObject({
      method: "continuity",
      script: null,
      need: "optional",
    });
    expect(by("shot:sh030:last").keyframe).toMatchObject({ script: "none", requested: false, reads: false });
    expect(first20.keyframe?.size).toEqual({ width: 1344, height: 768 });
  });

  it("is kept while nothing changes and made again when the config changes", async () => {
    const ep = await s.episode(SCRIPT);
    // The first reads of a fresh build may parse a file twice (both passes at once); from then on it is kept.
    await catalogOf(ep);
    const a = await catalogOf(ep);
    const b = await catalogOf(ep);
    expect(b).toBe(a);
    const series = seriesS();
    series.subjects.ada.name = "Ada Lovelace";
    await writeFile(path.join(ep, "series.json"), JSON.stringify(series, null, 2));
    const c = await catalogOf(ep);
    expect(c).not.toBe(a);
    expect(c.byId.get("subject:ada")?.name).toBe("Ada Lovelace");
  });

  it("lists series references before any build, and no keyframes", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const cat = await catalogOf(ep);
    expect(cat.refs.some((r) => r.kind === "keyframe")).toBe(false);
    expect(cat.byId.get("subject:ada")?.used_by).toEqual({ final: [], proxy: [] });
    expect(cat.byId.get("voice:ada")?.prompt).toContain("Hello, my name is Ada");
  });
});
