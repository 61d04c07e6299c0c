// The 4-panel sheet stitcher, checked by pixels: four pictures of different sizes and colours side by side on
// panels of one size, padding in each picture's own background colour, bad input a 500 that writes nothing.
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StudioError } from "../lib/errors.ts";
import { cornerColour, stitchSheet } from "../lib/media/stitch-sheet.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "stitch-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

type Rgb = [number, number, number];

async function solid(name: string, rgb: Rgb, w: number, h: number): Promise<string> {
  const file = path.join(dir, name);
  await sharp({
    create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .png()
    .toFile(file);
  return file;
}

/** A figure: a coloured block on a plain background, so the picture's corners say the background. */
async function figure(name: string, back: Rgb, fore: Rgb, w: number, h: number): Promise<string> {
  const file = path.join(dir, name);
  const block = await sharp({
    create: { width: Math.floor(w / 2), height: Math.floor(h / 2), channels: 3, background: rgbOf(fore) },
  })
    .png()
    .toBuffer();
  await sharp({ create: { width: w, height: h, channels: 3, background: rgbOf(back) } })
    .composite([{ input: block, gravity: "centre" }])
    .png()
    .toFile(file);
  return file;
}

/** A left-to-right gradient from black to pure red: its centre is half red, its corners disagree. */
async function gradient(name: string, w: number, h: number): Promise<string> {
  const file = path.join(dir, name);
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) data[(y * w + x) * 3] = Math.round((255 * x) / (w - 1));
  await sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toFile(file);
  return file;
}

const rgbOf = (c: Rgb) => ({ r: c[0], g: c[1], b: c[2] });

async function pixels(file: string) {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x: number, y: number): number[] => {
      const o = (y * info.width + x) * info.channels;
      return [data[o], data[o + 1], data[o + 2]];
    },
  };
}

function near(actual: number[], expected: number[], tolerance = 3): void {
  for (let i = 0; i < 3; i++)
    expect(Math.abs(actual[i] - expected[i]), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}

describe("stitchSheet", () => {
  it("puts the four pictures side by side, in order, on panels of the tallest height", async () => {
    const red = await solid("a.png", [220, 20, 20], 60, 120);
    const green = await solid("b.png", [20, 200, 40], 40, 60); // scaled up twice: 80x120
    const blue = await solid("c.png", [30, 40, 210], 90, 120); // the widest: sets the panel width
    const grey = await solid("d.jpg", [128, 128, 128], 30, 40); // jpeg in, scaled to 90x120
    const out = path.join(dir, "sheet", "dean_sheet_4panel.png");
    const size = await stitchSheet([red, green, blue, grey], out);
    expect(size).toEqual({ width: 360, height: 120 });
    const px = await pixels(out);
    expect([px.width, px.height]).toEqual([360, 120]);
    const panel = 90;
    near(px.at(panel * 0 + 45, 60), [220, 20, 20]);
    near(px.at(panel * 1 + 45, 60), [20, 200, 40]);
    near(px.at(panel * 2 + 45, 60), [30, 40, 210]);
    near(px.at(panel * 3 + 45, 60), [128, 128, 128], 4);
    // A solid picture's padding is its own colour: the edges of the narrower panels match their centres.
    near(px.at(0, 0), [220, 20, 20]);
    near(px.at(panel - 1, 119), [220, 20, 20]);
    near(px.at(panel, 60), [20, 200, 40]);
  });

  it("centres a narrower picture and pads it with its corner colour, or white when the corners disagree", async () => {
    const a = await figure("a.png", [250, 240, 200], [200, 0, 0], 40, 100); // cream background, red figure
    const b = await gradient("b.png", 40, 100); // corners black and red: padding white
    const c = await figure("c.png", [10, 10, 60], [0, 220, 0], 100, 100); // the widest
    const d = await figure("d.png", [90, 90, 90], [255, 255, 0], 60, 100);
    const out = path.join(dir, "out.png");
    expect(await stitchSheet([a, b, c, d], out)).toEqual({ width: 400, height: 100 });
    const px = await pixels(out);
    // Panel 1: 40 wide picture centred in 100: 30 px of cream either side, the figure in the middle.
    near(px.at(5, 50), [250, 240, 200]);
    near(px.at(95, 50), [250, 240, 200]);
    near(px.at(50, 50), [200, 0, 0]);
    // Panel 2: the gradient spans x 130..169; its centre is about half red; the padding is white.
    near(px.at(105, 50), [255, 255, 255]);
    near(px.at(195, 50), [255, 255, 255]);
    near(px.at(150, 50), [134, 0, 0], 8);
    expect(px.at(131, 50)[0]).toBeLessThan(px.at(168, 50)[0]);
    // Panel 3 fills its panel; panel 4 has grey padding around a yellow figure.
    near(px.at(250, 50), [0, 220, 0]);
    near(px.at(201, 2), [10, 10, 60]);
    near(px.at(305, 50), [90, 90, 90]);
    near(px.at(350, 50), [255, 255, 0]);
  });

  it("flattens transparent pictures on white and writes the format the extension names", async () => {
    const clear = path.join(dir, "clear.png");
    await sharp({
      create: { width: 50, height: 50, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toFile(clear);
    const s = await solid("s.png", [0, 0, 255], 50, 50);
    const out = path.join(dir, "sheet.jpg");
    expect(await stitchSheet([clear, s, s, s], out)).toEqual({ width: 200, height: 50 });
    expect((await sharp(out).metadata()).format).toBe("jpeg");
    const px = await pixels(out);
    near(px.at(25, 25), [255, 255, 255], 4);
    near(px.at(75, 25), [0, 0, 255], 6);
  });

  it("applies a picture's EXIF orientation before measuring it", async () => {
    // 40x80 stored, orientation 6 (turned a quarter): shown 80x40.
    const turned = path.join(dir, "turned.jpg");
    await sharp({ create: { width: 40, height: 80, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toFile(turned);
    const s = await solid("s.png", [0, 0, 255], 80, 40);
    expect(await stitchSheet([turned, s, s, s], path.join(dir, "o.png"))).toEqual({ width: 320, height: 40 });
  });

  it("fails with a 500 naming the panel when a file is not a picture, and writes nothing", async () => {
    const s = await solid("s.png", [0, 0, 255], 20, 20);
    const text = path.join(dir, "notes.png");
    await writeFile(text, "this is not a picture");
    await mkdir(path.join(dir, "out"));
    const out = path.join(dir, "out", "sheet.png");
    const failure = await stitchSheet([s, s, text, s], out).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StudioError);
    expect((failure as StudioError).status).toBe(500);
    expect((failure as StudioError).message).toMatch(/^panel 3 \(notes\.png\) is not a picture: /);
    expect(await readdir(path.join(dir, "out"))).toEqual([]);
  });

  it("fails with a 500 naming a missing file, and refuses a count other than four", async () => {
    const s = await solid("s.png", [0, 0, 255], 20, 20);
    const gone = path.join(dir, "gone.png");
    await expect(stitchSheet([gone, s, s, s], path.join(dir, "x.png"))).rejects.toThrow(
      /^panel 1 \(gone\.png\) could not be read: .*ENOENT/,
    );
    await expect(stitchSheet([s, s, s], path.join(dir, "x.png"))).rejects.toMatchObject({
      status: 500,
      message: "a sheet is stitched from 4 pictures, not 3",
    });
    await expect(stat(path.join(dir, "x.png"))).rejects.toThrow();
  });

  it("replaces an existing sheet whole", async () => {
    const out = path.join(dir, "sheet.png");
    const r = await solid("r.png", [255, 0, 0], 10, 10);
    const g = await solid("g.png", [0, 255, 0], 10, 10);
    await stitchSheet([r, r, r, r], out);
    await stitchSheet([g, g, g, r], out);
    const px = await pixels(out);
    near(px.at(5, 5), [0, 255, 0]);
    near(px.at(35, 5), [255, 0, 0]);
    expect((await readdir(dir)).filter((n) => n.startsWith("."))).toEqual([]);
  });
});

describe("cornerColour", () => {
  const rgba = (corners: number[][], w = 2, h = 2) => {
    const data = new Uint8Array(w * h * 4);
    const spots = [
      [0, 0],
      [w - 1, 0],
      [0, h - 1],
      [w - 1, h - 1],
    ];
    for (const [i, [x, y]] of spots.entries()) data.set(corners[i], (y * w + x) * 4);
    return data;
  };

  it("averages corners that agree and falls back to white otherwise", () => {
    expect(
      cornerColour(
        rgba([
          [10, 20, 30, 255],
          [12, 20, 30, 255],
          [10, 22, 30, 255],
          [10, 20, 34, 255],
        ]),
        2,
        2,
      ),
    ).toEqual({
      r: 11,
      g: 21,
      b: 31,
    });
    expect(
      cornerColour(
        rgba([
          [0, 0, 0, 255],
          [0, 0, 0, 255],
          [0, 0, 0, 255],
          [200, 0, 0, 255],
        ]),
        2,
        2,
      ),
    ).toEqual({
      r: 255,
      g: 255,
      b: 255,
    });
    expect(
      cornerColour(
        rgba([
          [0, 0, 0, 0],
          [0, 0, 0, 255],
          [0, 0, 0, 255],
          [0, 0, 0, 255],
        ]),
        2,
        2,
      ),
    ).toEqual({
      r: 255,
      g: 255,
      b: 255,
    });
    expect(cornerColour(rgba(Array(4).fill([5, 6, 7, 255]), 1, 1), 1, 1)).toEqual({ r: 5, g: 6, b: 7 });
  });
});
