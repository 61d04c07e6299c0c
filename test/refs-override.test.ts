// PUT / DELETE /studio/refs/override and PUT /studio/refs/defaults on real show folders: the file each writes
// (refs/_overrides.json in the ref's home, overrides.json's episode block), every refusal with its status and
// message, views and `own`, stale stamps after the series config changes, and the events.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson } from "../lib/store/json-file.ts";
import { sha1Hex } from "../lib/text/digest.ts";
import { seriesS } from "./support/series-s.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

// biome-ignore lint/suspicious/noExplicitAny: the files are checked field by field
const json = async (file: string): Promise<any> => parseJson(await readFile(file, "utf8"));
const refsFile = (home: string) => path.join(home, "refs", "_overrides.json");
const put = (ep: string, ref: string, fields: Record<string, unknown>, view?: string) =>
  s.call("PUT", "/refs/override", { ep, ref, fields, ...(view ? { view } : {}) });
const del = (ep: string, ref: string, view?: string) =>
  s.call("DELETE", "/refs/override", { ep, ref, ...(view ? { view } : {}) });

// The plate prompt the compiler writes for the kitchen of series S (lib/compile/refs.ts plateRef).
const kitchenPrompt = (description = "a cramped kitchen at night") =>
  `An empty establishing view of ${description}. A flat 2D cartoon. No characters, props or figures; ` +
  "a wide framing that shows the layout of the place. Output 1344x768.";

describe("PUT /studio/refs/override", () => {
  it("stores the fields stamped with the built prompt's SHA-1 in the episode's refs/_overrides.json", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await put(ep, "location:kitchen", {
      prompt: "A kitchen at dawn.",
      size: "1024 x 512",
      cfg: 3.5,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      override: { prompt: "A kitchen at dawn.", size: "1024x512", cfg: 3.5, stale: false },
    });
    expect(await json(refsFile(ep))).toEqual({
      refs: {
        "location:kitchen": {
          prompt: "A kitchen at dawn.",
          base_hash: sha1Hex(kitchenPrompt()),
          size: "1024x512",
          cfg: 3.5,
        },
      },
    });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    // Only the fields sent change; the seed is an integer in the file and text on the wire.
    const seeded = await put(ep, "location:kitchen", {
      seed: "9223372036854775807",
      note: "keep the window",
    });
    expect(seeded.body.override).toMatchObject({
      seed: "9223372036854775807",
      note: "keep the window",
      cfg: 3.5,
    });
    expect(await readFile(refsFile(ep), "utf8")).toContain('"seed": 9223372036854775807');
    expect((await put(ep, "location:kitchen", { seed: " 42 " })).body.override.seed).toBe("42");
    expect((await put(ep, "location:kitchen", { seed: 7 })).body.override.seed).toBe("7");
  });

  it('null, "" and {} clear a field; an entry left empty is removed', async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "subject:kettle", {
      model: "m.safetensors",
      note: "dented",
      steps: 8,
      target: "flux2_klein",
    });
    await put(ep, "subject:kettle", { params: { sampler: "euler" }, loras: ["a:0.5"] });
    const file = await json(refsFile(ep));
    expect(file.refs["subject:kettle"]).toMatchObject({
      model: "m.safetensors",
      steps: 8,
      target: "flux2_klein",
      params: { sampler: "euler" },
      loras: [{ name: "a", strength: 0.5 }],
    });
    const res = await put(ep, "subject:kettle", {
      model: "",
      note: null,
      steps: null,
      params: {},
      loras: null,
    });
    expect(res.body).toEqual({ override: { target: "flux2_klein", stale: false } });
    await put(ep, "subject:kettle", { target: null });
    expect(await json(refsFile(ep))).toEqual({ refs: {} });
  });

  it("keeps a show's series-home overrides beside its config, and keyframes' in the episode", async () => {
    const show = await s.show();
    const ep = path.join(show, "ep01");
    await writeFile(path.join(show, "series.json"), JSON.stringify(seriesS()));
    const { mkdir } = await import("node:fs/promises");
    await mkdir(ep);
    await writeFile(path.join(ep, "ep01.md"), SCRIPT);
    expect((await s.call("POST", "/build", { ep })).body.ok).toBe(true);
    await put(ep, "location:street", { note: "rain" });
    await put(ep, "shot:sh010:first", { note: "door closed" });
    expect((await json(refsFile(show))).refs).toEqual({
      "location:street": expect.objectContaining({ note: "rain" }),
    });
    expect((await json(refsFile(ep))).refs).toEqual({
      "shot:sh010:first": { base_hash: expect.stringMatching(/^[0-9a-f]{40}$/), note: "door closed" },
    });
  });

  it("a character's prompt belongs to a view; a view's override lists its own fields; DELETE with a view drops them", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await put(ep, "subject:ada", { prompt: "Ada smiling." }),
      400,
      "subject:ada is a character: its prompt override belongs to one of its views (01_threequarter, 02_side, 03_back, 04_face)",
    );
    await put(ep, "subject:ada", { seed: "11", model: "ref.safetensors" });
    const side = await put(
      ep,
      "subject:ada",
      { prompt: "Ada in profile.", model: "side.safetensors" },
      "02_side",
    );
    expect(side.body).toEqual({
      override: {
        seed: "11",
        model: "side.safetensors",
        prompt: "Ada in profile.",
        stale: false,
        own: ["prompt", "model"],
      },
    });
    const file = await json(refsFile(ep));
    expect(file.refs["subject:ada"].views).toEqual({
      "02_side": {
        prompt: "Ada in profile.",
        base_hash: expect.stringMatching(/^[0-9a-f]{40}$/),
        model: "side.safetensors",
      },
    });
    const dropped = await del(ep, "subject:ada", "02_side");
    expect(dropped.body).toEqual({
      override: { seed: "11", model: "ref.safetensors", stale: false, own: [] },
    });
    expect((await json(refsFile(ep))).refs["subject:ada"].views).toBeUndefined();
    expect(s.env.events.filter((e) => e.type === "studio.episode")).toHaveLength(3);
    await put(ep, "subject:ada", { note: "x" }, "04_face");
    const all = await del(ep, "subject:ada");
    expect(all.body).toEqual({ override: { stale: false } });
    expect(await json(refsFile(ep))).toEqual({ refs: {} });
  });

  it("says stale once the series config changes the built prompt under a prompt override", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "location:kitchen", { prompt: "A kitchen at dawn." });
    const series = seriesS();
    series.locations.kitchen.description = "a wide bright kitchen";
    await writeFile(path.join(ep, "series.json"), JSON.stringify(series));
    // Another field leaves the prompt's stamp alone, so the answer says the prompt was written over another one.
    const res = await put(ep, "location:kitchen", { note: "check" });
    expect(res.body.override).toEqual({ prompt: "A kitchen at dawn.", note: "check", stale: true });
    expect((await json(refsFile(ep))).refs["location:kitchen"].base_hash).toBe(sha1Hex(kitchenPrompt()));
    // Writing the prompt again stamps it with the prompt built now.
    const again = await put(ep, "location:kitchen", { prompt: "A bright kitchen at dawn." });
    expect(again.body.override.stale).toBe(false);
    expect((await json(refsFile(ep))).refs["location:kitchen"].base_hash).toBe(
      sha1Hex(kitchenPrompt("a wide bright kitchen")),
    );
  });

  it("skips params the target does not take, with a note", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await put(ep, "location:street", {
      target: "flux2_klein",
      params: { sampler: "dpmpp_2m", scheduler: "beta", denoise: 0.8 },
      negative: "people",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      override: { target: "flux2_klein", negative: "people", params: { sampler: "dpmpp_2m" }, stale: false },
      notes: [
        "params.scheduler skipped: Klein has no scheduler setting",
        "params.denoise skipped: Klein has no denoise setting",
      ],
    });
  });

  it("refuses bad fields and values with a 400 naming them, and nothing is written", async () => {
    const ep = await s.episode(SCRIPT);
    const cases: [string, Record<string, unknown>, string | RegExp, string?][] = [
      [
        "location:kitchen",
        { cfg: 3, colour: "red" },
        "unknown override field(s) colour: one of prompt, seed, model, loras, steps, note, target, size, cfg, negative, params",
      ],
      ["location:kitchen", { size: "255x512" }, /^size must be WxH with each side from 256 to 4096/],
      ["location:kitchen", { size: "4097x512" }, /^size must be WxH/],
      ["location:kitchen", { size: "big" }, /^size must be WxH/],
      ["location:kitchen", { cfg: 30.5 }, "cfg must be a number from 0 to 30, or null; got 30.5"],
      ["location:kitchen", { cfg: "3" }, 'cfg must be a number from 0 to 30, or null; got "3"'],
      ["location:kitchen", { steps: 0 }, "steps must be a whole number of at least 1, or null; got 0"],
      ["location:kitchen", { seed: true }, "seed must be a string of digits (got true)"],
      ["location:kitchen", { seed: "-1" }, 'seed must be a string of digits (got "-1")'],
      [
        "location:kitchen",
        { seed: "18446744073709551616" },
        "seed must be between 0 and 2^64-1 (got 18446744073709551616)",
      ],
      ["location:kitchen", { loras: 5 }, /^loras: /],
      ["location:kitchen", { prompt: 5 }, "prompt must be text, or null to clear it"],
      [
        "location:kitchen",
        { target: "animatic" },
        "target: 'animatic' is not an image target (known: card, flux2_klein, flux2_klein_edit, flux_kontext, klein_erp_360, krea2, qwen_image_21, qwen_rapid_aio, z_image_turbo)",
      ],
      [
        "voice:ada",
        { target: "card" },
        "target: 'card' is not an audio target (known: ltx2_voice, silence, speech)",
      ],
      ["location:kitchen", { target: "a b" }, /^target must be a target id/],
      ["location:kitchen", { negative: "blur" }, "negative: Card takes no negative prompt"],
      [
        "location:kitchen",
        { params: { steps: 3 } },
        "unknown param(s) steps: one of sampler, scheduler, denoise, shift, guidance",
      ],
      [
        "location:kitchen",
        { params: { denoise: 2 } },
        "params.denoise must be a number from 0 to 1, or null; got 2",
      ],
      ["location:kitchen", { params: "euler" }, /^params must be an object/],
      [
        "shot:sh010:first",
        { size: "1024x1024" },
        "size is not set on a keyframe: it is made at its shot's size",
      ],
      ["voice:ada", { size: "1024x1024" }, "size is not set on a voice: it is a recording"],
      [
        "location:kitchen",
        { note: "x" },
        "location:kitchen has no views: its override is set on the reference itself (leave view out)",
        "02_side",
      ],
    ];
    for (const [ref, fields, message, view] of cases) {
      refusal(await put(ep, ref, fields, view), 400, message);
    }
    refusal(
      await s.call("PUT", "/refs/override", { ep, ref: "subject:ada", view: "sheet", fields: {} }),
      400,
      /view/,
    );
    refusal(await put(ep, "kitchen", { note: "x" }), 400, /^ref: must be a reference id/);
    expect(s.env.events).toEqual([]);
    await expect(readFile(refsFile(ep))).rejects.toThrow(/ENOENT/);
  });

  it("answers 404 for a reference the episode does not have, 403 outside the roots", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await put(ep, "subject:zed", { note: "x" }),
      404,
      "subject:zed is not a reference of this episode",
    );
    refusal(
      await put(ep, "voice:kettle", { note: "x" }),
      404,
      "voice:kettle is not a reference of this episode",
    );
    refusal(
      await put(ep, "shot:sh999:first", { note: "x" }),
      404,
      "shot:sh999:first is not a reference of this episode",
    );
    const outside = await put("/definitely/not/a/root/ep01", "location:kitchen", { note: "x" });
    expect(outside.status).toBe(403);
  });
});

describe("DELETE /studio/refs/override", () => {
  it("clears everything of the ref and emits studio.episode; a view on a ref without views is 400", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "location:kitchen", { note: "x", cfg: 2 });
    s.env.events.length = 0;
    const res = await del(ep, "location:kitchen");
    expect(res.body).toEqual({ override: { stale: false } });
    expect(await json(refsFile(ep))).toEqual({ refs: {} });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    refusal(
      await del(ep, "location:kitchen", "02_side"),
      400,
      "location:kitchen has no views: its override is cleared on the reference itself (leave view out)",
    );
  });
});

describe("PUT /studio/refs/defaults", () => {
  const defaults = (ep: string, body: Record<string, unknown>) =>
    s.call("PUT", "/refs/defaults", { ep, ...body });

  it("stores the targets in overrides.json's episode block, keeps its other keys, null clears, omitted is kept", async () => {
    const ep = await s.episode(SCRIPT);
    await s.call("PUT", "/episode-target", { ep, target: "animatic" });
    s.env.events.length = 0;
    const res = await defaults(ep, { target: "flux2_klein", voice_target: "ltx2_voice" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      defaults: {
        target: "flux2_klein",
        target_source: "editor",
        keyframe_target: "flux2_klein",
        keyframe_target_source: "default",
        voice_target: "ltx2_voice",
        voice_target_source: "editor",
      },
    });
    expect((await json(path.join(ep, "overrides.json"))).episode).toEqual({
      id: "e01",
      target: "animatic",
      refs_target: "flux2_klein",
      voice_target: "ltx2_voice",
    });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    await defaults(ep, { keyframe_target: "flux2_klein_edit", voice_target: null });
    expect((await json(path.join(ep, "overrides.json"))).episode).toEqual({
      id: "e01",
      target: "animatic",
      refs_target: "flux2_klein",
      keyframe_target: "flux2_klein_edit",
    });
    await s.call("PUT", "/episode-target", { ep, target: null });
    const cleared = await defaults(ep, { target: null, keyframe_target: null });
    expect(cleared.body.defaults).toMatchObject({ target: "card", target_source: "default" });
    expect((await json(path.join(ep, "overrides.json"))).episode).toBe("e01");
  });

  it("reads the series config's refs block under the editor's choice", async () => {
    const series = seriesS();
    series.refs = { target: "flux2_klein", keyframe_target: "flux2_klein_edit" };
    const ep = await s.episode(SCRIPT, { series });
    const res = await defaults(ep, { voice_target: "silence" });
    expect(res.body.defaults).toEqual({
      target: "flux2_klein",
      target_source: "series",
      keyframe_target: "flux2_klein_edit",
      keyframe_target_source: "series",
      voice_target: "silence",
      voice_target_source: "editor",
    });
    // The ref override's target default follows: a negative on flux2_klein is accepted.
    expect((await put(ep, "location:kitchen", { negative: "people" })).status).toBe(200);
  });

  it("refuses a non-image target, a non-audio voice target, and a request with neither key", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await defaults(ep, {}), 400, "give target, keyframe_target or voice_target (null clears one)");
    refusal(
      await defaults(ep, { target: "animatic" }),
      400,
      "target: 'animatic' is not an image target (known: card, flux2_klein, flux2_klein_edit, flux_kontext, klein_erp_360, krea2, qwen_image_21, qwen_rapid_aio, z_image_turbo)",
    );
    refusal(
      await defaults(ep, { keyframe_target: "ltx2_voice" }),
      400,
      "keyframe_target: 'ltx2_voice' is not an image target (known: card, flux2_klein, flux2_klein_edit, flux_kontext, klein_erp_360, krea2, qwen_image_21, qwen_rapid_aio, z_image_turbo)",
    );
    refusal(
      await defaults(ep, { voice_target: "card" }),
      400,
      "voice_target: 'card' is not an audio target (known: ltx2_voice, silence, speech)",
    );
    refusal(await defaults(ep, { target: "no such" }), 400, /target/);
    expect(s.env.events).toEqual([]);
  });
});
