// The References view's logic: groups and order, view columns, placeholders, take actions, upload maths, import
// checks and fields, and how studio.ref events change the list in place.
import { describe, expect, it } from "vitest";
import type { RefEvent, RefInfo, RefTakeInfo } from "../web/src/types.ts";
import { importPlan, MATCH_LIMIT, matchRequest, slotName } from "../web/src/views/refs/bulk-import.ts";
import {
  formTarget,
  offersNegative,
  paramsChange,
  paramsText,
  shownParams,
  targetOffers,
} from "../web/src/views/refs/override-target.ts";
import {
  copyBody,
  copyDestinations,
  eventConcerns,
  groupRefs,
  importFields,
  importRefusal,
  keyframesOf,
  listOrder,
  missingText,
  overrideFieldsFor,
  plainTakes,
  refOverrideChange,
  refOverrideText,
  refState,
  sideTakes,
  stepRef,
  takeActions,
  takeLabel,
  UPLOAD_LIMIT,
  uploadPercent,
  usedByText,
  viewColumns,
  withRef,
  withRefEvent,
} from "../web/src/views/refs/refs-model.ts";

function take(n: number, over: Partial<RefTakeInfo> = {}): RefTakeInfo {
  return {
    take: n,
    view: null,
    status: "ok",
    usable: true,
    seed: "1",
    source: "imported",
    image: `refs/_takes/k/k_t${String(n).padStart(2, "0")}.png`,
    ...over,
  };
}

function ref(id: string, over: Partial<RefInfo> = {}): RefInfo {
  const [family, name] = id.split(":");
  const kind = family === "location" ? "location" : family === "voice" ? "voice" : "prop";
  return {
    id,
    scope: family === "shot" ? "shot" : "series",
    kind,
    name: name ?? id,
    key: id.replaceAll(":", "__"),
    subject: null,
    path: `../refs/${name}.png`,
    exists: false,
    sha1: null,
    used_by: { final: [], proxy: [] },
    views: [],
    takes: [],
    picked: null,
    ...over,
  };
}

const dean = ref("subject:dean", {
  kind: "character",
  name: "Dean",
  views: [
    { view: "02_side", picked: 2, takes: [take(2, { view: "02_side" }), take(1, { view: "02_side" })] },
    { view: "01_threequarter", picked: 1, takes: [take(1, { view: "01_threequarter" })] },
    { view: "03_back", picked: null, takes: [] },
    { view: "04_face", picked: null, takes: [take(1, { view: "04_face", status: "queued", usable: false })] },
  ],
  takes: [take(1, { view: "sheet" })],
  used_by: { final: ["sh010", "sh020"], proxy: ["sh010", "sh020"] },
});

function keyframe(shot: string, which: "first" | "last", over: Partial<RefInfo> = {}): RefInfo {
  return ref(`shot:${shot}:${which}`, {
    kind: "keyframe",
    scope: "shot",
    name: `${shot} ${which}`,
    shot,
    which,
    path: `refs/shots/${shot}/${which}.png`,
    need: "optional",
    method: "generate",
    ...over,
  });
}

describe("groups and order", () => {
  const refs = [
    ref("location:kitchen", { name: "Kitchen" }),
    keyframe("sh020", "last"),
    ref("voice:dean", { name: "Dean" }),
    keyframe("sh020", "first"),
    keyframe("sh010", "last"),
    dean,
    ref("subject:mug", { name: "mug" }),
    ref("subject:anchor", { name: "Anchor" }),
  ];
  it("puts kinds in a fixed order and sorts inside each", () => {
    const groups = groupRefs(refs);
    expect(groups.map((g) => g.title)).toEqual(["Characters", "Props", "Locations", "Voices", "Keyframes"]);
    expect(groups[1].refs.map((r) => r.id)).toEqual(["subject:anchor", "subject:mug"]);
    expect(groups[4].refs.map((r) => r.id)).toEqual([
      "shot:sh010:last",
      "shot:sh020:first",
      "shot:sh020:last",
    ]);
  });
  it("filters on every word, across id, name and path", () => {
    expect(listOrder(groupRefs(refs, "DEAN"))).toEqual(["subject:dean", "voice:dean"]);
    expect(listOrder(groupRefs(refs, "voice dean"))).toEqual(["voice:dean"]);
    expect(groupRefs(refs, "nothing-like-this")).toEqual([]);
  });
  it("keeps a kind it does not know under Other", () => {
    const odd = { ...ref("subject:x"), kind: "group" as RefInfo["kind"] };
    expect(groupRefs([odd]).map((g) => g.title)).toEqual(["Other"]);
  });
  it("steps through the list inside its ends", () => {
    const ids = ["a", "b", "c"];
    expect(stepRef(ids, null, 1)).toBe("a");
    expect(stepRef(ids, null, -1)).toBe("c");
    expect(stepRef(ids, "b", 1)).toBe("c");
    expect(stepRef(ids, "c", 1)).toBe("c");
    expect(stepRef(ids, "a", -1)).toBe("a");
    expect(stepRef(ids, "gone", 1)).toBe("a");
    expect(stepRef([], "a", 1)).toBeNull();
  });
});

describe("a character's columns", () => {
  it("are the four views in sheet order then the sheet, each present without takes", () => {
    const cols = viewColumns(dean);
    expect(cols.map((c) => c.view)).toEqual(["01_threequarter", "02_side", "03_back", "04_face", "sheet"]);
    expect(cols[1].takes.map((t) => t.take)).toEqual([1, 2]);
    expect(cols[1].picked).toBe(2);
    expect(cols[2].takes).toEqual([]);
    expect(cols[4].takes.map((t) => t.take)).toEqual([1]);
  });
  it("reads a sheet entry of views when the listing gives one, and the sheet's pick when the sheet is live", () => {
    const withSheet = {
      ...dean,
      views: [...dean.views, { view: "sheet" as const, picked: 3, takes: [take(3)] }],
    };
    expect(viewColumns(withSheet)[4]).toMatchObject({ picked: 3, takes: [{ take: 3 }] });
    expect(viewColumns({ ...dean, live_from: "sheet", picked: 1 })[4].picked).toBe(1);
    expect(viewColumns({ ...dean, live_from: "views", picked: 1 })[4].picked).toBeNull();
  });
  it("keeps panoramas and tour holds out of a plain ref's candidates", () => {
    const loc = ref("location:yard", {
      takes: [take(3, { view: "pano" }), take(1), take(2, { view: "tour" }), take(4)],
    });
    expect(plainTakes(loc).map((t) => t.take)).toEqual([1, 4]);
    expect(sideTakes(loc, "pano").map((t) => t.take)).toEqual([3]);
    expect(sideTakes({ ...loc, tour_holds: [take(9, { view: "tour" })] }, "tour").map((t) => t.take)).toEqual(
      [9],
    );
  });
});

describe("placeholders", () => {
  it("say nothing for a ref with its file", () => {
    expect(missingText({ ...dean, exists: true })).toBeNull();
  });
  it("name the path, the views missing and the shots that use it", () => {
    expect(missingText(dean)).toBe(
      "No picture at ../refs/dean.png: 2 of 4 views picked, back, face missing; used by sh010, sh020",
    );
  });
  it("tell passes apart, shorten long lists, and say when nothing uses it", () => {
    const shots = Array.from({ length: 8 }, (_, i) => `sh0${i}0`);
    expect(usedByText(ref("subject:a", { used_by: { final: ["sh010"], proxy: [] } }))).toBe(
      "used by final sh010",
    );
    expect(usedByText(ref("subject:a", { used_by: { final: shots, proxy: shots } }))).toBe(
      "used by sh000, sh010, sh020, sh030, sh040, sh050 and 2 more",
    );
    expect(missingText(ref("voice:dean", { path: "voices/dean.wav" }))).toBe(
      "No voice sample at voices/dean.wav; used by no shot yet",
    );
  });
  it("say when a ref was cleared and whether a keyframe is required", () => {
    expect(missingText(ref("location:yard", { cleared: "2026-01-01T00:00:00Z" }))).toContain(
      "cleared by hand, nothing is picked until you pick",
    );
    expect(missingText(keyframe("sh010", "first", { need: "required" }))).toBe(
      "No picture at refs/shots/sh010/first.png (required); used by no shot yet",
    );
  });
  it("give the list row a state", () => {
    expect(refState({ ...dean, exists: true }).text).toBe("live");
    expect(refState(dean).text).toBe("queued");
    expect(refState(ref("subject:a", { used_by: { final: ["sh010"], proxy: [] } }))).toEqual({
      text: "missing",
      tone: "bad",
    });
    expect(refState(ref("subject:a"))).toEqual({ text: "missing", tone: "muted" });
    expect(refState(ref("subject:a", { cleared: true })).text).toBe("cleared");
    expect(refState(keyframe("sh010", "last")).text).toBe("not made");
  });
});

describe("take actions", () => {
  it("pick only a usable take that is not the pick, a panorama or a tour hold", () => {
    expect(takeActions(take(1), false).pick).toBe(true);
    expect(takeActions(take(1), true).pick).toBe(false);
    expect(takeActions(take(1, { status: "failed", usable: false }), false).pick).toBe(false);
    expect(takeActions(take(1, { view: "pano" }), false).pick).toBe(false);
    expect(takeActions(take(1, { view: "tour" }), false).pick).toBe(false);
    expect(takeActions(take(1, { view: "sheet" }), false).pick).toBe(true);
  });
  it("discard anything but a queued take, copy only a finished picture", () => {
    expect(takeActions(take(1, { status: "queued", usable: false }), false)).toEqual({
      pick: false,
      discard: false,
      copy: false,
    });
    expect(takeActions(take(1, { status: "failed", usable: false }), false).discard).toBe(true);
    expect(takeActions(take(1, { view: "tour" }), false).copy).toBe(true);
    expect(takeActions(take(1, { image: null, audio: "a.wav" }), false).copy).toBe(false);
  });
  it("names takes with their view", () => {
    expect(takeLabel({ take: 3, view: "02_side" })).toBe("side t03");
    expect(takeLabel({ take: 12, view: null })).toBe("t12");
  });
  it("offers copies into other pictures' places, never a voice or the take's own place", () => {
    const refs = [dean, ref("voice:dean"), ref("location:yard", { name: "Yard", kind: "location" })];
    const to = copyDestinations(refs, dean, "02_side");
    expect(to.map((d) => `${d.ref}/${d.view}`)).toEqual([
      "subject:dean/01_threequarter",
      "subject:dean/03_back",
      "subject:dean/04_face",
      "subject:dean/sheet",
      "location:yard/null",
    ]);
    expect(copyDestinations(refs, refs[2], null).some((d) => d.ref === "location:yard")).toBe(false);
  });
});

describe("uploads", () => {
  it("count progress in whole percent, unknown without a total, never past 100", () => {
    expect(uploadPercent(0, 1000)).toBe(0);
    expect(uploadPercent(499, 1000)).toBe(49);
    expect(uploadPercent(1000, 1000)).toBe(100);
    expect(uploadPercent(1200, 1000)).toBe(100);
    expect(uploadPercent(10, null)).toBeNull();
    expect(uploadPercent(10, 0)).toBeNull();
  });
  it("refuse a file of the wrong kind or over 64 MB before sending it", () => {
    expect(importRefusal(dean, "dean.PNG", 10)).toBeNull();
    expect(importRefusal(dean, "dean.wav", 10)).toContain("takes a picture");
    expect(importRefusal(ref("voice:dean"), "dean.m4a", 10)).toBeNull();
    expect(importRefusal(ref("voice:dean"), "dean.png", 10)).toContain("takes a sound");
    expect(importRefusal(dean, "noext", 10)).not.toBeNull();
    expect(importRefusal(dean, "big.png", UPLOAD_LIMIT + 1)).toContain("64 MB");
    expect(importRefusal(dean, "edge.png", UPLOAD_LIMIT)).toBeNull();
  });
  it("send view and pick only when given, pick as the form's 1 or 0", () => {
    expect(importFields("/e", "subject:dean", "02_side", true)).toEqual([
      ["ep", "/e"],
      ["ref", "subject:dean"],
      ["view", "02_side"],
      ["pick", "1"],
    ]);
    expect(importFields("/e", "location:yard", null, null)).toEqual([
      ["ep", "/e"],
      ["ref", "location:yard"],
    ]);
    expect(importFields("/e", "location:yard", null, false)[2]).toEqual(["pick", "0"]);
  });
});

describe("events in place", () => {
  const yard = ref("location:yard", { takes: [take(1), take(2, { status: "queued", usable: false })] });
  const list = [dean, yard];
  const ev = (over: Partial<RefEvent>): RefEvent => ({
    ep: "/e",
    ref: "location:yard",
    view: null,
    take: 2,
    status: "ok",
    ...over,
  });
  it("change a candidate's status and drop a discarded one", () => {
    const ok = withRefEvent(list, ev({}));
    expect(ok?.[1].takes[1].status).toBe("ok");
    const gone = withRefEvent(list, ev({ status: "discarded", take: 1 }));
    expect(gone?.[1].takes.map((t) => t.take)).toEqual([2]);
  });
  it("add a newly queued candidate, but wait for the read to show a finished one it did not know", () => {
    expect(withRefEvent(list, ev({ take: 3, status: "queued" }))?.[1].takes.map((t) => t.take)).toEqual([
      1, 2, 3,
    ]);
    expect(withRefEvent(list, ev({ take: 3, status: "ok" }))).toBeNull();
  });
  it("mark picks and clears on a ref and on a view", () => {
    expect(withRefEvent(list, ev({ status: "picked", take: 1 }))?.[1]).toMatchObject({ picked: 1 });
    expect(withRefEvent(list, ev({ status: "cleared", take: 1 }))?.[1]).toMatchObject({
      picked: null,
      cleared: true,
      exists: false,
    });
    const side = withRefEvent(list, ev({ ref: "subject:dean", view: "02_side", status: "picked", take: 1 }));
    expect(side?.[0].views.find((v) => v.view === "02_side")?.picked).toBe(1);
    const discarded = withRefEvent(
      list,
      ev({ ref: "subject:dean", view: "02_side", status: "discarded", take: 2 }),
    );
    const sideAfter = discarded?.[0].views.find((v) => v.view === "02_side");
    expect(sideAfter?.picked).toBeNull();
    expect(sideAfter?.takes.map((t) => t.take)).toEqual([1]);
  });
  it("ignore refs the list does not have and events that change nothing", () => {
    expect(withRefEvent(list, ev({ ref: "location:elsewhere" }))).toBeNull();
    expect(withRefEvent(list, ev({ status: "promoted", take: null }))).toBeNull();
  });
  it("replace one ref with its newer listing", () => {
    const newer = { ...yard, exists: true };
    expect(withRef(list, newer)[1].exists).toBe(true);
    expect(withRef([dean], newer).map((r) => r.id)).toEqual(["subject:dean", "location:yard"]);
  });
  it("concern this episode, or a sibling sharing a live file", () => {
    const shared = [{ ...yard, shared_with: ["../ep02"] }];
    expect(eventConcerns(shared, "/s/ep01", ev({ ep: "/s/ep01" }))).toBe(true);
    expect(eventConcerns(shared, "/s/ep01", ev({ ep: "/s/ep02" }))).toBe(true);
    expect(eventConcerns(shared, "/s/ep01", ev({ ep: "/s/ep03" }))).toBe(false);
    expect(eventConcerns(shared, "/s/ep01", ev({ ep: "/s/xep02" }))).toBe(false);
    expect(eventConcerns([{ ...yard, shared_with: ["/s/ep02"] }], "/s/ep01", ev({ ep: "/s/ep02" }))).toBe(
      true,
    );
    expect(eventConcerns([{ ...yard, shared_with: ["ep02"] }], "/s/ep01", ev({ ep: "/s/ep02" }))).toBe(true);
    expect(eventConcerns(null, "/s/ep01", ev({ ep: "/s/ep02" }))).toBe(false);
  });
});

describe("keyframes of a shot", () => {
  it("are the shot's first then last, nothing of other shots", () => {
    const refs = [keyframe("sh010", "last"), keyframe("sh0100", "first"), keyframe("sh010", "first"), dean];
    expect(keyframesOf(refs, "sh010").map((r) => r.id)).toEqual(["shot:sh010:first", "shot:sh010:last"]);
  });
});

describe("copies and overrides", () => {
  it("send the take's view and the destination's view only when there is one", () => {
    expect(
      copyBody(
        "/e",
        "location:yard",
        { take: 2, view: "tour" },
        { ref: "subject:dean", view: "01_threequarter" },
      ),
    ).toEqual({
      ep: "/e",
      ref: "location:yard",
      take: 2,
      view: "tour",
      to: "subject:dean",
      to_view: "01_threequarter",
    });
    expect(
      copyBody("/e", "location:yard", { take: 2, view: null }, { ref: "location:barn", view: null }),
    ).toEqual({
      ep: "/e",
      ref: "location:yard",
      take: 2,
      to: "location:barn",
    });
  });
  it("read an override's values as text and send only what changed, blank clearing", () => {
    const before = refOverrideText({
      seed: "42",
      loras: [{ name: "a.safetensors", strength: 0.8 }],
      size: "1024x1024",
    });
    expect(before.loras).toBe("a.safetensors:0.8");
    expect(before.prompt).toBe("");
    const after = {
      ...before,
      seed: "",
      steps: "30",
      cfg: "3.5",
      loras: "a.safetensors:0.8, b",
      prompt: "red coat ",
    };
    expect(refOverrideChange(before, after)).toEqual({
      seed: null,
      steps: 30,
      cfg: 3.5,
      loras: ["a.safetensors:0.8", "b"],
      prompt: "red coat ",
    });
    expect(refOverrideChange(before, { ...before, cfg: "lots" })).toEqual({ cfg: "lots" });
    expect(refOverrideChange(before, before)).toEqual({});
  });
  it("leave size out for keyframes and voices", () => {
    expect(overrideFieldsFor("character")).toContain("size");
    expect(overrideFieldsFor("keyframe")).not.toContain("size");
    expect(overrideFieldsFor("voice")).not.toContain("size");
  });
});

describe("a drop of many files on the References view", () => {
  const file = (name: string, size = 1000) => ({ name, size });
  it("asks about each name once, leaving out files sharing a name and files past the match limit", () => {
    const files = [file("dean_side.png"), file("a.png"), file("dean_back.png"), file("a.png")];
    expect(matchRequest(files)).toEqual({
      names: ["dean_side.png", "dean_back.png"],
      left: [
        { file: "a.png", why: "2 dropped files are named a.png: drop one at a time" },
        { file: "a.png", why: "2 dropped files are named a.png: drop one at a time" },
      ],
    });
    const many = Array.from({ length: MATCH_LIMIT + 2 }, (_, i) => file(`f${i}.png`));
    const asked = matchRequest(many);
    expect(asked.names).toHaveLength(MATCH_LIMIT);
    expect(asked.left.map((l) => l.file)).toEqual([`f${MATCH_LIMIT}.png`, `f${MATCH_LIMIT + 1}.png`]);
    expect(asked.left[0].why).toMatch(/at most 500 files/);
  });
  it("imports each matched file into its reference and view in drop order, the rest with the service's reason", () => {
    const files = [
      file("yard.png"),
      file("nope.png"),
      file("Dean_Side_v2.png"),
      file("huge.png", 65 * 1024 * 1024),
    ];
    const matched = (f: string, r: string, view: "02_side" | null) => ({
      file: f,
      ref: r,
      view,
      name: "",
      kind: "",
      audio: false,
      path: "",
      why: "",
    });
    const plan = importPlan(
      files,
      {
        matched: [
          matched("Dean_Side_v2.png", "subject:dean", "02_side"),
          matched("yard.png", "location:yard", null),
          matched("huge.png", "location:barn", null),
        ],
        unmatched: [{ file: "nope.png", why: 'no picture reference of this episode is called "nope"' }],
      },
      [dean, ref("location:yard", { name: "the yard" }), ref("location:barn")],
    );
    expect(plan.imports).toEqual([
      { index: 0, file: "yard.png", ref: "location:yard", view: null, where: "the yard" },
      { index: 2, file: "Dean_Side_v2.png", ref: "subject:dean", view: "02_side", where: "Dean side" },
    ]);
    expect(plan.left).toEqual([
      { file: "nope.png", why: 'no picture reference of this episode is called "nope"' },
      { file: "huge.png", why: "huge.png is 65.0 MB; uploads stop at 64 MB" },
    ]);
  });
  it("leaves out a match whose reference the list no longer has", () => {
    const plan = importPlan(
      [file("gone.png")],
      {
        matched: [
          {
            file: "gone.png",
            ref: "subject:gone",
            view: null,
            name: "",
            kind: "",
            audio: false,
            path: "",
            why: "",
          },
        ],
        unmatched: [],
      },
      [dean],
    );
    expect(plan.imports).toEqual([]);
    expect(plan.left[0].why).toMatch(/subject:gone is not among/);
    expect(slotName("Dean", "01_threequarter")).toBe("Dean three-quarter");
    expect(slotName("the kettle", null)).toBe("the kettle");
    expect(slotName("Dean", null, "voice")).toBe("Dean's voice");
  });
});

describe("what the override form offers on a target", () => {
  const flux = {
    id: "flux",
    widgets: { prompt: {}, negative: {}, sampler: {}, cfg: {}, guidance: {} },
    capabilities: { negative_prompt: true },
  };
  const edit = { id: "edit", widgets: { prompt: {}, sampler: {} }, capabilities: { negative_prompt: false } };
  it("offers a negative prompt where the target declares one (else where it binds one) and the params it binds", () => {
    expect(targetOffers(flux)).toEqual({ negative: true, params: ["sampler", "guidance"] });
    expect(targetOffers(edit)).toEqual({ negative: false, params: ["sampler"] });
    expect(targetOffers({ id: "card", widgets: {}, capabilities: {} })).toEqual({
      negative: false,
      params: [],
    });
    expect(targetOffers({ id: "old", widgets: { negative: {} } })?.negative).toBe(true);
    expect(targetOffers(undefined)).toBeNull();
  });
  it("judges the target typed in the form, else the effective one unless the form clears a target override", () => {
    expect(formTarget(" edit ", "", "flux")).toBe("edit");
    expect(formTarget("", "", "flux")).toBe("flux");
    expect(formTarget("", "edit", "edit")).toBeNull();
    expect(formTarget("", "", null)).toBeNull();
  });
  it("keeps a negative prompt or a param that is set visible, so it can be cleared on any target", () => {
    expect(offersNegative(targetOffers(edit), "")).toBe(false);
    expect(offersNegative(targetOffers(edit), "blurry")).toBe(true);
    expect(offersNegative(null, "")).toBe(true);
    const now = paramsText({ shift: 3 });
    expect(shownParams(targetOffers(edit), now)).toEqual(["sampler", "shift"]);
    expect(shownParams(null, paramsText(null))).toEqual([]);
  });
  it("sends the whole params object when one changed, numbers as numbers, null when all are blank", () => {
    const before = paramsText({ sampler: "euler", denoise: 0.6 });
    expect(before).toEqual({ sampler: "euler", scheduler: "", denoise: "0.6", shift: "", guidance: "" });
    expect(paramsChange(before, before)).toEqual({});
    expect(paramsChange(before, { ...before, guidance: " 3.5 " })).toEqual({
      params: { sampler: "euler", denoise: 0.6, guidance: 3.5 },
    });
    expect(paramsChange(before, { ...before, denoise: "lots" })).toEqual({
      params: { sampler: "euler", denoise: "lots" },
    });
    expect(paramsChange(before, { ...before, sampler: "", denoise: "" })).toEqual({ params: null });
  });
});
