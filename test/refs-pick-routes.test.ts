// PUT/DELETE /studio/refs/pick, POST /studio/refs/discard and POST /studio/refs/copy-take through the route
// table: the ref as listed in every answer, live files and _picks.json on disk, events in the contract's order,
// and every refusal.
import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { folderFence } from "../lib/paths/guarded.ts";
import { parseRefId, VIEWS } from "../lib/refs/ids.ts";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { refsPlace } from "../lib/refs/place.ts";
import { addTake, copyFrom } from "../lib/refs/takes.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

type Rgb = [number, number, number];

async function candidate(ep: string, ref: string, view: string | null, rgb: Rgb, ext = "png") {
  const dir = path.join(path.dirname(ep), "_in");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.${ext}`);
  await sharp({
    create: { width: 40, height: 60, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .toFormat(ext === "jpg" ? "jpeg" : "png")
    .toFile(file);
  const place = await refsPlace(s.env.services, ep);
  const made = await addTake(s.env.services, place, parseRefId(ref), {
    view: view as never,
    ext,
    write: copyFrom(folderFence(path.dirname(ep), "the show"), file),
    fields: { source: "imported" },
  });
  return made.take;
}

async function centre(file: string, x: number): Promise<number[]> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(x * info.width)) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

const kinds = () => s.env.events.map((e) => `${e.type}:${(e.data as { status?: string }).status ?? ""}`);

describe("PUT /studio/refs/pick", () => {
  it("copies a prop's take into place and answers the ref as listed", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "subject:kettle", null, [10, 200, 30]);
    const res = await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", take });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: "subject:kettle", exists: true, picked: take });
    expect(res.body.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(await centre(path.join(ep, "refs/props/kettle.png"), 0.5)).toEqual([10, 200, 30]);
    expect(kinds()).toEqual(["studio.ref:picked", "studio.episode:"]);
    await afterAnswerSettled(s.env.services, ep);
  });

  it("stitches a character's sheet from its four view picks and a new pick changes the sheet", async () => {
    const ep = await s.episode(SCRIPT);
    const colours: Rgb[] = [
      [200, 0, 0],
      [0, 200, 0],
      [0, 0, 200],
      [200, 200, 0],
    ];
    for (const [i, view] of VIEWS.entries()) {
      const take = await candidate(ep, "subject:ada", view, colours[i] as Rgb);
      const res = await s.call("PUT", "/refs/pick", { ep, ref: "subject:ada", view, take });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.exists).toBe(i === 3);
    }
    const sheet = path.join(ep, "refs/ada/ada_sheet_4panel.png");
    for (const [i, rgb] of colours.entries()) expect(await centre(sheet, (i + 0.5) / 4)).toEqual(rgb);
    const listed = await s.call("GET", "/refs", { ep });
    const ada = listed.body.refs.find((r: { id: string }) => r.id === "subject:ada");
    expect(ada.live_from).toBe("views");
    expect(ada.views.map((v: { picked: number | null }) => v.picked)).toEqual([1, 1, 1, 1]);
    const before = ada.sha1;
    const back = await candidate(ep, "subject:ada", "03_back", [7, 7, 7]);
    const res = await s.call("PUT", "/refs/pick", { ep, ref: "subject:ada", view: "03_back", take: back });
    expect(res.body.sha1).not.toBe(before);
    expect(await centre(sheet, 2.5 / 4)).toEqual([7, 7, 7]);
    await afterAnswerSettled(s.env.services, ep);
  });

  it("copies a ready-made sheet take as it is", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "subject:bo", "sheet", [90, 90, 10]);
    const res = await s.call("PUT", "/refs/pick", { ep, ref: "subject:bo", view: "sheet", take });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.live_from).toBe("sheet");
    expect(await centre(path.join(ep, "refs/bo/bo_sheet_4panel.png"), 0.5)).toEqual([90, 90, 10]);
  });

  it("refuses what cannot be picked", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", take: 4 }), 404, /no take 4/);
    refusal(
      await s.call("PUT", "/refs/pick", { ep, ref: "subject:nobody", take: 1 }),
      404,
      /not a reference/,
    );
    refusal(await s.call("PUT", "/refs/pick", { ep, ref: "kettle", take: 1 }), 400, /reference id/);
    refusal(await s.call("PUT", "/refs/pick", { ep, ref: "subject:ada", take: 1 }), 400, /which view/);
    refusal(
      await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", view: "02_side", take: 1 }),
      400,
      /no views/,
    );
    const pano = await candidate(ep, "location:kitchen", "pano", [1, 1, 1]);
    refusal(
      await s.call("PUT", "/refs/pick", { ep, ref: "location:kitchen", view: "pano", take: pano }),
      400,
      /panorama/,
    );
    refusal(
      await s.call("PUT", "/refs/pick", { ep: "/nowhere/ep", ref: "subject:kettle", take: 1 }),
      403,
      /root/,
    );
  });
});

describe("used_by", () => {
  it("counts the shots whose animatic card is drawn over a location's plate", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await s.call("GET", "/refs", { ep });
    const kitchen = res.body.refs.find((r: { id: string }) => r.id === "location:kitchen");
    expect(kitchen.used_by.proxy).toEqual(["sh010", "sh020", "sh030"]);
    await afterAnswerSettled(s.env.services, ep);
  });
});

describe("DELETE /studio/refs/pick", () => {
  it("removes the live file, keeps the take and records cleared so auto-pick stays away", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "location:kitchen", null, [5, 50, 150]);
    await s.call("PUT", "/refs/pick", { ep, ref: "location:kitchen", take });
    s.env.events.length = 0;
    const res = await s.call("DELETE", "/refs/pick", { ep, ref: "location:kitchen" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ exists: false, cleared: true });
    expect(res.body.takes).toHaveLength(1);
    expect(kinds()).toEqual(["studio.ref:cleared", "studio.episode:"]);
    await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    await expect(stat(path.join(ep, "refs/_bg/kitchen.png"))).rejects.toThrow();
    const picks = JSON.parse(await readFile(path.join(ep, "refs/_picks.json"), "utf8"));
    expect(picks.refs["location:kitchen"].cleared).toBeTypeOf("string");
  });

  it("refuses a voice", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("DELETE", "/refs/pick", { ep, ref: "voice:ada" }), 400, /voice/);
  });
});

describe("POST /studio/refs/discard", () => {
  it("moves the candidate to the trash and clears it when it was the pick: discarded, cleared, episode", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "subject:kettle", null, [100, 0, 100]);
    await s.call("PUT", "/refs/pick", { ep, ref: "subject:kettle", take });
    s.env.events.length = 0;
    const res = await s.call("POST", "/refs/discard", { ep, ref: "subject:kettle", take });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ exists: false, takes: [] });
    expect(kinds()).toEqual(["studio.ref:discarded", "studio.ref:cleared", "studio.episode:"]);
    const trash = path.join(ep, "refs/_takes/_trash/subject__kettle");
    expect((await stat(path.join(trash, "subject__kettle_t01.png"))).isFile()).toBe(true);
    expect((await stat(path.join(trash, "subject__kettle_t01.json"))).isFile()).toBe(true);
    // The number is never given again.
    expect(await candidate(ep, "subject:kettle", null, [1, 2, 3])).toBe(2);
    refusal(await s.call("POST", "/refs/discard", { ep, ref: "subject:kettle", take: 1 }), 404, /no take 1/);
  });

  it("refuses a character take without a view and a queued take", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("POST", "/refs/discard", { ep, ref: "subject:ada", take: 1 }), 400, /view/);
    const dir = path.join(ep, "refs/_takes/location__street");
    await mkdir(dir, { recursive: true });
    await (await import("node:fs/promises")).writeFile(
      path.join(dir, "location__street_t01.json"),
      JSON.stringify({
        version: 1,
        ref: "location:street",
        take: 1,
        status: "queued",
        queued: new Date().toISOString(),
      }),
    );
    refusal(await s.call("POST", "/refs/discard", { ep, ref: "location:street", take: 1 }), 409, /queued/);
  });
});

describe("POST /studio/refs/copy-take", () => {
  it("copies a finished picture into another ref as an unpicked candidate", async () => {
    const ep = await s.episode(SCRIPT);
    const take = await candidate(ep, "location:kitchen", null, [20, 40, 60]);
    const res = await s.call("POST", "/refs/copy-take", {
      ep,
      ref: "location:kitchen",
      take,
      to: "location:street",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: "location:street", copied: { view: null, take: 1 } });
    const sidecar = JSON.parse(
      await readFile(path.join(ep, "refs/_takes/location__street/location__street_t01.json"), "utf8"),
    );
    expect(sidecar).toMatchObject({ source: "from_take", copied_from: { ref: "location:kitchen", take: 1 } });
    await expect(stat(path.join(ep, "refs/_bg/street.png"))).rejects.toThrow();
    const into = await s.call("POST", "/refs/copy-take", {
      ep,
      ref: "location:kitchen",
      take,
      to: "subject:ada",
      to_view: "02_side",
    });
    expect(into.status, JSON.stringify(into.body)).toBe(200);
    expect(into.body.copied).toEqual({ view: "02_side", take: 1 });
    refusal(
      await s.call("POST", "/refs/copy-take", { ep, ref: "location:kitchen", take, to: "subject:ada" }),
      400,
      /not into the character itself/,
    );
    refusal(
      await s.call("POST", "/refs/copy-take", {
        ep,
        ref: "location:kitchen",
        take: 9,
        to: "location:street",
      }),
      404,
      /no take 9/,
    );
  });
});
