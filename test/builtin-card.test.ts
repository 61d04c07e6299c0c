// The built-in reference card by its pixels: four views of a character drawn differently on one palette, two
// characters on two palettes, the size the job asks for, and what the card says when the job names no reference.
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinEngine } from "../lib/engines/builtin/index.ts";
import { cardRef, jobRefOf, refCardSvg, refPalette, viewLabel } from "../lib/engines/builtin/ref-card.ts";
import type { EngineJob, EngineOutputs, JobRef, RunHooks } from "../lib/engines/types.ts";
import { createMediaTools } from "../lib/media/tools.ts";

const media = createMediaTools(() => process.env);
const engine = createBuiltinEngine(media);
const LOOK = "a 2D hand-drawn cartoon with clean black line art and flat colors";
const VIEWS = ["01_threequarter", "02_side", "03_back", "04_face"] as const;
let root: string;
let n = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-card-")));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await media.close();
});

const ada = (view: string | null, over: Partial<JobRef> = {}): JobRef => ({
  id: "subject:ada",
  name: "Ada",
  kind: "character",
  view,
  description: "a tall woman in a green raincoat with a red scarf",
  look: LOOK,
  ...over,
});

function job(over: Partial<EngineJob> = {}): EngineJob {
  n++;
  return {
    kind: "image",
    target: "card",
    ep: root,
    pass: "final",
    subject: "subject__ada",
    take: n,
    stem: `card_t${String(n).padStart(2, "0")}`,
    width: 512,
    height: 512,
    fps: 24,
    frames: 0,
    seed: 7n,
    prompt: "Character reference of Ada.",
    negative: null,
    entry: {},
    inputs: {},
    workDir: path.join(root, `work${n}`),
    ...over,
  };
}

async function render(j: EngineJob): Promise<EngineOutputs> {
  const hooks: RunHooks = { signal: new AbortController().signal, onProgress: () => {} };
  const prepared = await engine.prepare(j, hooks);
  return engine.collect(j, await engine.submit(j, prepared, hooks), hooks);
}

/** RGB pixels of an SVG card (no words: what is compared is the drawing and the palette). */
async function pixels(svg: string): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(Buffer.from(svg))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Share of pixels whose colour differs by more than a little between two pictures of one size. */
function changed(a: Buffer, b: Buffer): number {
  let count = 0;
  for (let i = 0; i < a.length; i += 3) {
    const d = Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
    if (d > 24) count++;
  }
  return count / (a.length / 3);
}

const at = (p: { data: Buffer; width: number }, x: number, y: number) => {
  const i = (y * p.width + x) * 3;
  return [p.data[i], p.data[i + 1], p.data[i + 2]];
};

describe("reference card", () => {
  it("draws a character's four views differently, each pair apart by a visible share of the card", async () => {
    const drawn = await Promise.all(VIEWS.map((v) => pixels(refCardSvg(512, 512, ada(v), null))));
    for (let i = 0; i < drawn.length; i++) {
      for (let j = i + 1; j < drawn.length; j++) {
        // A figure turned, seen from behind or as a head: at least 2% of the whole card changes.
        expect(changed(drawn[i].data, drawn[j].data), `${VIEWS[i]} vs ${VIEWS[j]}`).toBeGreaterThan(0.02);
      }
    }
  });

  it("keeps one palette for one character's views and another for another character", async () => {
    const views = await Promise.all(VIEWS.map((v) => pixels(refCardSvg(256, 256, ada(v), null))));
    const background = views.map((p) => at(p, 1, 1).join(","));
    expect(new Set(background).size).toBe(1);
    const ben = await pixels(
      refCardSvg(256, 256, ada("01_threequarter", { id: "subject:ben", name: "Ben" }), null),
    );
    expect(at(ben, 1, 1).join(",")).not.toBe(background[0]);
    // The palettes as values: same for one id whatever the view, different for another id.
    expect(refPalette(LOOK, "subject:ada")).toEqual(refPalette(LOOK, "subject:ada"));
    expect(refPalette(LOOK, "subject:ada")).not.toEqual(refPalette(LOOK, "subject:ben"));
  });

  it("takes its colours' strength from the look: a noir look is nearly grey", () => {
    const grey = refPalette("black and white film noir", "subject:ada").figure;
    const r = Number.parseInt(grey.slice(1, 3), 16);
    const g = Number.parseInt(grey.slice(3, 5), 16);
    const b = Number.parseInt(grey.slice(5, 7), 16);
    expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThan(20);
    const vivid = refPalette("vivid neon pop art", "subject:ada").figure;
    const v = [1, 3, 5].map((i) => Number.parseInt(vivid.slice(i, i + 2), 16));
    expect(Math.max(...v) - Math.min(...v)).toBeGreaterThan(60);
  });

  it("is rendered at the size the job asks, wide, tall or square, and the same job gives the same picture", async () => {
    for (const [width, height] of [
      [640, 360],
      [360, 640],
      [1024, 1024],
    ]) {
      const out = await render(job({ width, height, ref: ada("02_side") }));
      const meta = await sharp(out.image!).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", width, height]);
    }
    const a = await readFile((await render(job({ ref: ada("03_back") }))).image!);
    const b = await readFile((await render(job({ ref: ada("03_back") }))).image!);
    expect(a.equals(b)).toBe(true);
  });

  it("writes its words when a font draws them: the card with text differs from the drawing alone", async () => {
    const plain = await pixels(refCardSvg(512, 512, ada("04_face"), null));
    const worded = await pixels(refCardSvg(512, 512, ada("04_face"), { footer: "card · seed 7" }));
    expect(changed(plain.data, worded.data)).toBeGreaterThan(0.005);
  });

  it("draws props, vehicles, locations and keyframes each their own way", async () => {
    const kinds: JobRef[] = [
      ada(null, { id: "subject:bag", kind: "prop" }),
      ada(null, { id: "subject:bag", kind: "vehicle" }),
      ada("plate", { id: "subject:bag", kind: "location" }),
      ada("first", { id: "subject:bag", kind: "keyframe" }),
      ada("01_threequarter", { id: "subject:bag" }),
    ];
    const drawn = await Promise.all(kinds.map((k) => pixels(refCardSvg(512, 384, k, null))));
    for (let i = 0; i < drawn.length; i++)
      for (let j = i + 1; j < drawn.length; j++)
        expect(changed(drawn[i].data, drawn[j].data), `${kinds[i].kind} vs ${kinds[j].kind}`).toBeGreaterThan(
          0.02,
        );
  });

  it("reads what it can from the subject key when the job names no reference", () => {
    expect(cardRef({ subject: "subject__ada", prompt: "Ada in green." })).toMatchObject({
      id: "subject:ada",
      name: "ada",
      view: null,
      description: "Ada in green.",
    });
    expect(cardRef({ subject: "shot__sh010__first", prompt: ["a", "b"] })).toMatchObject({
      id: "shot:sh010:first",
      kind: "keyframe",
      view: "first",
      description: "a\nb",
    });
    expect(cardRef({ subject: "location__street", prompt: "" })).toMatchObject({
      kind: "location",
      view: "plate",
    });
    expect(cardRef({ subject: "odd name", prompt: "x" })).toMatchObject({
      name: "odd name",
      kind: "reference",
    });
    // A reference given with no description falls back to the prompt.
    expect(
      cardRef({ subject: "s", prompt: "from the prompt", ref: ada(null, { description: " " }) }).description,
    ).toBe("from the prompt");
    // The take's stem names the view: a character's side view, drawn as one.
    expect(cardRef({ subject: "subject__ada", stem: "subject__ada_02_side_t03", prompt: "x" })).toMatchObject(
      {
        kind: "character",
        view: "02_side",
      },
    );
    expect(viewLabel("01_threequarter")).toBe("three-quarter view");
    expect(viewLabel(null)).toBeNull();
  });

  it("takes a catalog reference's facts from the series config: design, description, voice brief, look", () => {
    const series = {
      style: { look: "  soft pastel watercolour " },
      subjects: { ada: { name: "Ada", design: "a tall woman in green", voice: "low and calm" } },
      locations: { street: { description: "a street at dusk" } },
    };
    const subject = {
      ref: { id: "subject:ada", name: "ada" },
      kind: "character",
      name: "Ada",
      subject: "ada",
      prompt: "p",
    };
    expect(jobRefOf(subject, "03_back", series)).toEqual({
      id: "subject:ada",
      name: "Ada",
      kind: "character",
      view: "03_back",
      description: "a tall woman in green",
      look: "soft pastel watercolour",
    });
    const voice = { ...subject, ref: { id: "voice:ada", name: "ada" }, kind: "voice" };
    expect(jobRefOf(voice, null, series).description).toBe("low and calm. a tall woman in green");
    const street = {
      ref: { id: "location:street", name: "street" },
      kind: "location",
      name: "Street",
      subject: null,
      prompt: null,
    };
    expect(jobRefOf(street, null, series)).toMatchObject({ view: "plate", description: "a street at dusk" });
    const kf = {
      ref: { id: "shot:sh010:first", name: "sh010" },
      kind: "keyframe",
      name: "sh010 first",
      subject: null,
      prompt: "Ada at the door.",
    };
    expect(jobRefOf(kf, null, null)).toMatchObject({ description: "Ada at the door.", look: "" });
  });
});
