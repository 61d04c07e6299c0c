// The Wan VACE reference picture: the shot's subjects composed into one picture at the render size (one column per
// subject, a thin gap between, each picture fitted whole and centred on the background; a character sheet cut to
// the panel the shot size calls for), and a wan22_vace render through the ComfyUI double that uploads it and loads
// it into WanVaceToVideo's reference_image.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { composeVaceReference, fitInside, vaceColumns, vaceLook } from "../lib/render/vace-reference.ts";
import { renderQueued, takeSidecar, targetModels, useComfyStudio } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const RED = { r: 220, g: 30, b: 30 };
const BLUE = { r: 30, g: 30, b: 220 };
const GREEN = { r: 30, g: 200, b: 30 };
const WHITE = { r: 255, g: 255, b: 255 };

const solid = (width: number, height: number, c: { r: number; g: number; b: number }) =>
  sharp({ create: { width, height, channels: 3, background: c } })
    .png()
    .toBuffer();

/** A 4-panel sheet, panels side by side, panel i coloured `colours[i]`. */
async function sheet(panel: number, colours: { r: number; g: number; b: number }[]): Promise<Buffer> {
  const layers = await Promise.all(
    colours.map(async (c, i) => ({ input: await solid(panel, panel, c), left: i * panel, top: 0 })),
  );
  return sharp({ create: { width: panel * colours.length, height: panel, channels: 3, background: WHITE } })
    .composite(layers)
    .png()
    .toBuffer();
}

async function pixel(png: Buffer, x: number, y: number): Promise<{ r: number; g: number; b: number }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(y) * info.width + Math.floor(x)) * info.channels;
  return { r: data[i], g: data[i + 1], b: data[i + 2] };
}

const near = (a: { r: number; g: number; b: number }, b: { r: number; g: number; b: number }) =>
  Math.abs(a.r - b.r) + Math.abs(a.g - b.g) + Math.abs(a.b - b.b) < 30;

describe("the composed VACE reference picture", () => {
  it("lays one column per subject across the render size, a 2% gap apart", () => {
    expect(vaceColumns({ width: 448, height: 256 }, 2, 0.02)).toEqual([
      { left: 0, top: 0, width: 219, height: 256 },
      { left: 228, top: 0, width: 219, height: 256 },
    ]);
    const three = vaceColumns({ width: 1280, height: 720 }, 3, 0.02);
    expect(three.map((b) => b.width)).toEqual([409, 409, 409]);
    expect(three[2].left + three[2].width).toBeLessThanOrEqual(1280);
    expect(vaceColumns({ width: 448, height: 256 }, 0, 0.02)).toEqual([]);
    // A tall picture fits by height, a square one by width, centred either way.
    const col = { left: 0, top: 0, width: 219, height: 256 };
    expect(fitInside({ width: 100, height: 200 }, col)).toEqual({
      left: 45,
      top: 0,
      width: 128,
      height: 256,
    });
    expect(fitInside({ width: 100, height: 100 }, col)).toEqual({
      left: 0,
      top: 18,
      width: 219,
      height: 219,
    });
    expect(vaceLook({})).toEqual({ gap: 0.02, background: "white" });
    expect(vaceLook({ gap: 0.05, background: "black" })).toEqual({ gap: 0.05, background: "black" });
  });

  it("draws each picture whole (a sheet cut to its panel) on the background", async () => {
    const figure = await solid(100, 200, RED);
    const strip = await sheet(100, [GREEN, GREEN, GREEN, BLUE]);
    const { png, boxes } = await composeVaceReference(
      { width: 448, height: 256 },
      [
        { data: figure, panel: null },
        { data: strip, panel: { index: 3, of: 4 } },
      ],
      { gap: 0.02, background: "white" },
    );
    const meta = await sharp(png).metadata();
    expect([meta.width, meta.height, meta.channels]).toEqual([448, 256, 3]);
    expect(boxes).toEqual([
      { left: 45, top: 0, width: 128, height: 256 },
      { left: 228, top: 18, width: 219, height: 219 },
    ]);
    expect(near(await pixel(png, 109, 128), RED)).toBe(true);
    expect(near(await pixel(png, 337, 128), BLUE)).toBe(true);
    // The gap, the margins beside a tall figure and the bands above a square one are the background.
    for (const [x, y] of [
      [223, 128],
      [10, 128],
      [337, 5],
      [337, 250],
    ])
      expect(near(await pixel(png, x, y), WHITE), `${x},${y}`).toBe(true);
  });
});

describe("a wan22_vace render through the ComfyUI double", () => {
  const c = useComfyStudio(targetModels(["wan22_vace"]));

  it("uploads the subjects composed into one picture and loads it as reference_image", async () => {
    const series = seriesS();
    series.series.target = "wan22_vace";
    const script = [
      "= e01  T",
      "# sq01 kitchen",
      "## sh010",
      "dur: 1",
      "who: ada, kettle",
      "Ada lifts the kettle.",
    ].join("\n");
    const ep = await c.s.episode(script, { series, build: false });
    // The series file sits in the episode folder here, so its refs/ paths are read from there.
    const put = async (rel: string, data: Buffer) => {
      await mkdir(path.dirname(path.join(ep, rel)), { recursive: true });
      await writeFile(path.join(ep, rel), data);
    };
    await put("refs/ada/ada_sheet_4panel.png", await sheet(64, [RED, GREEN, GREEN, BLUE]));
    await put("refs/props/kettle.png", await solid(48, 64, GREEN));
    await put("refs/_bg/kitchen.png", await solid(64, 48, WHITE));
    const built = await c.s.call("POST", "/build", { ep });
    expect(built.body.ok, JSON.stringify(built.body)).toBe(true);

    const before = c.double.prompts.length;
    await renderQueued(c, { ep }, [["sh010", "wan22_vace"]]);

    const sc: Any = await takeSidecar(ep, "sh010");
    expect(sc.status).toBe("ok");
    const panels = (sc.refs as Any[]).filter((r) => r.slot.startsWith("reference panel"));
    expect(panels.map((r) => r.subject)).toEqual(["ada", "kettle"]);

    const sent: Any = c.double.prompts.slice(before).find((p) => p.status === 200);
    const graph = sent.body.prompt as Record<string, Any>;
    const vace = Object.values(graph).find((n: Any) => n.class_type === "WanVaceToVideo");
    const load = graph[vace.inputs.reference_image[0]];
    expect(load.class_type).toBe("LoadImage");
    expect(sc.inputs.reference).toBe(load.inputs.image);
    const base = (n: string) => n.split("/").pop();
    expect(c.double.uploads.map((u) => base(u.name))).toContain(base(load.inputs.image));

    // What ComfyUI received: the render size, Ada's body panel (the first) then the kettle, on white.
    const png = await readFile(path.join(c.double.inputDir, load.inputs.image));
    const meta = await sharp(png).metadata();
    expect([meta.width, meta.height]).toEqual([sc.width, sc.height]);
    const [c1, c2] = vaceColumns({ width: sc.width, height: sc.height }, 2, 0.02);
    expect(near(await pixel(png, c1.left + c1.width / 2, sc.height / 2), RED)).toBe(true);
    expect(near(await pixel(png, c2.left + c2.width / 2, sc.height / 2), GREEN)).toBe(true);
    expect(near(await pixel(png, c1.left + c1.width + 1, sc.height / 2), WHITE)).toBe(true);
  });
});
