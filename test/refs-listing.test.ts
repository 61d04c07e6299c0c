// GET /studio/refs and GET /studio/refs/owner-takes on real files: every listed field of a reference, a view, a
// keyframe and a ref take; sibling episodes sharing ../refs (shared_with, live_owner, the owner's takes); the
// answer kept while nothing changes; auto-pick after the answer; refusals.
import { createHash } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { afterAnswerSettled } from "../lib/refs/list-after.ts";
import { seriesS } from "./support/series-s.ts";
import { refusal, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "target: minimax_h3_ref2va",
  "who: ada",
  "with: kettle",
  "dur: 3",
  "Ada fills the kettle.",
  "## sh020",
  "who: bo",
  "size: close",
  "first: refs/in/sh020.png",
  "dur: 2",
  "Bo waits.",
  "## sh030",
  "continuous: first",
  "dur: 2",
  "Cy runs.",
].join("\n");

async function png(file: string, rgb: [number, number, number], w = 16, h = 16): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await sharp({
    create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .png()
    .toFile(file);
  return file;
}

const sha1 = async (file: string) =>
  createHash("sha1")
    .update(await readFile(file))
    .digest("hex");

/** A candidate as a finished take leaves it: `<home>/refs/_takes/<key>/<stem>.<ext>` and its sidecar. */
async function candidate(
  home: string,
  id: string,
  view: string | null,
  take: number,
  sidecar: Record<string, unknown> = {},
  ext = "png",
): Promise<string> {
  const key = id.replaceAll(":", "__");
  const stem = `${key}${view ? `_${view}` : ""}_t${String(take).padStart(2, "0")}`;
  const dir = path.join(home, "refs", "_takes", key);
  const status = sidecar.status ?? "ok";
  const file = path.join(dir, `${stem}.${ext}`);
  if (status === "ok") {
    if (ext === "png") await png(file, [take * 20, 40, 60]);
    else {
      await mkdir(dir, { recursive: true });
      await writeFile(file, "RIFF....WAVE");
    }
  }
  await mkdir(dir, { recursive: true });
  const record = {
    version: 1,
    ref: id,
    view,
    take,
    status,
    ...(status === "ok" ? { [ext === "png" ? "image" : "audio"]: `${stem}.${ext}` } : {}),
    ...sidecar,
  };
  // A 63-bit seed is written as an integer literal, as the service's sidecars hold it.
  const text = JSON.stringify(record, (_, v) => (typeof v === "bigint" ? `#${v}` : v)).replace(
    /"#(\d+)"/g,
    "$1",
  );
  await writeFile(path.join(dir, `${stem}.json`), text);
  return file;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
const find = (refs: any[], id: string) => {
  const r = refs.find((x) => x.id === id);
  if (!r) throw new Error(`no ${id} listed`);
  return r;
};

describe("GET /studio/refs", () => {
  it("lists every field of characters with views, props, locations with angles, variants, voices and keyframes", async () => {
    const ep = await s.episode(SCRIPT);
    // Ada: four picked views stitched into the live sheet, a ready-made sheet take, a queued view take.
    const views = ["01_threequarter", "02_side", "03_back", "04_face"];
    for (const v of views)
      await candidate(ep, "subject:ada", v, 1, { source: "generated", seed: 1234567890123456789n });
    await candidate(ep, "subject:ada", "02_side", 2, { status: "queued", queued: "2026-01-01T00:00:00" });
    await candidate(ep, "subject:ada", "sheet", 1, {
      source: "imported",
      original_name: "ada.png",
      note: "hand",
    });
    const sheet = await png(path.join(ep, "refs/ada/ada_sheet_4panel.png"), [1, 2, 3], 64, 16);
    const sheetSha1 = await sha1(sheet);
    // The kettle: a finished take, a failed one, and one in the trash (never listed).
    await candidate(ep, "subject:kettle", null, 1, {
      source: "frame",
      source_shot: "sh010",
      source_take: 2,
      source_pass: "proxy",
      source_frame: 71,
      source_frames: 72,
      comfy_prompt_id: "abc",
      width: 16,
      height: 16,
    });
    await candidate(ep, "subject:kettle", null, 2, { status: "failed", save_notes: ["out of memory"] });
    await mkdir(path.join(ep, "refs/_takes/_trash/subject__kettle"), { recursive: true });
    await png(path.join(ep, "refs/_takes/_trash/subject__kettle/subject__kettle_t03.png"), [9, 9, 9]);
    // The kitchen: a live plate, a panorama, a tour hold and the tour's sidecar.
    const plate = await png(path.join(ep, "refs/_bg/kitchen.png"), [5, 5, 5]);
    await candidate(ep, "location:kitchen", null, 1, { source: "generated" });
    await candidate(ep, "location:kitchen", "pano", 1, { source: "pano" });
    await candidate(ep, "location:kitchen", "tour", 1, { source: "tour", tour: 1, hold: 0 });
    await mkdir(path.join(ep, "refs/_takes/location__kitchen/_tours"), { recursive: true });
    await writeFile(
      path.join(ep, "refs/_takes/location__kitchen/_tours/tour_t01.json"),
      JSON.stringify({
        tour: 1,
        ref: "location:kitchen",
        status: "ok",
        move: "orbit left",
        holds: [1],
        error: null,
      }),
    );
    // Ada's voice: an imported recording is listed, a generated sound is not.
    await candidate(ep, "voice:ada", null, 1, { source: "imported", original_name: "ada.wav" }, "wav");
    await candidate(ep, "voice:ada", null, 2, { source: "generated" }, "wav");
    // sh030's first frame is live and picked.
    const kf = await png(path.join(ep, "refs/shots/sh030/first.png"), [7, 7, 7]);
    await candidate(ep, "shot:sh030:first", null, 1, { source: "imported" });
    await writeFile(
      path.join(ep, "refs/_picks.json"),
      JSON.stringify({
        version: 1,
        refs: {
          "subject:ada": {
            views: Object.fromEntries(views.map((v) => [v, { take: 1, sha1: "x", picked: "t" }])),
            sha1: sheetSha1,
            stitched: "t",
          },
          "location:kitchen": { take: 1, sha1: await sha1(plate), picked: "t" },
          "shot:sh030:first": { take: 1, sha1: await sha1(kf), picked: "t" },
          "subject:kettle": { cleared: "t" },
        },
      }),
    );

    const res = await s.call("GET", "/refs", { ep });
    expect(res.status).toBe(200);
    const { refs, defaults } = res.body;
    expect(defaults).toEqual({
      target: "card",
      target_source: "default",
      keyframe_target: "card",
      keyframe_target_source: "default",
      voice_target: "speech",
      voice_target_source: "default",
    });

    const ada = find(refs, "subject:ada");
    expect(ada).toMatchObject({
      scope: "series",
      kind: "character",
      name: "Ada",
      key: "subject__ada",
      subject: "ada",
      path: "refs/ada/ada_sheet_4panel.png",
      exists: true,
      sha1: sheetSha1,
      used_by: { final: ["sh010"], proxy: ["sh010"] },
      override: { fields: [], stale: false, values: {} },
      override_values: {},
      can_generate: true,
      why_not: null,
      picked: null,
      cleared: false,
      sheet_cleared: false,
      live_from: "views",
      panels: 4,
      panels_conflict: false,
      shared_with: [],
      live_owner: ep,
      panos: [],
      tours: [],
      tour_holds: [],
    });
    expect(ada.prompt).toBe(ada.built_prompt);
    expect(ada.effective).toMatchObject({ target: "card", seed_source: "stable", width: 1024, height: 1024 });
    expect(ada.views.map((v: { view: string }) => v.view)).toEqual(views);
    const side = ada.views[1];
    expect(side).toMatchObject({ view: "02_side", picked: 1, cleared: false });
    expect(side.override).toEqual({ fields: [], stale: false, values: {}, own: [] });
    expect(side.built_prompt).toContain("a direct side profile facing right");
    expect(side.prompt).toBe(side.built_prompt);
    expect(side.effective.prompt).toBe(side.built_prompt);
    expect(side.takes.map((t: { take: number; status: string }) => [t.take, t.status])).toEqual([
      [1, "ok"],
      [2, "queued"],
    ]);
    // Every field of a take, seeds as text, the file relative to the episode.
    expect(side.takes[0]).toEqual({
      take: 1,
      view: "02_side",
      status: "ok",
      usable: true,
      seed: "1234567890123456789",
      seed_source: null,
      image: "refs/_takes/subject__ada/subject__ada_02_side_t01.png",
      source: "generated",
      note: null,
      prompt: null,
      model: null,
      loras: null,
      steps: null,
      cfg: null,
      params: null,
      width: null,
      height: null,
      queued: null,
      finished: null,
      backend_prompt_id: null,
      save_notes: null,
      overrides: null,
      edit: null,
      target: null,
      from: null,
      original_name: null,
    });
    expect(side.takes[1]).toMatchObject({ usable: false, image: null, queued: "2026-01-01T00:00:00" });
    // The ready-made sheet is a take of the reference itself.
    expect(ada.takes).toEqual([
      expect.objectContaining({
        take: 1,
        view: "sheet",
        source: "imported",
        original_name: "ada.png",
        note: "hand",
      }),
    ]);

    const kettle = find(refs, "subject:kettle");
    expect(kettle).toMatchObject({
      kind: "prop",
      panels: 1,
      views: [],
      cleared: true,
      picked: null,
      exists: false,
    });
    expect(kettle.takes.map((t: { take: number }) => t.take)).toEqual([1, 2]);
    expect(kettle.takes[0]).toMatchObject({
      backend_prompt_id: "abc",
      width: 16,
      from: { shot: "sh010", take: 2, pass: "proxy", frame: 71, frames: 72 },
    });
    expect(kettle.takes[1]).toMatchObject({ status: "failed", usable: false, save_notes: ["out of memory"] });

    const kitchen = find(refs, "location:kitchen");
    expect(kitchen).toMatchObject({
      kind: "location",
      picked: 1,
      exists: true,
      live_owner: ep,
      live_from: null,
    });
    expect(kitchen.takes.map((t: { take: number; view: null }) => [t.take, t.view])).toEqual([[1, null]]);
    expect(kitchen.panos).toEqual([expect.objectContaining({ take: 1, view: "pano", source: "pano" })]);
    expect(kitchen.tour_holds).toEqual([expect.objectContaining({ take: 1, view: "tour", source: "tour" })]);
    expect(kitchen.tours).toEqual([
      {
        tour: 1,
        status: "ok",
        move: "orbit left",
        holds: [1],
        error: null,
        video: null,
        seconds: null,
        fps: null,
        frames: null,
      },
    ]);
    expect(find(refs, "location:kitchen_rev")).toMatchObject({ of: "kitchen", exists: false, sha1: null });

    const towel = find(refs, "subject:gina_towel");
    expect(towel).toMatchObject({ of: "gina", name: "Gina", kind: "character" });
    expect(refs.some((r: { id: string }) => r.id === "voice:gina_towel")).toBe(false);

    const voice = find(refs, "voice:ada");
    expect(voice).toMatchObject({
      kind: "voice",
      can_generate: false,
      path: "refs/voices/ada.wav",
      views: [],
    });
    expect(voice.takes).toEqual([
      expect.objectContaining({
        take: 1,
        audio: "refs/_takes/voice__ada/voice__ada_t01.wav",
        source: "imported",
      }),
    ]);

    const first = find(refs, "shot:sh030:first");
    expect(first).toMatchObject({
      scope: "shot",
      kind: "keyframe",
      key: "shot__sh030__first",
      path: "refs/shots/sh030/first.png",
      exists: true,
      picked: 1,
      live_owner: ep,
      shot: "sh030",
      which: "first",
      need: "optional",
      method: "continuity",
      target: "card",
      requested: false,
      script: null,
      reads: true,
      import_path: null,
      cleared: false,
      edit_refs: [],
    });
    expect(first.effective).toMatchObject({ width: 1344, height: 768 });
    expect(find(refs, "shot:sh020:first")).toMatchObject({
      method: "import",
      import_path: "refs/in/sh020.png",
    });
    expect(find(refs, "shot:sh030:last")).toMatchObject({ need: null, reads: false });
    await afterAnswerSettled(s.env.services, ep);
  });

  it("answers the same while nothing changes and sees a new take and a new live file", async () => {
    const ep = await s.episode(SCRIPT);
    const a = await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    const b = await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    expect(b.body).toEqual(a.body);
    // A first finished candidate: the answer lists it without a live file, and auto-pick places it afterwards.
    await candidate(ep, "location:street", null, 1, { source: "imported" });
    const c = await s.call("GET", "/refs", { ep });
    expect(find(c.body.refs, "location:street")).toMatchObject({ exists: false, picked: null });
    expect(find(c.body.refs, "location:street").takes).toHaveLength(1);
    await afterAnswerSettled(s.env.services, ep);
    expect((await stat(path.join(ep, "refs/_bg/street.png"))).isFile()).toBe(true);
    expect(s.env.events).toContainEqual({
      type: "studio.ref",
      data: { ep, ref: "location:street", view: null, take: 1, status: "picked" },
    });
    const d = await s.call("GET", "/refs", { ep });
    await afterAnswerSettled(s.env.services, ep);
    const street = find(d.body.refs, "location:street");
    expect(street).toMatchObject({ exists: true, picked: 1, live_owner: ep });
    expect(street.sha1).toBe(await sha1(path.join(ep, "refs/_bg/street.png")));
  });

  it("refuses an unknown episode and one outside the roots", async () => {
    refusal(await s.call("GET", "/refs", { ep: path.join(s.root, "nope", "ep01") }), 404, /./);
    refusal(await s.call("GET", "/refs", { ep: "/etc" }), 403, /outside the configured roots/);
  });
});

describe("sibling episodes sharing ../refs", () => {
  async function twoEpisodes() {
    const show = await s.show();
    const series = seriesS();
    series.subjects.kettle.sheet = "../refs/props/kettle.png";
    const eps: string[] = [];
    for (const name of ["ep01", "ep02"]) {
      const ep = path.join(show, name);
      await mkdir(ep, { recursive: true });
      await writeFile(path.join(ep, "series.json"), JSON.stringify(series, null, 2));
      await writeFile(path.join(ep, `${name}.md`), SCRIPT);
      eps.push(ep);
    }
    // ep02 picked its take 2 into the shared file.
    await candidate(eps[1], "subject:kettle", null, 1, { source: "imported" });
    const t2 = await candidate(eps[1], "subject:kettle", null, 2, { source: "imported" });
    await mkdir(path.join(show, "refs", "props"), { recursive: true });
    const live = path.join(show, "refs/props/kettle.png");
    await writeFile(live, await readFile(t2));
    await writeFile(
      path.join(eps[1], "refs/_picks.json"),
      JSON.stringify({
        version: 1,
        refs: { "subject:kettle": { take: 2, sha1: await sha1(live), picked: "t" } },
      }),
    );
    return { show, ep1: eps[0], ep2: eps[1], live };
  }

  it("lists who shares a live file and whose pick wrote it; the owner's takes are read-only from the others", async () => {
    const { ep1, ep2, live } = await twoEpisodes();
    const one = await s.call("GET", "/refs", { ep: ep1 });
    await afterAnswerSettled(s.env.services, ep1);
    const kettle1 = find(one.body.refs, "subject:kettle");
    expect(kettle1).toMatchObject({
      path: "../refs/props/kettle.png",
      exists: true,
      sha1: await sha1(live),
      shared_with: [ep2],
      live_owner: ep2,
      takes: [],
    });
    // Not shared: each episode's own sheet.
    expect(find(one.body.refs, "subject:ada")).toMatchObject({ shared_with: [], live_owner: null });

    const two = await s.call("GET", "/refs", { ep: ep2 });
    await afterAnswerSettled(s.env.services, ep2);
    expect(find(two.body.refs, "subject:kettle")).toMatchObject({ shared_with: [ep1], live_owner: ep2 });

    const owner = await s.call("GET", "/refs/owner-takes", { ep: ep1, ref: "subject:kettle" });
    expect(owner.status).toBe(200);
    expect(owner.body.owner).toBe(ep2);
    expect(owner.body.takes.map((t: { take: number; picked: boolean }) => [t.take, t.picked])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(owner.body.takes[1]).toMatchObject({
      episode: ep2,
      image: "../ep02/refs/_takes/subject__kettle/subject__kettle_t02.png",
      usable: true,
    });
    // The owner itself, and a reference nobody picked, have no owner's takes to show.
    expect((await s.call("GET", "/refs/owner-takes", { ep: ep2, ref: "subject:kettle" })).body).toEqual({
      owner: ep2,
      takes: [],
    });
    expect((await s.call("GET", "/refs/owner-takes", { ep: ep1, ref: "location:street" })).body).toEqual({
      owner: null,
      takes: [],
    });
  });

  it("refuses a malformed reference id (400), an unknown reference (404) and an unknown episode (404)", async () => {
    const { ep1 } = await twoEpisodes();
    refusal(await s.call("GET", "/refs/owner-takes", { ep: ep1, ref: "kettle" }), 400, /reference id/);
    refusal(
      await s.call("GET", "/refs/owner-takes", { ep: ep1, ref: "shot:sh010:middle" }),
      400,
      /reference id/,
    );
    refusal(
      await s.call("GET", "/refs/owner-takes", { ep: ep1, ref: "subject:nobody" }),
      404,
      /subject:nobody is not a reference of this episode/,
    );
    refusal(await s.call("GET", "/refs/owner-takes", { ep: ep1 }), 400, /ref/);
    refusal(
      await s.call("GET", "/refs/owner-takes", { ep: path.join(s.root, "missing"), ref: "subject:ada" }),
      404,
      /./,
    );
  });
});
