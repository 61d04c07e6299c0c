// Matching dropped file names to reference slots: slugs, the names each kind of reference offers, picture vs
// sound, revision markers, ambiguity, two files for one slot, the 500-name limit; then the route on a real show.
import { readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import match from "../functions/refs/match.post.ts";
import { StudioError } from "../lib/errors.ts";
import {
  type MatchSlot,
  matchFiles,
  type SlotSource,
  slotsOf,
  slugOf,
  splitName,
} from "../lib/refs/match.ts";
import { callFunction, refusal } from "./support/call.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

const VIEW_LIST = ["01_threequarter", "02_side", "03_back", "04_face"].map((view) => ({ view }));

const dean: SlotSource = {
  ref: { id: "subject:dean", name: "dean" },
  kind: "character",
  name: "Dean Moriarty",
  path: "refs/dean/dean_sheet_4panel.png",
  views: VIEW_LIST,
};
const deanSuit: SlotSource = {
  ref: { id: "subject:dean_suit", name: "dean_suit" },
  kind: "character",
  name: "Dean Moriarty",
  of: "dean",
  path: "refs/dean/dean_suit_sheet_4panel.png",
  views: VIEW_LIST,
};
const backpack: SlotSource = {
  ref: { id: "subject:backpack", name: "backpack" },
  kind: "prop",
  name: "Red Backpack",
  path: "refs/props/pack-01.png",
  views: [],
};
const street: SlotSource = {
  ref: { id: "location:street", name: "street" },
  kind: "location",
  name: "street",
  path: "refs/_bg/Street Night.png",
  views: [],
};
const deanVoice: SlotSource = {
  ref: { id: "voice:dean", name: "dean" },
  kind: "voice",
  name: "Dean Moriarty",
  path: "refs/voices/dean_sample.wav",
  views: [],
};
const firstFrame: SlotSource = {
  ref: { id: "shot:sh010:first", name: "sh010", which: "first" },
  kind: "keyframe",
  name: "sh010 first frame",
  path: "refs/shots/sh010/first.png",
  views: [],
};
const lastFrame: SlotSource = {
  ...firstFrame,
  ref: { id: "shot:sh010:last", name: "sh010", which: "last" },
  name: "sh010 last frame",
  path: "refs/shots/sh010/last.png",
};

const show = [dean, deanSuit, backpack, street, deanVoice, firstFrame, lastFrame].flatMap(slotsOf);

const one = (file: string, slots: readonly MatchSlot[] = show) => matchFiles([file], slots);
const slotOf = (file: string) => {
  const { matched, unmatched } = one(file);
  expect(unmatched, file).toEqual([]);
  return `${matched[0].ref}${matched[0].view ? `#${matched[0].view}` : ""}`;
};

describe("slugs and names", () => {
  it("slugs: lower case, runs of other characters as one _, none at the ends", () => {
    expect(slugOf("Dean  Moriarty")).toBe("dean_moriarty");
    expect(slugOf("--Dean.Side (2)--")).toBe("dean_side_2");
    expect(slugOf("Zoë-Face")).toBe("zoë_face");
    expect(slugOf("___")).toBe("");
    expect(splitName("a.b.PNG")).toEqual({ stem: "a.b", ext: "png" });
    expect(splitName(".png")).toEqual({ stem: ".png", ext: "" });
    expect(splitName("noext")).toEqual({ stem: "noext", ext: "" });
  });

  it("gives each kind of reference the names written at the top of lib/refs/match.ts", () => {
    const names = (s: SlotSource) => slotsOf(s).map((slot) => [slot.view, slot.audio, slot.names]);
    expect(names(dean)).toEqual([
      ["sheet", false, ["dean", "dean_moriarty", "dean_sheet_4panel", "dean_sheet"]],
      ["01_threequarter", false, ["dean_01_threequarter", "dean_threequarter", "dean_moriarty_threequarter"]],
      ["02_side", false, ["dean_02_side", "dean_side", "dean_moriarty_side"]],
      ["03_back", false, ["dean_03_back", "dean_back", "dean_moriarty_back"]],
      ["04_face", false, ["dean_04_face", "dean_face", "dean_moriarty_face"]],
    ]);
    // A variant keeps its base's name: only its id and file name count.
    expect(names(deanSuit)[0]).toEqual([
      "sheet",
      false,
      ["dean_suit", "dean_suit_sheet_4panel", "dean_suit_sheet"],
    ]);
    expect(names(deanSuit)[2]).toEqual(["02_side", false, ["dean_suit_02_side", "dean_suit_side"]]);
    expect(names(backpack)).toEqual([
      [null, false, ["backpack", "red_backpack", "pack_01", "backpack_sheet"]],
    ]);
    expect(names(street)).toEqual([[null, false, ["street", "street_plate", "street_night"]]]);
    expect(names(deanVoice)).toEqual([
      [null, true, ["dean", "dean_voice", "dean_moriarty_voice", "dean_sample"]],
    ]);
    expect(names(firstFrame)).toEqual([[null, false, ["sh010_first"]]]);
    expect(slotsOf(dean)[0]).toMatchObject({ ref: "subject:dean", name: "Dean Moriarty", kind: "character" });
    expect(slotsOf(dean)[2].path).toBe("refs/dean/dean_sheet_4panel.png");
  });
});

describe("matchFiles", () => {
  it("matches each kind of slot by any of its names, whatever the case and punctuation", () => {
    expect(slotOf("Dean.png")).toBe("subject:dean#sheet");
    expect(slotOf("dean moriarty.JPG")).toBe("subject:dean#sheet");
    expect(slotOf("dean_sheet_4panel.webp")).toBe("subject:dean#sheet");
    expect(slotOf("Dean - Side.png")).toBe("subject:dean#02_side");
    expect(slotOf("dean_01_threequarter.jpeg")).toBe("subject:dean#01_threequarter");
    expect(slotOf("Dean Moriarty face.png")).toBe("subject:dean#04_face");
    expect(slotOf("dean_suit_back.png")).toBe("subject:dean_suit#03_back");
    expect(slotOf("Red Backpack.png")).toBe("subject:backpack");
    expect(slotOf("pack-01.png")).toBe("subject:backpack");
    expect(slotOf("street_plate.png")).toBe("location:street");
    expect(slotOf("Street Night.jpg")).toBe("location:street");
    expect(slotOf("SH010_first.png")).toBe("shot:sh010:first");
    expect(slotOf("sh010-last.png")).toBe("shot:sh010:last");
  });

  it("lets the extension choose between a picture slot and a sound slot of one name", () => {
    expect(slotOf("dean.wav")).toBe("voice:dean");
    expect(slotOf("Dean Moriarty voice.m4a")).toBe("voice:dean");
    expect(slotOf("dean_sample.flac")).toBe("voice:dean");
    expect(slotOf("dean.png")).toBe("subject:dean#sheet");
    expect(one("street.mp3").unmatched).toEqual([
      { file: "street.mp3", why: '"street" names location:street, which takes a picture, not a sound' },
    ]);
    expect(one("dean_voice.png").unmatched[0].why).toBe(
      '"dean_voice" names voice:dean, which takes a sound, not a picture',
    );
  });

  it("answers every field of a match", () => {
    expect(one("dean_side.png").matched).toEqual([
      {
        file: "dean_side.png",
        ref: "subject:dean",
        view: "02_side",
        name: "Dean Moriarty",
        kind: "character",
        audio: false,
        path: "refs/dean/dean_sheet_4panel.png",
        why: '"dean_side" is a name of subject:dean view 02_side',
      },
    ]);
    expect(one("dean.ogg").matched[0]).toMatchObject({
      ref: "voice:dean",
      view: null,
      kind: "voice",
      audio: true,
    });
  });

  it("sets trailing revision markers aside, one at a time, and says so", () => {
    for (const marker of [
      "_v2",
      "_V12",
      "_3",
      "_final",
      "_copy",
      "_new",
      "_edit",
      "_fixed",
      " (final)",
      "-copy",
    ]) {
      const { matched } = one(`dean_side${marker}.png`);
      expect(matched[0]?.view, marker).toBe("02_side");
      expect(matched[0].why).toMatch(/with the revision marker "_[a-z0-9]+" set aside$/);
    }
    expect(one("street_final_v3.png").matched[0]).toMatchObject({
      ref: "location:street",
      why: '"street_final_v3" is "street", a name of location:street, with the revision markers "_final_v3" set aside',
    });
    // A marker only counts at the end, and never as the whole name.
    expect(one("dean_v2_side.png").unmatched[0].why).toBe(
      'no picture reference of this episode is called "dean_v2_side"',
    );
    expect(one("final.png").unmatched).toHaveLength(1);
    // Other endings are not markers.
    expect(one("dean_side_old.png").unmatched).toHaveLength(1);
  });

  it("prefers a name as written over one with a marker set aside", () => {
    const slots = [
      street,
      { ...street, ref: { id: "location:street_2", name: "street_2" }, path: "refs/_bg/s2.png" },
    ].flatMap(slotsOf);
    expect(one("street_2.png", slots).matched[0].ref).toBe("location:street_2");
    expect(one("street_2_v2.png", slots).matched[0].ref).toBe("location:street_2");
    expect(one("street_3.png", slots).matched[0].ref).toBe("location:street");
  });

  it("leaves a name two slots share unmatched, naming both", () => {
    const slots = [
      dean,
      { ...street, ref: { id: "location:dean", name: "dean" }, path: "refs/_bg/x.png" },
    ].flatMap(slotsOf);
    expect(one("dean.png", slots)).toEqual({
      matched: [],
      unmatched: [
        {
          file: "dean.png",
          why: '"dean" could be subject:dean view sheet or location:dean: rename the file to a name only one of them has',
        },
      ],
    });
    // The same name with a marker is just as ambiguous; a name only one has still matches.
    expect(one("dean_v2.png", slots).unmatched[0].why).toMatch(/^"dean" could be /);
    expect(one("dean_plate.png", slots).matched[0].ref).toBe("location:dean");
  });

  it("leaves every file that wants one slot unmatched, and matches the rest", () => {
    const { matched, unmatched } = matchFiles(
      ["dean_side.png", "street.png", "Dean Moriarty side_v2.png", "dean_face.png", "dean_side.png"],
      show,
    );
    expect(matched.map((m) => [m.file, m.ref, m.view])).toEqual([
      ["street.png", "location:street", null],
      ["dean_face.png", "subject:dean", "04_face"],
    ]);
    const why =
      "3 files want subject:dean view 02_side (dean_side.png, Dean Moriarty side_v2.png, dean_side.png): drop all but one";
    expect(unmatched).toEqual([
      { file: "dean_side.png", why },
      { file: "Dean Moriarty side_v2.png", why },
      { file: "dean_side.png", why },
    ]);
    // A picture and a sound of one name want different slots.
    expect(matchFiles(["dean.png", "dean.wav"], show).matched.map((m) => m.ref)).toEqual([
      "subject:dean",
      "voice:dean",
    ]);
  });

  it("says why a file fits nowhere", () => {
    expect(
      matchFiles(["notes.txt", "clip.mp4", "README", "___.png", "nobody.png", "nobody.wav"], show).unmatched,
    ).toEqual([
      {
        file: "notes.txt",
        why: '"notes.txt" is neither a picture (png, jpg, jpeg, webp) nor a sound (wav, mp3, flac, ogg, m4a)',
      },
      {
        file: "clip.mp4",
        why: '"clip.mp4" is neither a picture (png, jpg, jpeg, webp) nor a sound (wav, mp3, flac, ogg, m4a)',
      },
      {
        file: "README",
        why: '"README" is neither a picture (png, jpg, jpeg, webp) nor a sound (wav, mp3, flac, ogg, m4a)',
      },
      { file: "___.png", why: '"___.png" has no letters or digits to match a reference by' },
      { file: "nobody.png", why: 'no picture reference of this episode is called "nobody"' },
      { file: "nobody.wav", why: 'no voice of this episode is called "nobody"' },
    ]);
    expect(matchFiles([], show)).toEqual({ matched: [], unmatched: [] });
    expect(matchFiles(["dean.png"], [])).toEqual({
      matched: [],
      unmatched: [{ file: "dean.png", why: 'no picture reference of this episode is called "dean"' }],
    });
  });

  it("takes at most 500 names", () => {
    const names = Array.from({ length: 500 }, (_, i) => `file_${i}.png`);
    expect(matchFiles(names, show).unmatched).toHaveLength(500);
    const over = () => matchFiles([...names, "one_more.png"], show);
    expect(over).toThrow(StudioError);
    expect(over).toThrow("names: at most 500 file names at once; got 501");
  });
});

describe("POST /studio/refs/match", () => {
  let s: Studio;
  let ep: string;
  const post = (input: Record<string, unknown>) => callFunction(match, input, s.env.services);

  beforeAll(async () => {
    s = await makeStudio({ outside: true });
    const series = seriesS();
    series.subjects.ada.name = "Ada Lovelace";
    series.subjects.ada.voice_sample = "refs/voices/Ada Take 3.wav";
    ep = await s.episode(SCRIPT, { series });
  });
  afterAll(() => s.cleanup());

  /** Every file under the show with its size and modification time. */
  async function snapshot(dir: string): Promise<string[]> {
    const out: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      const file = path.join(entry.parentPath, entry.name);
      const info = await stat(file);
      out.push(`${file} ${info.size} ${info.mtimeMs}`);
    }
    return out.sort();
  }

  it("matches a character's views and sheet, a prop, a location, a voice and keyframes from the show's config and build", async () => {
    const names = [
      "Ada Lovelace - side.png",
      "ada_face_v2.jpg",
      "ADA.png",
      "the kettle.webp",
      "kitchen_plate_final.png",
      "kitchen_rev.png",
      "Ada Take 3.wav",
      "bo_voice.mp3",
      "sh020_last.png",
      "gina_towel_back.png",
      "sh099_first.png",
      "kitchen.txt",
    ];
    const before = await snapshot(path.dirname(ep));
    const got = await post({ ep, names });
    expect(got.status).toBe(200);
    const rows = got.body.matched.map((m: Record<string, unknown>) => [
      m.file,
      m.ref,
      m.view,
      m.kind,
      m.audio,
      m.path,
    ]);
    expect(rows).toEqual([
      [
        "Ada Lovelace - side.png",
        "subject:ada",
        "02_side",
        "character",
        false,
        "refs/ada/ada_sheet_4panel.png",
      ],
      ["ada_face_v2.jpg", "subject:ada", "04_face", "character", false, "refs/ada/ada_sheet_4panel.png"],
      ["ADA.png", "subject:ada", "sheet", "character", false, "refs/ada/ada_sheet_4panel.png"],
      ["the kettle.webp", "subject:kettle", null, "prop", false, "refs/props/kettle.png"],
      ["kitchen_plate_final.png", "location:kitchen", null, "location", false, "refs/_bg/kitchen.png"],
      ["kitchen_rev.png", "location:kitchen_rev", null, "location", false, "refs/_bg/kitchen_rev.png"],
      ["Ada Take 3.wav", "voice:ada", null, "voice", true, "refs/voices/Ada Take 3.wav"],
      ["bo_voice.mp3", "voice:bo", null, "voice", true, "refs/voices/bo.wav"],
      ["sh020_last.png", "shot:sh020:last", null, "keyframe", false, "refs/shots/sh020/last.png"],
      [
        "gina_towel_back.png",
        "subject:gina_towel",
        "03_back",
        "character",
        false,
        "refs/gina/gina_towel_sheet_4panel.png",
      ],
    ]);
    expect(got.body.matched[0]).toEqual({
      file: "Ada Lovelace - side.png",
      ref: "subject:ada",
      view: "02_side",
      name: "Ada Lovelace",
      kind: "character",
      audio: false,
      path: "refs/ada/ada_sheet_4panel.png",
      why: '"ada_lovelace_side" is a name of subject:ada view 02_side',
    });
    expect(got.body.matched[1].why).toBe(
      '"ada_face_v2" is "ada_face", a name of subject:ada view 04_face, with the revision marker "_v2" set aside',
    );
    expect(got.body.unmatched).toEqual([
      { file: "sh099_first.png", why: 'no picture reference of this episode is called "sh099_first"' },
      {
        file: "kitchen.txt",
        why: '"kitchen.txt" is neither a picture (png, jpg, jpeg, webp) nor a sound (wav, mp3, flac, ogg, m4a)',
      },
    ]);
    // Nothing written, nothing announced.
    expect(await snapshot(path.dirname(ep))).toEqual(before);
    expect(s.env.events).toEqual([]);
  });

  it("leaves two files for one slot unmatched and matches the others", async () => {
    const got = await post({ ep, names: ["kettle.png", "Kettle_copy.png", "street.jpg"] });
    expect(got.body.matched.map((m: { file: string }) => m.file)).toEqual(["street.jpg"]);
    expect(got.body.unmatched.map((u: { why: string }) => u.why)).toEqual([
      "2 files want subject:kettle (kettle.png, Kettle_copy.png): drop all but one",
      "2 files want subject:kettle (kettle.png, Kettle_copy.png): drop all but one",
    ]);
  });

  it("refuses more than 500 names, names with folders, and bad bodies with 400", async () => {
    const many = Array.from({ length: 501 }, (_, i) => `f${i}.png`);
    refusal(await post({ ep, names: many }), 400, /names.*500/);
    expect((await post({ ep, names: many.slice(0, 500) })).status).toBe(200);
    for (const bad of ["refs/ada.png", "..\\ada.png", "", "..", "a\u0000.png", `${"a".repeat(252)}.png`]) {
      refusal(await post({ ep, names: [bad] }), 400, /names/);
    }
    refusal(await post({ ep, names: "ada.png" }), 400, /names/);
    refusal(await post({ ep, names: [3] }), 400, /names/);
    refusal(await post({ ep }), 400, /names/);
  });

  it("refuses an episode outside the roots (403) and a missing one (404)", async () => {
    refusal(await post({ ep: s.outside, names: ["ada.png"] }), 403, /./);
    refusal(await post({ ep: path.join(s.root, "nowhere", "ep01"), names: ["ada.png"] }), 404, /./);
  });

  it("matches no keyframe before a build, and says so when the series config does not load", async () => {
    const unbuilt = await s.episode(SCRIPT, { build: false });
    const fresh = await post({ ep: unbuilt, names: ["sh010_first.png", "ada_side.png"] });
    expect(fresh.body.matched.map((m: { ref: string }) => m.ref)).toEqual(["subject:ada"]);
    expect(fresh.body.unmatched[0].why).toBe('no picture reference of this episode is called "sh010_first"');
    await writeFile(path.join(unbuilt, "series.json"), '{"subjects": {"ada": {"kind": "dragon"}}}');
    const broken = await post({ ep: unbuilt, names: ["ada_side.png"] });
    expect(broken.status).toBe(200);
    expect(broken.body.matched).toEqual([]);
    expect(broken.body.unmatched[0].why).toMatch(
      /^no picture reference of this episode is called "ada_side" \(the series config does not load: .+\)$/,
    );
  });
});
