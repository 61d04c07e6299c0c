// Generate's `edit` option and keyframes on edit targets, against the ComfyUI double: the pictures found (a live
// plate, a take, a sheet's panel), uploaded and read by the graph in order, the size kept on the target's grid, the
// instruction wrapped or sent as typed, the candidate `edited` with its `edit` and `references`; a keyframe's
// references (a composite checked by its pixels on a one-picture target); every refusal the contract names.
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { composeFigures, figureBoxes, sha1Of } from "../lib/refs/composite.ts";
import { TURN_PHRASES } from "../lib/refs/edit.ts";
import { refJob } from "../workers/jobs/ref.ts";
import {
  loads,
  pictureEpisode,
  png,
  refSidecar,
  runJobGraph,
  shippedImageModels,
  sizeOf,
  useComfyStudio,
} from "./support/comfy-studio.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio(shippedImageModels());
/** Run the queued job through a worker pool and answer the graph the double accepted for it. */
const runJob = (job: string) => runJobGraph(c, { ref: refJob }, job);
const episode = () => pictureEpisode(c.s);
const sidecar = refSidecar;

describe("edit on flux2_klein_edit", () => {
  it("changes the live plate with a sheet panel as image 2, wrapped, at the plate's size on the grid", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      target: "flux2_klein_edit",
      prompt: "Make it dawn.",
      edit: { take: null, with: [{ ref: "subject:ada", view: "04_face" }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued).toHaveLength(1);
    expect(res.body.queued[0]).toMatchObject({
      ref: "location:kitchen",
      view: null,
      target: "flux2_klein_edit",
    });
    const queued = await sidecar(ep, "location__kitchen", "location__kitchen_t01");
    expect(queued).toMatchObject({
      source: "edited",
      width: 1008,
      height: 608,
      edit: {
        take: null,
        turn: false,
        wrap: true,
        with: [{ ref: "subject:ada", view: "04_face", take: null }],
      },
    });
    expect(queued.references.map((r: Any) => [r.ref, r.view, r.from])).toEqual([
      ["location:kitchen", null, "live"],
      ["subject:ada", "04_face", "sheet"],
    ]);
    // The plate went at the asked size (kept by content), the face panel cut onto a white square.
    expect(queued.references[0].path).toMatch(
      /^refs\/_takes\/location__kitchen\/_composites\/[0-9a-f]{40}\.png$/,
    );
    expect(await sizeOf(path.join(ep, queued.references[0].path))).toEqual([1008, 608]);
    const panel = path.join(ep, queued.references[1].path);
    expect(await sizeOf(panel)).toEqual([1024, 1024]);
    const { data } = await sharp(panel).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * 1024 + x) * 3, (y * 1024 + x) * 3 + 3)];
    expect(at(512, 512)).toEqual([0xc0, 0xc0, 0x30]);
    expect(at(10, 512)).toEqual([255, 255, 255]);

    const graph = await runJob(res.body.queued[0].prompt_id);
    const sent = loads(graph);
    expect(sent).toHaveLength(2);
    expect(await sizeOf(path.join(c.double.inputDir, sent[0]))).toEqual([1008, 608]);
    expect(await sizeOf(path.join(c.double.inputDir, sent[1]))).toEqual([1024, 1024]);
    const prompt = Object.values(graph).find((n: Any) => n._meta?.title === "Positive prompt").inputs.text;
    expect(prompt).toBe(
      "Use the setting, layout, colours and light of image 1. Draw Ada exactly as in image 2: the same face, body, clothes and colours, posed for this shot. Make it dawn.",
    );
    const done = await sidecar(ep, "location__kitchen", "location__kitchen_t01");
    expect(done).toMatchObject({ status: "ok", source: "edited", width: 1008, height: 608 });
    expect(await sizeOf(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_t01.png"))).toEqual([
      1008, 608,
    ]);
    const listed = await c.s.call("GET", "/refs", { ep });
    const kitchen = listed.body.refs.find((r: Any) => r.id === "location:kitchen");
    expect(kitchen.takes.find((t: Any) => t.take === 1)).toMatchObject({ source: "edited", status: "ok" });
  });

  it("turns a character view from another: the phrase sent as typed, no angle LoRA said in save_notes", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "subject:ada",
      view: "02_side",
      target: "flux2_klein_edit",
      edit: { turn: true, from_view: "01_threequarter" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued[0]).toMatchObject({ view: "02_side" });
    const graph = await runJob(res.body.queued[0].prompt_id);
    const prompt = Object.values(graph).find((n: Any) => n._meta?.title === "Positive prompt").inputs.text;
    expect(prompt.startsWith(TURN_PHRASES["02_side"])).toBe(true);
    const done = await sidecar(ep, "subject__ada", "subject__ada_02_side_t01");
    expect(done).toMatchObject({ status: "ok", source: "edited", width: 1024, height: 1024 });
    expect(done.edit).toMatchObject({ turn: true, from_view: "01_threequarter" });
    expect(done.references[0]).toMatchObject({ ref: "subject:ada", view: "01_threequarter", from: "sheet" });
    expect(done.save_notes.join(" ")).toMatch(/no camera-angle LoRA/);
  });
});

describe("edit on qwen_image_21", () => {
  it("changes take n with another plate, sent as typed; the first picture already at the asked size", async () => {
    const ep = await episode();
    // A picture placed by hand as take 1 (no sidecar: a finished take).
    await png(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_t01.png"), 800, 1200, "#20a020");
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      target: "qwen_image_21",
      prompt: "put the street of image 2 outside the window",
      edit: { take: 1, with: [{ ref: "location:street" }], wrap: false },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued[0]).toMatchObject({ take: 2, target: "qwen_image_21" });
    const graph = await runJob(res.body.queued[0].prompt_id);
    const sent = loads(graph);
    expect(sent).toHaveLength(2);
    expect(await sizeOf(path.join(c.double.inputDir, sent[0]))).toEqual([800, 1216]);
    const encoder = Object.values(graph).find((n: Any) => n.class_type === "TextEncodeQwenImage21");
    expect(encoder.inputs.prompt).toBe("put the street of image 2 outside the window");
    const done = await sidecar(ep, "location__kitchen", "location__kitchen_t02");
    expect(done).toMatchObject({ status: "ok", source: "edited", width: 800, height: 1216 });
    expect(done.references.map((r: Any) => [r.ref, r.take])).toEqual([
      ["location:kitchen", 1],
      ["location:street", null],
    ]);
    expect(await sizeOf(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_t02.png"))).toEqual([
      800, 1216,
    ]);
  });
});

describe("edit refusals", () => {
  const ask = async (ep: string, body: Record<string, unknown>) =>
    c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      prompt: "dusk",
      edit: { take: null },
      ...body,
    });

  it("answers 400 for each request the rows refuse", async () => {
    const ep = await episode();
    const card = await ask(ep, { target: "card" });
    expect(card.status).toBe(400);
    expect(card.body.error).toMatch(/^the built-in card engine cannot edit pictures; choose an edit target/);
    expect((await ask(ep, { target: "krea2" })).body.error).toMatch(/krea2|Krea.*not an edit target/i);
    expect((await ask(ep, { target: "krea2" })).status).toBe(400);
    // Without a target: neither default is an edit target here (400), until the keyframe target is one.
    const none = await ask(ep, {});
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(
      /^neither the reference target nor the keyframe target is an edit target/,
    );
    expect(
      (await c.s.call("PUT", "/refs/defaults", { ep, keyframe_target: "flux2_klein_edit" })).status,
    ).toBe(200);
    const fallback = await ask(ep, {});
    expect(fallback.status, JSON.stringify(fallback.body)).toBe(200);
    expect(fallback.body.queued[0].target).toBe("flux2_klein_edit");
    const many = await ask(ep, {
      target: "flux_kontext",
      edit: { take: null, with: [{ ref: "location:street" }] },
    });
    expect(many.status).toBe(400);
    expect(many.body.error).toMatch(/at most 1 picture; this edit sends 2/);
    const noPrompt = await ask(ep, { target: "flux2_klein_edit", prompt: null });
    expect(noPrompt.status).toBe(400);
    expect(noPrompt.body.error).toMatch(/needs a prompt/);
    const noTake = await ask(ep, { target: "flux2_klein_edit", edit: { take: 9 } });
    expect(noTake.status).toBe(400);
    expect(noTake.body.error).toMatch(/t09: no such take/);
    const noPlate = await ask(ep, {
      target: "flux2_klein_edit",
      edit: { take: null, with: [{ ref: "location:kitchen_rev" }] },
    });
    expect(noPlate.status).toBe(400);
    expect(noPlate.body.error).toMatch(/with\[0\]: location:kitchen_rev has no live picture/);
    const noView = await ask(ep, { ref: "subject:ada", target: "flux2_klein_edit", prompt: null });
    expect(noView.status).toBe(400);
    const turnPlace = await ask(ep, { target: "flux2_klein_edit", edit: { turn: true } });
    expect(turnPlace.status).toBe(400);
    expect(turnPlace.body.error).toMatch(/turn draws a character view/);
    const both = await ask(ep, { target: "flux2_klein_edit", pano: {} });
    expect(both.status).toBe(400);
    expect((await ask(ep, { ref: "voice:ada" })).status).toBe(400);
  });
});

describe("keyframes on edit targets", () => {
  it("flux2_klein_edit gets the character's three-quarter panel then the plate, introduced in the prompt", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "shot:sh010:first",
      target: "flux2_klein_edit",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const graph = await runJob(res.body.queued[0].prompt_id);
    const sent = loads(graph);
    expect(sent).toHaveLength(2);
    const panel = await sharp(path.join(c.double.inputDir, sent[0]))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...panel.data.subarray((512 * 1024 + 512) * 3, (512 * 1024 + 512) * 3 + 3)]).toEqual([
      0xc0, 0x30, 0x30,
    ]);
    const prompt = Object.values(graph).find((n: Any) => n._meta?.title === "Positive prompt").inputs.text;
    expect(prompt).toMatch(
      /^Draw Ada exactly as in image 1: .* Use the setting, layout, colours and light of image 2\. The first frame/,
    );
    const done = await sidecar(ep, "shot__sh010__first", "shot__sh010__first_t01");
    expect(done.references.map((r: Any) => [r.ref, r.view])).toEqual([
      ["subject:ada", "01_threequarter"],
      ["location:kitchen", null],
    ]);
  });

  it("flux_kontext (one picture) gets one composite: the figure over the plate, kept by its SHA-1", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "shot:sh010:first",
      target: "flux_kontext",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const queued = await sidecar(ep, "shot__sh010__first", "shot__sh010__first_t01");
    const [w, h] = [queued.width, queued.height];
    const ref = queued.references[0];
    expect(ref).toMatchObject({ ref: "composite", plate: "location:kitchen" });
    expect(ref.path).toMatch(/^refs\/_takes\/shot__sh010__first\/_composites\/([0-9a-f]{40})\.png$/);
    const file = path.join(ep, ref.path);
    const bytes = await readFile(file);
    expect(path.basename(file, ".png")).toBe(sha1Of(bytes));
    const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * w + x) * 3, (y * w + x) * 3 + 3)];
    // The plate (red) fills the frame; the figure (the three-quarter panel, on white) stands on the bottom edge
    // in the middle at about two thirds of the height.
    expect(at(5, 5)).toEqual([0xd0, 0x20, 0x20]);
    let top = h - 1;
    while (top > 0 && at(Math.round(w / 2), top - 1)[0] !== 0xd0) top--;
    expect((h - top) / h).toBeGreaterThan(0.6);
    expect((h - top) / h).toBeLessThan(0.7);
    expect(at(Math.round(w / 2), h - 2)).toEqual([0xc0, 0x30, 0x30]);

    const graph = await runJob(res.body.queued[0].prompt_id);
    expect(loads(graph)).toHaveLength(1);
    const prompt = Object.values(graph).find((n: Any) => n._meta?.title === "Positive prompt").inputs.text;
    expect(prompt).toMatch(/^The image shows Ada in front of the background/);
  });

  it("composes on white without a plate, figures 2% apart and scaled together when the row is too wide", async () => {
    const fig = await sharp({ create: { width: 400, height: 400, channels: 3, background: "#000000" } })
      .png()
      .toBuffer();
    const frame = { width: 600, height: 300 };
    const out = await composeFigures(frame, null, [fig, fig]);
    const { data } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * 600 + x) * 3, (y * 600 + x) * 3 + 3)];
    expect(at(2, 2)).toEqual([255, 255, 255]);
    expect(at(300, 290)).toEqual([255, 255, 255]);
    expect(at(200, 290)).toEqual([0, 0, 0]);
    const boxes = figureBoxes(frame, [
      { width: 1, height: 1 },
      { width: 1, height: 1 },
    ]);
    expect(boxes.map((b) => b.height)).toEqual([200, 200]);
    expect(boxes[1].left - (boxes[0].left + boxes[0].width)).toBe(12);
    const wide = figureBoxes(
      frame,
      [1, 2, 3, 4].map(() => ({ width: 2, height: 1 })),
    );
    const right = wide[3].left + wide[3].width;
    expect(wide[0].left).toBeGreaterThanOrEqual(17);
    expect(right).toBeLessThanOrEqual(600 - 17);
    expect(wide[0].height).toBeLessThan(200);
  });
});
