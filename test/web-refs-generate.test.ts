// Making references in the page, without a browser: the Generate form's body and what it offers per target, the
// candidates being made with their jobs, Generate missing's body and preview rows, tours' body, rows and frame
// times, and the frame index under a playhead with the keyframe cut's body.
import { describe, expect, it } from "vitest";
import type { Job, RefInfo, RefMissingAnswer, RefTakeInfo, ShotEntry } from "../web/src/types.ts";
import {
  canEditLive,
  canEditTake,
  canPano,
  editBody,
  editReady,
  editTargets,
  initialEdit,
  initialPano,
  panoBody,
  panoPartners,
  panoTargets,
  togglePartner,
  turnViews,
  withChoices,
} from "../web/src/views/refs/edit-model.ts";
import {
  buttonText,
  errorLine,
  formTargetId,
  generateBody,
  generateOffers,
  initialForm,
  jobOf,
  makingOf,
  plainTargets,
  progressText,
  promptShown,
} from "../web/src/views/refs/generate-model.ts";
import {
  actionWord,
  missingBody,
  previewActs,
  previewRows,
  previewSummary,
  type RowAction,
} from "../web/src/views/refs/missing-model.ts";
import {
  canTour,
  initialTour,
  tourBody,
  tourFrameAt,
  tourFrames,
  tourRows,
} from "../web/src/views/refs/tour-model.ts";
import {
  frameAt,
  frameTime,
  keyframeCutBody,
  nextInCut,
  stepFrame,
  timeOfFrame,
} from "../web/src/views/shots/frame-index.ts";

function take(n: number, over: Partial<RefTakeInfo> = {}): RefTakeInfo {
  return { take: n, view: null, status: "ok", usable: true, seed: "1", source: "generated", ...over };
}

function ref(id: string, over: Partial<RefInfo> = {}): RefInfo {
  const [family, name] = id.split(":");
  return {
    id,
    scope: family === "shot" ? "shot" : "series",
    kind: family === "location" ? "location" : family === "shot" ? "keyframe" : "prop",
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
    can_generate: true,
    effective: { prompt: "A red kettle.", target: "card", width: 1024, height: 1024 },
    ...over,
  };
}

const riley = ref("subject:riley", {
  kind: "character",
  name: "Riley",
  effective: { prompt: "A sheet of Riley.", target: "krea2" },
  views: [
    {
      view: "02_side",
      picked: null,
      takes: [take(3, { view: "02_side", status: "queued", usable: false, backend_prompt_id: "j_side" })],
      effective: { prompt: "Riley from the side.", target: "krea2" },
    },
    {
      view: "01_threequarter",
      picked: null,
      takes: [take(3, { view: "01_threequarter", status: "queued", usable: false })],
      effective: { prompt: "Riley three-quarter.", target: "krea2" },
    },
  ],
});

const card = { id: "card", widgets: {}, capabilities: { negative_prompt: false, max_refs: 0 } };
const krea = {
  id: "krea2",
  widgets: { prompt: {}, negative: {}, steps: {}, cfg: {}, width: {}, height: {} },
  capabilities: { mode: "t2i", negative_prompt: true },
};
const edit = { id: "flux2_klein_edit", widgets: { steps: {} }, capabilities: { mode: "edit" } };
const pano = { id: "klein_erp_360", widgets: {}, capabilities: { mode: "pano" } };

describe("the Generate form", () => {
  const kettle = ref("subject:kettle");

  it("sends only what was set: one candidate on the reference's own values is ep and ref with the seed mode", () => {
    const form = initialForm(kettle, null, "final");
    expect(form.prompt).toBe("A red kettle.");
    expect(generateBody("/ep", kettle, form, card)).toEqual({
      ep: "/ep",
      ref: "subject:kettle",
      seed_mode: "auto",
    });
    expect(buttonText(kettle, form)).toBe("Generate 1 candidate");
  });

  it("sends count, a typed seed, target, backend, size and note as typed, and the prompt only when edited", () => {
    const form = {
      ...initialForm(kettle, null, "final"),
      count: "4",
      seedMode: "typed" as const,
      seed: " 1234 ",
      target: "krea2",
      backend: "local",
      prompt: "A blue kettle.",
      size: "1344 x 768",
      steps: "20",
      cfg: "4.5",
      negative: "blurry",
      note: " try blue ",
    };
    expect(generateBody("/ep", kettle, form, krea)).toEqual({
      ep: "/ep",
      ref: "subject:kettle",
      count: 4,
      seed: "1234",
      target: "krea2",
      backend: "local",
      prompt: "A blue kettle.",
      size: "1344x768",
      steps: 20,
      cfg: 4.5,
      negative: "blurry",
      note: "try blue",
    });
    expect(buttonText(kettle, form)).toBe("Generate 4 candidates");
    // The effective prompt sent back unchanged is no override.
    expect(generateBody("/ep", kettle, { ...form, prompt: "A red kettle. " }, krea).prompt).toBeUndefined();
  });

  it("leaves out what the target does not take: no negative, steps or CFG on the card", () => {
    const form = { ...initialForm(kettle, null, "final"), steps: "20", cfg: "3", negative: "ugly" };
    expect(generateOffers(kettle, null, card)).toMatchObject({
      negative: false,
      steps: false,
      cfg: false,
      size: true,
    });
    const body = generateBody("/ep", kettle, form, card);
    expect(body.negative).toBeUndefined();
    expect(body.steps).toBeUndefined();
    expect(body.cfg).toBeUndefined();
    // A target the page does not know: the service decides.
    expect(generateOffers(kettle, null, undefined)).toMatchObject({ negative: true, steps: true, cfg: true });
  });

  it("text that is not a number goes as typed, so the service's refusal names it", () => {
    const form = { ...initialForm(kettle, null, "final"), count: "lots", steps: "many" };
    expect(generateBody("/ep", kettle, form, krea)).toMatchObject({ count: "lots", steps: "many" });
  });

  it("a whole character has no prompt (each view is worded apart); one view shows and sends its own", () => {
    const all = initialForm(riley, null, "final");
    expect(all.prompt).toBe("");
    expect(generateOffers(riley, null, krea).prompt).toBe(false);
    expect(generateBody("/ep", riley, { ...all, prompt: "ignored" }, krea)).toEqual({
      ep: "/ep",
      ref: "subject:riley",
      seed_mode: "auto",
    });
    expect(buttonText(riley, { ...all, count: "2" })).toBe("Generate 2 four-view sets");
    expect(promptShown(riley, "02_side")).toBe("Riley from the side.");
    const side = { ...initialForm(riley, "02_side", "final"), prompt: "Riley side, running." };
    expect(generateBody("/ep", riley, side, krea)).toMatchObject({
      view: "02_side",
      prompt: "Riley side, running.",
    });
  });

  it("a keyframe is drawn for a pass and at its shot's size: pass sent, size never", () => {
    const kf = ref("shot:sh020:first", { kind: "keyframe", shot: "sh020", which: "first" });
    const form = { ...initialForm(kf, null, "proxy"), size: "512x512" };
    expect(generateOffers(kf, null, card)).toMatchObject({ pass: true, size: false });
    expect(generateBody("/ep", kf, form, card)).toEqual({
      ep: "/ep",
      ref: "shot:sh020:first",
      seed_mode: "auto",
      pass: "proxy",
    });
  });

  it("the target is the one chosen, else the view's effective one; edit and panorama targets are not offered", () => {
    expect(formTargetId({ ...initialForm(riley, "02_side", "final"), target: "" }, riley)).toBe("krea2");
    expect(formTargetId({ ...initialForm(riley, null, "final"), target: "card" }, riley)).toBe("card");
    expect(plainTargets([card, krea, edit, pano]).map((t) => t.id)).toEqual(["card", "krea2"]);
  });

  it("a per-candidate error reads as where, then the service's words and missing files", () => {
    expect(
      errorLine({
        ref: "subject:riley",
        view: "02_side",
        error: "krea2 cannot render: model files missing",
        missing_files: [{ param: "model", want: "krea2.safetensors" }],
      }),
    ).toBe("02_side: krea2 cannot render: model files missing (missing: krea2.safetensors)");
    expect(errorLine({ ref: "x", error: "no backend", take: 4 })).toBe("t04: no backend");
  });
});

describe("candidates being made", () => {
  const job = (over: Partial<Job>): Job => ({
    id: "j_x",
    kind: "ref",
    lane: "builtin",
    title: "",
    info: {},
    status: "running",
    progress: 0.42,
    step: "sampling",
    steps: null,
    created: "",
    started: null,
    finished: null,
    error: null,
    log: [],
    can_retry: false,
    ...over,
  });

  it("finds each queued candidate's job by the id its sidecar names, else by ref, view and take", () => {
    const jobs = [
      job({ id: "j_side" }),
      job({ id: "j_tq", status: "queued", info: { ref: "subject:riley", view: "01_threequarter", take: 3 } }),
    ];
    const making = makingOf(riley, jobs);
    expect(making.map((m) => [m.label, m.job?.id])).toEqual([
      ["three-quarter t03", "j_tq"],
      ["side t03", "j_side"],
    ]);
    expect(progressText(making[0].job)).toBe("waiting");
    expect(progressText(making[1].job)).toBe("42% · sampling");
    expect(progressText(null)).toBe("queued");
    expect(jobOf("subject:riley", take(9, { view: "03_back" }), jobs)).toBeNull();
  });
});

describe("Generate missing", () => {
  const refs = [
    riley,
    ref("location:street", { name: "Street" }),
    ref("shot:sh020:first", { kind: "keyframe", shot: "sh020", which: "first" }),
  ];

  it("asks for a dry run, then the same request for real; kinds only when not all, targets only when chosen", () => {
    const form = {
      pass: "proxy" as const,
      kinds: ["series" as const, "keyframe" as const],
      target: "",
      keyframeTarget: "",
    };
    expect(missingBody("/ep", form, true)).toEqual({ ep: "/ep", pass: "proxy", dry_run: true });
    expect(
      missingBody("/ep", { ...form, kinds: ["keyframe"], target: "krea2", keyframeTarget: "card" }, false),
    ).toEqual({
      ep: "/ep",
      pass: "proxy",
      dry_run: false,
      kinds: ["keyframe"],
      target: "krea2",
      keyframe_target: "card",
    });
  });

  it("lists what would be made, made live, skipped and why, and the problems, named as the list names them", () => {
    const answer: RefMissingAnswer = {
      queued: [
        {
          ref: "subject:riley",
          view: "01_threequarter",
          take: null,
          prompt_id: null,
          seed: "1",
          seed_source: "stable",
          target: "card",
          method: "generate",
        },
        {
          ref: "subject:riley",
          view: "02_side",
          take: null,
          prompt_id: null,
          seed: "1",
          seed_source: "stable",
          target: "card",
          method: "generate",
        },
      ],
      picked: [{ ref: "shot:sh020:first", take: null, method: "continuity" }],
      skipped: [{ ref: "location:street", reason: "a candidate is already queued" }],
      errors: [{ ref: "subject:kettle", error: "no media tool", target: "card" }],
    };
    expect(previewRows(answer, refs).map((r) => [r.action, r.name, r.detail])).toEqual([
      ["queue", "Riley · three-quarter", "on card"],
      ["queue", "Riley · side", "on card"],
      ["pick", "sh020 first frame", "a frame cut from the shot before, made live"],
      ["error", "subject:kettle", "no media tool (card)"],
      ["skip", "Street", "a candidate is already queued"],
    ]);
    expect(previewSummary(answer)).toBe("1 reference to make, 1 made live at once, 1 skipped, 1 problem");
    expect(previewSummary(answer, true)).toBe("1 reference queued, 1 made live, 1 skipped, 1 problem");
    expect(["queue", "pick", "skip", "error"].map((a) => actionWord(a as RowAction, false))).toEqual([
      "make",
      "made live",
      "skip",
      "problem",
    ]);
    expect(actionWord("queue", true)).toBe("queued");
    expect(previewActs(answer)).toBe(true);
    const nothing = { queued: [], picked: [], skipped: answer.skipped, errors: [] };
    expect(previewActs(nothing)).toBe(false);
    expect(previewSummary({ ...nothing, skipped: [] })).toBe("Nothing is missing.");
  });

  it("a real answer names the takes it made", () => {
    const rows = previewRows(
      {
        queued: [
          {
            ref: "location:street",
            view: null,
            take: 2,
            prompt_id: "j_1",
            seed: "5",
            seed_source: "new",
            target: "krea2",
          },
        ],
        picked: [],
        skipped: [],
        errors: [],
      },
      refs,
    );
    expect(rows[0].detail).toBe("on krea2 as t02");
  });
});

describe("tours", () => {
  const street = ref("location:street", {
    kind: "location",
    name: "Street",
    exists: true,
    tours: [
      {
        tour: 1,
        status: "ok",
        move: "push_in",
        holds: [1, 2, 3],
        error: null,
        video: "refs/_takes/location__street/_tours/tour_t01.mp4",
        seconds: 3,
        fps: 24,
        frames: 72,
      },
      {
        tour: 2,
        status: "queued",
        move: "orbit",
        holds: [],
        error: null,
        video: null,
        seconds: 6,
        fps: 24,
        frames: null,
      },
      {
        tour: 3,
        status: "failed",
        move: "pan_left",
        holds: [],
        error: "canceled",
        video: null,
        seconds: 2,
        fps: 24,
        frames: null,
      },
    ],
  });

  it("is made from a location with a live plate, with move, seconds and count as typed", () => {
    expect(canTour(street)).toBe(true);
    expect(canTour({ ...street, exists: false })).toBe(false);
    expect(canTour(ref("subject:kettle", { exists: true }))).toBe(false);
    expect(tourBody("/ep", street.id, initialTour())).toEqual({
      ep: "/ep",
      ref: "location:street",
      move: "push_in",
      seconds: 6,
      count: 1,
    });
    expect(tourBody("/ep", street.id, { move: "orbit", seconds: "2.5", count: "x" })).toMatchObject({
      seconds: 2.5,
      count: "x",
    });
  });

  it("lists tours newest first with their state, a running one with its job's progress", () => {
    const running: Pick<Job, "id" | "status" | "progress" | "step" | "kind" | "info"> = {
      id: "j_t2",
      kind: "tour",
      status: "running",
      progress: 0.5,
      step: "camera move",
      info: { ref: "location:street", tour: 2 },
    };
    const rows = tourRows(street, [running]);
    expect(rows.map((r) => [r.title, r.state, r.tone])).toEqual([
      ["Tour t03 · Pan left · 2 s", "failed: canceled", "bad"],
      ["Tour t02 · Orbit (pan along an arc) · 6 s", "50% · camera move", "muted"],
      ["Tour t01 · Push in · 3 s", "3 held frames", "ok"],
    ]);
    expect(rows[1].job?.id).toBe("j_t2");
    expect(tourRows(street, [])[1].state).toBe("queued");
  });

  it("sends the time a scrubbed frame starts at, so the service's round(seconds × fps) is that frame", () => {
    const t = street.tours?.[0];
    if (!t) throw new Error("no tour");
    expect(tourFrames(t)).toBe(72);
    expect(tourFrames({ ...t, frames: null })).toBe(72);
    for (const time of [0, 0.49, 1.02, 2.99, 50]) {
      const at = tourFrameAt(t, time);
      if (!at) throw new Error("no frame");
      expect(Math.round(at.seconds * 24)).toBe(at.frame);
      expect(at.frame).toBeLessThanOrEqual(71);
    }
    expect(tourFrameAt(t, 1.02)).toEqual({ frame: 24, seconds: 1 });
    expect(tourFrameAt({ ...t, fps: null }, 1)).toBeNull();
  });
});

describe("the frame under the playhead", () => {
  it("is round(time × fps), kept inside the take", () => {
    expect(frameAt(0, 24)).toBe(0);
    expect(frameAt(1, 24)).toBe(24);
    expect(frameAt(1.02, 24)).toBe(24);
    expect(frameAt(1.03, 24)).toBe(25);
    expect(frameAt(3.2, 24, 73)).toBe(72);
    expect(frameAt(-1, 24)).toBe(0);
    expect(frameAt(1, null)).toBeNull();
    expect(frameAt(Number.NaN, 24)).toBeNull();
  });

  it("seeking to a frame's time gives the frame back, and steps stay inside the take", () => {
    for (const fps of [24, 25, 30, 23.976]) {
      for (const i of [0, 1, 17, 96]) expect(frameAt(timeOfFrame(i, fps), fps)).toBe(i);
    }
    expect(stepFrame(timeOfFrame(10, 24), 24, 1, 73)).toBe(11);
    expect(stepFrame(0, 24, -1, 73)).toBe(0);
    expect(stepFrame(timeOfFrame(72, 24), 24, 1, 73)).toBe(72);
    expect(frameTime(37, 24)).toBe("1.54 s");
  });

  const entry = (shot: string, order: number, out = false, orphan = false) =>
    ({ shot, orphan, cut: { order, out } }) as Pick<ShotEntry, "shot" | "orphan"> & {
      cut: { order: number; out: boolean };
    };

  it("the next shot is the next in the cut's order, left-out and orphan entries skipped", () => {
    const shots = [
      entry("sh010", 0),
      entry("sh030", 3),
      entry("sh020", 1, true),
      entry("sh025", 2, false, true),
      entry("sh040", 4),
    ];
    expect(nextInCut(shots, "sh010")).toBe("sh030");
    expect(nextInCut(shots, "sh030")).toBe("sh040");
    expect(nextInCut(shots, "sh040")).toBeNull();
    expect(nextInCut(shots, "nope")).toBeNull();
  });

  it("cuts this take's frame into the next shot's first frame or this shot's last", () => {
    expect(keyframeCutBody("/ep", "proxy", "sh010", 2, 37, "next-first", "sh020", true)).toEqual({
      ep: "/ep",
      pass: "proxy",
      shot: "sh020",
      which: "first",
      source_shot: "sh010",
      source_take: 2,
      frame: 37,
      pick: true,
    });
    expect(keyframeCutBody("/ep", "final", "sh040", 1, 0, "this-last", null, false)).toEqual({
      ep: "/ep",
      pass: "final",
      shot: "sh040",
      which: "last",
      source_shot: "sh040",
      source_take: 1,
      frame: 0,
      pick: false,
    });
    expect(keyframeCutBody("/ep", "final", "sh040", 1, 0, "next-first", null, true)).toBeNull();
  });
});

describe("the edit and panorama forms", () => {
  const kettle = ref("prop:kettle", { exists: true });
  const kitchen = ref("location:kitchen", { exists: true, name: "Kitchen" });
  const hall = ref("location:hall", { exists: true, name: "Hall" });
  const attic = ref("location:attic", { exists: true, name: "Attic" });
  const cellar = ref("location:cellar", { name: "Cellar" });
  const mia = ref("subject:mia", {
    kind: "character",
    name: "Mia",
    views: [{ view: "02_side", picked: 2, takes: [] }],
  });
  const all = [
    kettle,
    kitchen,
    hall,
    attic,
    cellar,
    mia,
    riley,
    ref("voice:mia", { kind: "voice", exists: true }),
  ];

  it("offers only edit targets to edits and panorama targets to panoramas", () => {
    expect(editTargets([card, krea, edit, pano]).map((t) => t.id)).toEqual(["flux2_klein_edit"]);
    expect(panoTargets([card, krea, edit, pano]).map((t) => t.id)).toEqual(["klein_erp_360"]);
  });

  it("sends a plain edit of a candidate with its take, the instruction, wrap and the chosen target", () => {
    const form = { ...initialEdit(), instruction: "  make it night  ", target: "flux2_klein_edit" };
    expect(editBody("ep1", kettle, { view: null, take: 4 }, form, [])).toEqual({
      ep: "ep1",
      ref: "prop:kettle",
      prompt: "make it night",
      target: "flux2_klein_edit",
      edit: { take: 4, wrap: true },
    });
    // The live picture is take null; wrap off sends the instruction as typed; no target leaves the default.
    expect(
      editBody("ep1", kettle, { view: null, take: null }, { ...form, wrap: false, target: "" }, []),
    ).toEqual({
      ep: "ep1",
      ref: "prop:kettle",
      prompt: "make it night",
      edit: { take: null, wrap: false },
    });
  });

  it("lists further references with live pictures (a character by view) and sends them in the order chosen", () => {
    const choices = withChoices(all, kettle);
    expect(choices.map((c) => c.key)).toEqual([
      "location:kitchen|",
      "location:hall|",
      "location:attic|",
      "subject:mia|02_side",
    ]);
    const form = {
      ...initialEdit(),
      instruction: "put the kettle on the hob",
      with: ["subject:mia|02_side", "location:kitchen|", "gone|"],
    };
    expect(editBody("ep1", kettle, { view: null, take: 1 }, form, choices).edit).toEqual({
      take: 1,
      with: [{ ref: "subject:mia", view: "02_side" }, { ref: "location:kitchen" }],
      wrap: true,
    });
  });

  it("turns a character view: the body asks the new view, from the candidate's view, without wrap", () => {
    expect(turnViews(riley, "02_side")).toEqual(["01_threequarter", "03_back", "04_face"]);
    expect(turnViews(kettle, null)).toEqual([]);
    const form = { ...initialEdit(), turn: "03_back" as const };
    expect(editReady(riley, form)).toBe(true);
    expect(editReady(riley, initialEdit())).toBe(false);
    expect(editBody("ep1", riley, { view: "02_side", take: 3 }, form, [])).toEqual({
      ep: "ep1",
      ref: "subject:riley",
      view: "03_back",
      edit: { take: 3, turn: true, from_view: "02_side" },
    });
    // A plain edit of a view makes a candidate of that same view.
    const plain = { ...initialEdit(), instruction: "red coat" };
    expect(editBody("ep1", riley, { view: "02_side", take: 3 }, plain, []).view).toBe("02_side");
  });

  it("offers Edit on finished pictures only, and on the live picture of single-picture refs", () => {
    expect(canEditTake(take(1, { image: "a.png" }))).toBe(true);
    expect(canEditTake(take(1, { image: null }))).toBe(false);
    expect(canEditTake(take(1, { image: "a.png", usable: false, status: "failed" }))).toBe(false);
    expect(canEditTake(take(1, { image: "a.png", view: "pano" }))).toBe(false);
    expect(canEditTake(take(1, { image: "a.png", view: "sheet" }))).toBe(false);
    expect(canEditLive(kettle)).toBe(true);
    expect(canEditLive(cellar)).toBe(false);
    expect(canEditLive(ref("subject:x", { kind: "character", exists: true }))).toBe(false);
  });

  it("makes a panorama body: up to two partner plates in order, the size only when not the default", () => {
    expect(canPano(kitchen)).toBe(true);
    expect(canPano(cellar)).toBe(false);
    expect(canPano(kettle)).toBe(false);
    expect(panoPartners(all, kitchen).map((r) => r.id)).toEqual(["location:hall", "location:attic"]);
    let form = initialPano();
    expect(panoBody("ep1", kitchen, form)).toEqual({ ep: "ep1", ref: "location:kitchen", pano: {} });
    form = togglePartner(form, "location:attic");
    form = togglePartner(form, "location:hall");
    form = togglePartner(form, "location:cellar");
    expect(form.with).toEqual(["location:attic", "location:hall"]);
    expect(togglePartner(form, "location:attic").with).toEqual(["location:hall"]);
    expect(
      panoBody("ep1", kitchen, {
        ...form,
        size: "4096 × 2048",
        target: "klein_erp_360",
        prompt: " A kitchen. ",
      }),
    ).toEqual({
      ep: "ep1",
      ref: "location:kitchen",
      pano: { with: ["location:attic", "location:hall"], size: "4096x2048" },
      target: "klein_erp_360",
      prompt: "A kitchen.",
    });
  });
});
