// Picking, unpicking and auto-picking reference takes: live files copied or stitched into place, `_picks.json`
// records with SHA-1s, numbers never reused, events in order.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { folderFence } from "../lib/paths/guarded.ts";
import { parseRefId, VIEWS } from "../lib/refs/ids.ts";
import { autoPickRef, type LiveRef, pickTake, unpick } from "../lib/refs/live.ts";
import { readPicks } from "../lib/refs/picks.ts";
import { type RefsPlace, refsPlace } from "../lib/refs/place.ts";
import { addTake, copyFrom, listTakes, nextTakeNumber } from "../lib/refs/takes.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let t: TestEnv;
let ep: string;
let place: RefsPlace;

async function solid(file: string, rgb: [number, number, number], w = 64, h = 96): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({
    create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .png()
    .toFile(file);
  return file;
}

beforeEach(async () => {
  t = await makeTestEnv();
  const show = path.join(t.dir, "shows", "show");
  ep = path.join(show, "ep01");
  await mkdir(ep, { recursive: true });
  await writeFile(path.join(ep, "series.json"), JSON.stringify({ look: "x", subjects: {}, locations: {} }));
  t.services.env.STUDIO_ROOTS = path.join(t.dir, "shows");
  place = await refsPlace(t.services, ep);
});
afterEach(() => t.cleanup());

const src = () => folderFence(t.dir, "the test folder");

async function imported(
  ref: string,
  view: (typeof VIEWS)[number] | "sheet" | null,
  rgb: [number, number, number],
) {
  const file = await solid(
    path.join(t.dir, "in", `${ref.replaceAll(":", "_")}_${view}_${rgb.join("_")}.png`),
    rgb,
  );
  return addTake(t.services, place, parseRefId(ref), {
    view,
    ext: "png",
    write: copyFrom(src(), file),
    fields: { source: "imported" },
  });
}

async function pixel(file: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

describe("reference takes", () => {
  it("numbers takes per view and never reuses a number in the trash", async () => {
    const a = await imported("location:kitchen", null, [10, 20, 30]);
    const b = await imported("location:kitchen", null, [40, 50, 60]);
    expect([a.take, b.take]).toEqual([1, 2]);
    expect(path.basename(a.file ?? "")).toBe("location__kitchen_t01.png");
    const ref = parseRefId("location:kitchen");
    const trash = path.join(ep, "refs", "_takes", "_trash", ref.key, "20260101T000000");
    await mkdir(trash, { recursive: true });
    await writeFile(path.join(trash, "location__kitchen_t07.json"), "{}");
    expect(await nextTakeNumber(place, ref, null)).toBe(8);
    const listed = await listTakes(t.services, place, ref);
    expect(listed.map((x) => [x.take, x.status, x.usable, x.sidecar.source])).toEqual([
      [1, "ok", true, "imported"],
      [2, "ok", true, "imported"],
    ]);
  });
});

describe("pick and unpick", () => {
  it("copies a prop's take into place, records its SHA-1, and clears on unpick", async () => {
    const ref = parseRefId("subject:mug");
    const live: LiveRef = {
      ref,
      kind: "prop",
      file: path.join(ep, "refs", "props", "mug.png"),
      stitches: false,
    };
    await imported("subject:mug", null, [200, 0, 0]);
    const second = await imported("subject:mug", null, [0, 200, 0]);
    await pickTake(t.services, place, live, null, second.take);
    expect(await pixel(live.file, 5, 5)).toEqual([0, 200, 0]);
    const picks = await readPicks(t.services, place, ref);
    expect(picks.refs["subject:mug"]?.take).toBe(2);
    expect(picks.refs["subject:mug"]?.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(t.events.map((e) => [e.type, (e.data as { status?: string }).status])).toEqual([
      ["studio.ref", "picked"],
      ["studio.episode", undefined],
    ]);
    await unpick(t.services, place, live, null);
    await expect(stat(live.file)).rejects.toThrow();
    expect((await readPicks(t.services, place, ref)).refs["subject:mug"]?.cleared).toBeTypeOf("string");
    // Cleared: auto-pick leaves it alone until something is picked.
    expect(await autoPickRef(t.services, place, live)).toEqual([]);
    await expect(stat(live.file)).rejects.toThrow();
  });

  it("refuses unknown, unusable and panorama takes", async () => {
    const ref = parseRefId("location:kitchen");
    const live: LiveRef = {
      ref,
      kind: "location",
      file: path.join(ep, "refs", "kitchen.png"),
      stitches: false,
    };
    await expect(pickTake(t.services, place, live, null, 3)).rejects.toMatchObject({ status: 404 });
    const pano = await imported("location:kitchen", "pano" as never, [1, 2, 3]);
    await expect(pickTake(t.services, place, live, "pano", pano.take)).rejects.toMatchObject({ status: 400 });
    const dir = path.join(ep, "refs", "_takes", ref.key);
    await writeFile(
      path.join(dir, "location__kitchen_t05.json"),
      JSON.stringify({ version: 1, ref: ref.id, take: 5, status: "queued" }),
    );
    await expect(pickTake(t.services, place, live, null, 5)).rejects.toMatchObject({ status: 409 });
  });

  it("refuses to unpick a voice", async () => {
    const ref = parseRefId("voice:dean");
    const live: LiveRef = {
      ref,
      kind: "voice",
      file: path.join(ep, "refs", "voices", "dean.wav"),
      stitches: false,
    };
    await expect(unpick(t.services, place, live, null)).rejects.toMatchObject({ status: 400 });
  });

  it("stitches the four picked views into the sheet, panel by panel", async () => {
    const ref = parseRefId("subject:dean");
    const live: LiveRef = {
      ref,
      kind: "character",
      file: path.join(ep, "refs", "dean", "dean_sheet_4panel.png"),
      stitches: true,
    };
    const colours: [number, number, number][] = [
      [250, 0, 0],
      [0, 250, 0],
      [0, 0, 250],
      [250, 250, 0],
    ];
    for (const [i, v] of VIEWS.entries()) {
      const take = await imported("subject:dean", v, colours[i] as [number, number, number]);
      await pickTake(t.services, place, live, v, take.take);
      if (i < 3) await expect(stat(live.file)).rejects.toThrow();
    }
    const meta = await sharp(live.file).metadata();
    const panel = (meta.width ?? 0) / 4;
    for (const [i, rgb] of colours.entries()) {
      expect(
        await pixel(live.file, Math.floor(panel * i + panel / 2), Math.floor((meta.height ?? 0) / 2)),
      ).toEqual(rgb);
    }
    const picks = await readPicks(t.services, place, ref);
    expect(picks.refs["subject:dean"]?.stitched).toBeTypeOf("string");
    const before = picks.refs["subject:dean"]?.sha1;
    // Another candidate for one view re-stitches: the live sheet's SHA-1 changes.
    const other = await imported("subject:dean", "02_side", [9, 9, 9]);
    await pickTake(t.services, place, live, "02_side", other.take);
    const after = (await readPicks(t.services, place, ref)).refs["subject:dean"]?.sha1;
    expect(after).not.toBe(before);
    expect(await pixel(live.file, Math.floor(panel * 1.5), Math.floor((meta.height ?? 0) / 2))).toEqual([
      9, 9, 9,
    ]);
    await expect(pickTake(t.services, place, live, null, 1)).rejects.toMatchObject({ status: 400 });
  });
});

describe("auto-pick", () => {
  it("gives a ref with no live file its first finished candidate and never replaces a live file", async () => {
    const ref = parseRefId("location:street");
    const live: LiveRef = {
      ref,
      kind: "location",
      file: path.join(ep, "refs", "street.png"),
      stitches: false,
    };
    await imported("location:street", null, [1, 100, 1]);
    await imported("location:street", null, [2, 2, 200]);
    expect(await autoPickRef(t.services, place, live)).toEqual([{ view: null, take: 1 }]);
    expect(await pixel(live.file, 1, 1)).toEqual([1, 100, 1]);
    await writeFile(
      live.file,
      await readFile(path.join(ep, "refs", "_takes", ref.key, "location__street_t02.png")),
    );
    expect(await autoPickRef(t.services, place, live)).toEqual([]);
    expect(await pixel(live.file, 1, 1)).toEqual([2, 2, 200]);
  });

  it("picks views one by one and stitches once all four exist", async () => {
    const ref = parseRefId("subject:gina");
    const live: LiveRef = { ref, kind: "character", file: path.join(ep, "refs", "gina.png"), stitches: true };
    await imported("subject:gina", "01_threequarter", [10, 0, 0]);
    await imported("subject:gina", "02_side", [0, 10, 0]);
    expect(await autoPickRef(t.services, place, live)).toHaveLength(2);
    await expect(stat(live.file)).rejects.toThrow();
    await imported("subject:gina", "03_back", [0, 0, 10]);
    await imported("subject:gina", "04_face", [10, 10, 0]);
    expect(await autoPickRef(t.services, place, live)).toEqual([
      { view: "03_back", take: 1 },
      { view: "04_face", take: 1 },
    ]);
    expect((await stat(live.file)).isFile()).toBe(true);
  });
});
