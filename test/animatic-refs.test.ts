// The animatic reads the shot's subject pictures: a sheet's panel (or a prop's whole picture) drawn as figures on
// the card, recorded with its SHA-1 in the take's sidecar, so a new pick turns the take `ref`-stale end to end.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { figureTiles, panelColumns } from "../lib/engines/builtin/figures.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { mediaTools } from "../lib/media/ffmpeg.ts";
import { readRefId, VIEWS } from "../lib/refs/ids.ts";
import { type LiveRef, pickTake } from "../lib/refs/live.ts";
import { refsPlace } from "../lib/refs/place.ts";
import { addTake } from "../lib/refs/takes.ts";
import { renderJob } from "../workers/jobs/render.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { startTestPool, waitFor } from "./support/jobs.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

let s: Studio;
let store: JobStore;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

function startPool(): void {
  pools.push(startTestPool(s.env.services, store, { render: renderJob }));
}

const W = 448;
const H = 256;
const RED = "#ff0000";
const GREEN = "#00ff00";
const BLUE = "#0000ff";
const YELLOW = "#ffff00";
const MAGENTA = "#ff00ff";

/** A 4-panel strip on a flat light background: each panel a coloured standing figure with margins round it. */
async function sheet(file: string, colours: readonly string[]): Promise<void> {
  const panel = 256;
  const figure = (colour: string) =>
    sharp({ create: { width: 120, height: 200, channels: 3, background: colour } })
      .png()
      .toBuffer();
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({
    create: { width: panel * colours.length, height: panel, channels: 3, background: "#d8d8d8" },
  })
    .composite(
      await Promise.all(
        colours.map(async (c, i) => ({ input: await figure(c), left: i * panel + 68, top: 28 })),
      ),
    )
    .png()
    .toFile(file);
}

/** A new pick: the live file replaced in one rename, as the pick route writes it. */
async function replaceAtomically(file: string, colours: readonly string[]): Promise<void> {
  const tmp = path.join(path.dirname(file), `.tmp_${path.basename(file)}`);
  await sheet(tmp, colours);
  await rename(tmp, file);
}

const sha1 = async (file: string) =>
  createHash("sha1")
    .update(await readFile(file))
    .digest("hex");

/** Frame `index` of a take decoded as RGB. */
async function frameAt(file: string, index: number): Promise<Buffer> {
  const { ffmpeg } = await mediaTools(s.env.services.media);
  const { stdout } = await execa(
    ffmpeg,
    ["-v", "error", "-i", file, "-vf", `select=eq(n\\,${index})`, "-frames:v", "1"].concat([
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-",
    ]),
    { encoding: "buffer" },
  );
  const raw = Buffer.from(stdout);
  expect(raw.length).toBe(W * H * 3);
  return raw;
}

const near = (hex: string) => {
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return (p: number[]) => p.every((v, i) => Math.abs(v - want[i]) < 60);
};

/** Where the pixels of a colour lie in a frame: how many, and their vertical extent. */
function find(raw: Buffer, hex: string): { count: number; top: number; bottom: number } {
  const is = near(hex);
  let count = 0;
  let top = H;
  let bottom = -1;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      if (!is([raw[i], raw[i + 1], raw[i + 2]])) continue;
      count++;
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  return { count, top, bottom };
}

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 1",
  "Ada waits.",
  "## sh020",
  "who: bo",
  "with: kettle",
  "dur: 1",
  "Bo waits.",
  "## sh030",
  "who: cy",
  "size: close",
  "dur: 1",
  "Cy runs.",
].join("\n");

/** Render `shots` of `ep` on the animatic (proxy) and wait until every job succeeded. */
async function renderAll(ep: string, shots: string[], redo = false): Promise<void> {
  const res = await s.call("POST", "/render", { ep, shots, redo });
  expect(res.body.queued).toHaveLength(shots.length);
  if (pools.length === 0) startPool();
  for (const q of res.body.queued) {
    await waitFor(async () =>
      ["succeeded", "failed", "canceled"].includes((await store.get(q.prompt_id))?.status ?? ""),
    );
    expect((await store.get(q.prompt_id))?.status).toBe("succeeded");
  }
}

describe("figure placement", () => {
  it("rests a centred row on the band's bottom, at most half the card tall, and gives up when it has no room", () => {
    const tiles = figureTiles(2, { width: W, height: H }, { top: 30, bottom: 210 }, 10)!;
    expect(tiles).toHaveLength(2);
    for (const t of tiles) {
      expect(t.top + t.height).toBe(210);
      expect(t.height).toBe(128);
      expect(t.width).toBe(160);
    }
    // Centred: the same room left of the first tile as right of the last.
    expect(Math.abs(tiles[0].left - (W - (tiles[1].left + tiles[1].width)))).toBeLessThanOrEqual(1);
    expect(tiles[1].left).toBeGreaterThan(tiles[0].left + tiles[0].width);
    const many = figureTiles(6, { width: W, height: H }, { top: 30, bottom: 210 }, 10)!;
    expect(many[5].left + many[5].width).toBeLessThanOrEqual(W - 10);
    expect(many[0].left).toBeGreaterThanOrEqual(10);
    expect(figureTiles(1, { width: W, height: H }, { top: 200, bottom: 210 }, 10)).toBeNull();
    expect(figureTiles(0, { width: W, height: H }, { top: 30, bottom: 210 }, 10)).toEqual([]);
  });

  it("cuts a sheet into equal panels that cover it exactly", () => {
    const cols = [0, 1, 2, 3].map((index) => panelColumns(1001, { index, of: 4 }));
    expect(cols[0].left).toBe(0);
    for (let i = 1; i < 4; i++) expect(cols[i].left).toBe(cols[i - 1].left + cols[i - 1].width);
    expect(cols[3].left + cols[3].width).toBe(1001);
  });
});

describe("the animatic reads the subjects' live pictures", () => {
  it("draws the picked panel, records its SHA-1, and turns ref-stale when a new pick replaces it", async () => {
    const ep = await s.episode(SCRIPT);
    const adaSheet = path.join(ep, "refs", "ada", "ada_sheet_4panel.png");
    const cySheet = path.join(ep, "refs", "cy", "cy_sheet_4panel.png");
    const kettle = path.join(ep, "refs", "props", "kettle.png");
    const boSheet = path.join(ep, "refs", "bo", "bo_sheet_4panel.png");
    await sheet(adaSheet, [RED, GREEN, BLUE, YELLOW]);
    await sheet(cySheet, [RED, GREEN, BLUE, YELLOW]);
    await mkdir(path.dirname(kettle), { recursive: true });
    await sharp({ create: { width: 300, height: 300, channels: 3, background: MAGENTA } })
      .png()
      .toFile(kettle);
    // A plate under sh010's figure: the figure is drawn over it.
    await mkdir(path.join(ep, "refs", "_bg"), { recursive: true });
    await sharp({ create: { width: 800, height: 450, channels: 3, background: "#808080" } })
      .png()
      .toFile(path.join(ep, "refs", "_bg", "kitchen.png"));

    // Nothing is skipped for Bo's missing sheet: every figure slot is optional.
    await renderAll(ep, ["sh010", "sh020", "sh030"]);
    const dir = (shot: string) => path.join(ep, "renders_proxy", shot);
    const sidecar = async (shot: string): Promise<Any> =>
      JSON.parse(await readFile(path.join(dir(shot), `${shot}_t01.json`), "utf8"));

    // sh010: Ada's three-quarter panel (red), not her other views, over the plate and above the caption.
    const one = await sidecar("sh010");
    expect(one.status).toBe("ok");
    expect(one.refs).toContainEqual({
      slot: "sheet panel 1",
      kind: "image",
      path: "refs/ada/ada_sheet_4panel.png",
      role: "subject",
      subject: "ada",
      optional: true,
      sha1: await sha1(adaSheet),
    });
    expect(one.inputs["subject:ada"]).toBe(adaSheet);
    expect(one.save_notes).toMatch(/figure: Ada \(panel 1 of 4 of ada_sheet_4panel\.png\)/);
    expect(one.save_notes).toMatch(/picture: location plate kitchen\.png/);
    const frame = await frameAt(path.join(dir("sh010"), "sh010_t01.mp4"), 0);
    const red = find(frame, RED);
    expect(red.count).toBeGreaterThan(1500);
    expect(red.top).toBeGreaterThan(H * 0.3);
    // The caption stays below the figure: its bottom lane is clear of it.
    expect(red.bottom).toBeLessThan(H - 10 - 20);
    for (const other of [GREEN, BLUE, YELLOW]) expect(find(frame, other).count).toBe(0);
    expect(find(frame, "#808080").count).toBeGreaterThan(W * H * 0.3);

    // sh030: a lone character in a close shot shows the face panel (yellow).
    const three = await sidecar("sh030");
    expect(three.save_notes).toMatch(/figure: Cy \(panel 4 of 4 of cy_sheet_4panel\.png\)/);
    const closeFrame = await frameAt(path.join(dir("sh030"), "sh030_t01.mp4"), 0);
    expect(find(closeFrame, YELLOW).count).toBeGreaterThan(1500);
    expect(find(closeFrame, RED).count).toBe(0);

    // sh020: Bo has no sheet yet (recorded without a SHA-1, not blocking); the kettle is drawn whole.
    const two = await sidecar("sh020");
    expect(two.status).toBe("ok");
    expect(two.refs).toContainEqual(
      expect.objectContaining({ slot: "sheet panel 1", path: "refs/bo/bo_sheet_4panel.png", sha1: null }),
    );
    expect(two.refs).toContainEqual(
      expect.objectContaining({
        slot: "sheet panel 2",
        path: "refs/props/kettle.png",
        sha1: await sha1(kettle),
      }),
    );
    expect(two.inputs).not.toHaveProperty("subject:bo");
    expect(two.save_notes).toMatch(/figure: Bo has no picture yet; not drawn/);
    expect(two.save_notes).toMatch(/figure: the kettle \(kettle\.png whole\)/);
    expect(find(await frameAt(path.join(dir("sh020"), "sh020_t01.mp4"), 0), MAGENTA).count).toBeGreaterThan(
      1500,
    );

    const stale = async () => {
      const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
      const out: Record<string, unknown> = {};
      for (const row of episode.body.shots) {
        const detail = await s.call("GET", "/shot", { ep, pass: "proxy", shot: row.shot });
        expect(detail.body.takes[0].stale).toEqual(row.takes[0].stale);
        out[row.shot] = row.takes[0].stale;
      }
      return out;
    };
    expect(await stale()).toEqual({ sh010: [], sh020: [], sh030: [] });

    // The shot's reference rows list the sheet as an optional subject picture (no composed sheet row) and the plate
    // the card is drawn over.
    const detail = await s.call("GET", "/shot", { ep, pass: "proxy", shot: "sh010" });
    expect(detail.body.refs_used.map((r: Any) => `${r.role}:${r.slot}:${r.need}:${r.exists}`)).toEqual([
      "subject:sheet panel 1:optional:true",
      "first:first frame:optional:false",
      "plate:plate:optional:true",
    ]);

    // A new pick of Ada's sheet, and Bo's first sheet: both takes turn ref-stale; Cy's stays fresh.
    await replaceAtomically(adaSheet, [MAGENTA, GREEN, BLUE, YELLOW]);
    await sheet(boSheet, [RED, GREEN, BLUE, YELLOW]);
    expect(await stale()).toEqual({ sh010: ["ref"], sh020: ["ref"], sh030: [] });

    // Rendered again, the take shows the new pick and is fresh.
    await renderAll(ep, ["sh010"], true);
    const next: Any = JSON.parse(await readFile(path.join(dir("sh010"), "sh010_t02.json"), "utf8"));
    expect(next.refs).toContainEqual(
      expect.objectContaining({ path: "refs/ada/ada_sheet_4panel.png", sha1: await sha1(adaSheet) }),
    );
    const newFrame = await frameAt(path.join(dir("sh010"), "sh010_t02.mp4"), 0);
    expect(find(newFrame, MAGENTA).count).toBeGreaterThan(1500);
    expect(find(newFrame, RED).count).toBe(0);
    const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
    const takes = episode.body.shots.find((r: Any) => r.shot === "sh010").takes;
    expect(takes.map((t: Any) => [t.take, t.stale])).toEqual([
      [1, ["ref"]],
      [2, []],
    ]);
  });

  it("shows the three-quarter view the pick route stitched, and a new pick of that view makes the take ref-stale", async () => {
    const ep = await s.episode(SCRIPT);
    const services = s.env.services;
    const place = await refsPlace(services, ep);
    const ref = readRefId("subject:ada")!;
    const adaSheet = path.join(ep, "refs", "ada", "ada_sheet_4panel.png");
    const live: LiveRef = { ref, kind: "character", file: adaSheet, stitches: true };
    /** A view picture: one coloured figure standing on a light backdrop, as an image model draws it. */
    const viewPicture = (colour: string) => async (tmp: string) => {
      const figure = await sharp({ create: { width: 200, height: 420, channels: 3, background: colour } })
        .png()
        .toBuffer();
      await sharp({ create: { width: 512, height: 512, channels: 3, background: "#e6e2da" } })
        .composite([{ input: figure, left: 156, top: 46 }])
        .png()
        .toFile(tmp);
    };
    const colours = [RED, GREEN, BLUE, YELLOW];
    for (const [i, view] of VIEWS.entries()) {
      const t = await addTake(services, place, ref, {
        view,
        ext: "png",
        write: viewPicture(colours[i]),
        fields: {},
      });
      await pickTake(services, place, live, view, t.take);
    }
    const stitched = await sha1(adaSheet);

    await renderAll(ep, ["sh010"]);
    const dir = path.join(ep, "renders_proxy", "sh010");
    const first: Any = JSON.parse(await readFile(path.join(dir, "sh010_t01.json"), "utf8"));
    expect(first.refs).toContainEqual(
      expect.objectContaining({
        slot: "sheet panel 1",
        path: "refs/ada/ada_sheet_4panel.png",
        sha1: stitched,
      }),
    );
    const frame = await frameAt(path.join(dir, "sh010_t01.mp4"), 0);
    expect(find(frame, RED).count).toBeGreaterThan(1500);
    for (const other of [GREEN, BLUE, YELLOW]) expect(find(frame, other).count).toBe(0);
    const takeStale = async () => {
      const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
      const shot = await s.call("GET", "/shot", { ep, pass: "proxy", shot: "sh010" });
      const row = episode.body.shots.find((r: Any) => r.shot === "sh010");
      expect(shot.body.takes[0].stale).toEqual(row.takes[0].stale);
      return row.takes[0].stale;
    };
    expect(await takeStale()).toEqual([]);

    // Another three-quarter take picked: the sheet is stitched again with it, and the take reads ref-stale.
    const next = await addTake(services, place, ref, {
      view: "01_threequarter",
      ext: "png",
      write: viewPicture(MAGENTA),
      fields: {},
    });
    await pickTake(services, place, live, "01_threequarter", next.take);
    expect(await sha1(adaSheet)).not.toBe(stitched);
    expect(await takeStale()).toEqual(["ref"]);
  });
});
