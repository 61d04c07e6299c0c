// PUT/DELETE /studio/override and PUT /studio/episode-target on built episodes: "" vs null per field,
// asymmetric retarget clearing, and overrides.json as written (api extras 5.5; 6, rules 8 and 9).
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readBuild } from "../lib/episode/shotlists.ts";
import { storyHash } from "../lib/script/canonical.ts";
import { createCaches } from "../lib/store/caches.ts";
import { parseJson } from "../lib/store/json-file.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const overridesText = (ep: string) => readFile(path.join(ep, "overrides.json"), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: the file is checked field by field
const overrides = async (ep: string): Promise<any> => parseJson(await overridesText(ep));
const hashOf = async (ep: string, pass: "final" | "proxy", shot: string) =>
  storyHash((await readBuild({ caches: createCaches() }, ep, pass))!.shots.get(shot)!.entry);
const put = (ep: string, shot: string, fields: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  s.call("PUT", "/override", { ep, pass: "proxy", shot, fields, ...more });

const LONG = `${SCRIPT}\n## sh040\ndur: 12\nAda walks the whole street.`;

describe("PUT /studio/override", () => {
  it("stores pass fields stamped with the base hash under the shot's target and writes the episode name", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await put(ep, "sh010", { prompt: "Ada waits, shivering." });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      override: { final: {}, proxy: { prompt: "Ada waits, shivering." } },
      stale: false,
      target: "animatic",
      built_target: "animatic",
    });
    const file = await overrides(ep);
    expect(file).toEqual({
      episode: "e01",
      shots: {
        sh010: {
          animatic: {
            proxy: { base_hash: await hashOf(ep, "proxy", "sh010"), prompt: "Ada waits, shivering." },
          },
        },
      },
    });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("changes only the fields sent; null clears; both: true sets both passes", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "sh010", { prompt: "P", steps: 4 });
    const res = await put(
      ep,
      "sh010",
      { steps: null, model: "m.safetensors", loras: ["a:0.5", "b"] },
      { both: true },
    );
    expect(res.body.override).toEqual({
      final: {
        model: "m.safetensors",
        loras: [
          { name: "a", strength: 0.5 },
          { name: "b", strength: 1 },
        ],
      },
      proxy: {
        prompt: "P",
        model: "m.safetensors",
        loras: [
          { name: "a", strength: 0.5 },
          { name: "b", strength: 1 },
        ],
      },
    });
    const file = await overrides(ep);
    expect(file.shots.sh010.animatic.final.base_hash).toBe(await hashOf(ep, "final", "sh010"));
    expect(Object.keys(file.shots.sh010.animatic.proxy)).toEqual(["base_hash", "prompt", "model", "loras"]);
    await put(ep, "sh010", { size: "640x360", model_low: "low.safetensors" }, { pass: "final" });
    expect((await overrides(ep)).shots.sh010.animatic.final).toMatchObject({
      size: "640x360",
      model_low: "low.safetensors",
    });
    // Clearing every pass field drops the block; nothing is left but the episode name.
    await put(ep, "sh010", { prompt: null, model: null, loras: null }, { pass: "proxy" });
    await put(ep, "sh010", { model: null, loras: null, size: null, model_low: null }, { pass: "final" });
    expect(await overrides(ep)).toEqual({ episode: "e01" });
  });

  it('"" is an explicit empty negative, while "" note and model clear', async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "sh020", { note: "check the hands", model: "m.safetensors", negative: "blur" });
    const res = await put(ep, "sh020", { negative: "", note: "", model: "" });
    expect(res.status).toBe(200);
    expect(res.body.override).toEqual({ final: {}, proxy: { negative: "" } });
    const block = (await overrides(ep)).shots.sh020.animatic;
    expect(block.note).toBeUndefined();
    expect(block.proxy).toEqual({ base_hash: await hashOf(ep, "proxy", "sh020"), negative: "" });
    await put(ep, "sh020", { negative: null });
    expect((await overrides(ep)).shots).toBeUndefined();
  });

  it("keeps the shared seed as an integer in the file and a string on the wire", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await put(ep, "sh010", { seed: "9223372036854775807", note: "locked look" });
    expect(res.body.override).toEqual({
      final: {},
      proxy: {},
      seed: "9223372036854775807",
      note: "locked look",
    });
    expect(await overridesText(ep)).toContain('"seed": 9223372036854775807');
    expect((await put(ep, "sh010", { seed: " 42 " })).body.override.seed).toBe("42");
    expect((await put(ep, "sh010", { seed: 7 })).body.override.seed).toBe("7");
    const cleared = await put(ep, "sh010", { seed: null });
    expect(cleared.body.override).toEqual({ final: {}, proxy: {}, note: "locked look" });
  });

  it("refuses unknown fields and bad values with a 400 naming the field", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await put(ep, "sh010", { cfg: 3 }),
      400,
      "unknown override field(s) cfg: one of prompt, seed, model, loras, steps, note, target, negative, model_low, size",
    );
    refusal(await put(ep, "sh010", { seed: "-1" }), 400, /^seed must be a string of digits/);
    refusal(await put(ep, "sh010", { seed: true }), 400, /^seed must be a string of digits/);
    refusal(
      await put(ep, "sh010", { seed: "9223372036854775808" }),
      400,
      /^seed must be a string of digits from 0 to 2\^63-1/,
    );
    refusal(await put(ep, "sh010", { steps: 0 }), 400, "steps must be a whole number of at least 1, or null");
    refusal(
      await put(ep, "sh010", { steps: 2.5 }),
      400,
      "steps must be a whole number of at least 1, or null",
    );
    refusal(await put(ep, "sh010", { size: "640" }), 400, /^size must be WxH/);
    refusal(await put(ep, "sh010", { loras: 5 }), 400, /^loras: /);
    refusal(await put(ep, "sh010", { prompt: 5 }), 400, "prompt must be text or null");
    refusal(
      await put(ep, "sh010", { target: "nope" }),
      400,
      /^fields\.target: 'nope' is not a video target \(known: .*animatic/,
    );
    refusal(await s.call("PUT", "/override", { ep, shot: "sh010" }), 400, "fields: required");
    await expect(overridesText(ep)).rejects.toThrow();
    expect(s.env.events).toEqual([]);
  });

  it("404 for a shot in no build; 409 for pass fields on an unbuilt pass", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(
      await put(ep, "sh999", { note: "x" }),
      404,
      "sh999 is in no build of this episode: build the episode first",
    );
    await rm(path.join(ep, "shotlist", "shotlist.json"));
    refusal(
      await put(ep, "sh020", { prompt: "Bo waits." }, { both: true }),
      409,
      "sh020 has no final build: build the episode first",
    );
    refusal(
      await put(ep, "sh020", { prompt: "Bo waits." }, { pass: "final" }),
      409,
      "sh020 has no final build: build the episode first",
    );
    // Shared fields need no pass build, and the proxy pass is built.
    expect((await put(ep, "sh020", { note: "fine" }, { pass: "final" })).status).toBe(200);
    expect((await put(ep, "sh020", { prompt: "Bo waits." })).status).toBe(200);
  });

  it("reports stale when the shot's story changed since the pass fields were stamped", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "sh010", { prompt: "Ada waits." });
    await writeFile(path.join(ep, "ep01.md"), SCRIPT.replace("Ada waits.", "Ada waits by the door."));
    expect((await s.call("POST", "/build", { ep })).body.ok).toBe(true);
    const stale = await put(ep, "sh010", { note: "story moved" });
    expect(stale.body.stale).toBe(true);
    const fresh = await put(ep, "sh010", { prompt: "Ada waits by the door, cold." });
    expect(fresh.body.stale).toBe(false);
  });

  it("retargets: pass fields go under the new target; the built target clears the retarget", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await put(ep, "sh010", { target: "ltx2", prompt: "Ada waits." });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      override: { final: {}, proxy: { prompt: "Ada waits." }, target: "ltx2" },
      stale: false,
      target: "ltx2",
      built_target: "animatic",
    });
    let file = await overrides(ep);
    expect(file.shots.sh010.target).toBe("ltx2");
    expect(file.shots.sh010.ltx2.proxy.prompt).toBe("Ada waits.");
    expect(file.shots.sh010.animatic).toBeUndefined();
    // Stamped with the story of the entry the fields apply to: the shot compiled for ltx2 (73 frames, not 72).
    expect(file.shots.sh010.ltx2.proxy.base_hash).toMatch(/^[0-9a-f]{40}$/);
    expect(file.shots.sh010.ltx2.proxy.base_hash).not.toBe(await hashOf(ep, "proxy", "sh010"));
    expect((await put(ep, "sh010", { note: "n" })).body.stale).toBe(false);

    const back = await put(ep, "sh010", { target: "animatic" });
    expect(back.body).toMatchObject({ target: "animatic", built_target: "animatic" });
    expect(back.body.override.target).toBeUndefined();
    file = await overrides(ep);
    expect(file.shots.sh010.target).toBeUndefined();
    // The old target's block stays for when the shot goes back there.
    expect(file.shots.sh010.ltx2.proxy.prompt).toBe("Ada waits.");

    await put(ep, "sh010", { target: "ltx2" });
    const cleared = await put(ep, "sh010", { target: null });
    expect(cleared.body.target).toBe("animatic");
    expect((await overrides(ep)).shots.sh010.target).toBeUndefined();
  });

  it("with an episode target set, the built target pins the shot instead of clearing the retarget", async () => {
    const ep = await s.episode(SCRIPT);
    expect((await s.call("PUT", "/episode-target", { ep, target: "ltx2" })).status).toBe(200);
    const res = await put(ep, "sh010", { target: "animatic" });
    expect(res.body).toMatchObject({ target: "animatic", built_target: "animatic" });
    expect(res.body.override.target).toBe("animatic");
    expect((await overrides(ep)).shots.sh010.target).toBe("animatic");
    // Without the pin the shot follows the episode target.
    const other = await put(ep, "sh020", { note: "n" });
    expect(other.body.target).toBe("ltx2");
  });

  it("409 for pass fields on a retargeted shot whose story no longer compiles for the new target", async () => {
    const ep = await s.episode(LONG);
    // A 12 s shot is over Wan I2V's length limit.
    refusal(
      await put(ep, "sh040", { target: "wan22_i2v", prompt: "Ada walks." }),
      409,
      /^sh040 cannot be compiled for wan22_i2v in the proxy pass \(shot sh040: 12 s is 288 frames, over Wan I2V's maximum/,
    );
    await expect(overridesText(ep)).rejects.toThrow();
    // The retarget alone is stored; pass fields on it are then refused.
    expect((await put(ep, "sh040", { target: "wan22_i2v" })).status).toBe(200);
    refusal(await put(ep, "sh040", { steps: 8 }), 409, /^sh040 cannot be compiled for wan22_i2v/);
    // A shot that fits compiles, and its fields are stored against the new target.
    const ok = await put(ep, "sh010", { target: "wan22_i2v", steps: 8 });
    expect(ok.status).toBe(200);
    expect((await overrides(ep)).shots.sh010.wan22_i2v.proxy.steps).toBe(8);
  });

  it("leaves an existing episode entry as it is", async () => {
    const ep = await s.episode(SCRIPT);
    await writeFile(
      path.join(ep, "overrides.json"),
      JSON.stringify({ episode: { id: "mine", target: "ltx2" } }),
    );
    await put(ep, "sh010", { note: "n" });
    expect((await overrides(ep)).episode).toEqual({ id: "mine", target: "ltx2" });
  });
});

describe("DELETE /studio/override", () => {
  it("with pass: removes that pass's fields, keeps seed, note and the retarget", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "sh010", { target: "ltx2", seed: "5", note: "n", prompt: "p" }, { both: true });
    const res = await s.call("DELETE", "/override", { ep, shot: "sh010", pass: "proxy" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      override: { final: { prompt: "p" }, proxy: {}, seed: "5", note: "n", target: "ltx2" },
      stale: false,
      target: "ltx2",
      built_target: "animatic",
    });
    expect(s.env.events.at(-1)).toEqual({ type: "studio.episode", data: { ep } });
  });

  it("without pass: removes everything for the current target and the retarget, and answers the new target", async () => {
    const ep = await s.episode(SCRIPT);
    await put(ep, "sh010", { prompt: "on animatic" });
    await put(ep, "sh010", { target: "ltx2", seed: "5", prompt: "on ltx2" });
    const res = await s.call("DELETE", "/override", { ep, shot: "sh010" });
    expect(res.body).toEqual({
      override: { final: {}, proxy: { prompt: "on animatic" } },
      stale: false,
      target: "animatic",
      built_target: "animatic",
    });
    const file = await overrides(ep);
    expect(file.shots.sh010.ltx2).toBeUndefined();
    expect(file.shots.sh010.target).toBeUndefined();
  });

  it("refuses a shot in no build (404) and a bad pass (400)", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("DELETE", "/override", { ep, shot: "sh999" }), 404, /^sh999 is in no build/);
    refusal(await s.call("DELETE", "/override", { ep, shot: "sh010", pass: "FINAL" }), 400, /^pass: /);
    refusal(await s.call("DELETE", "/override", { ep }), 400, "shot: required");
  });
});

describe("PUT /studio/episode-target", () => {
  it("stores episode.target in object form and null brings back the plain name", async () => {
    const ep = await s.episode(SCRIPT);
    const set = await s.call("PUT", "/episode-target", { ep, target: "ltx2" });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ target: "ltx2", target_source: "editor", series_target: null });
    expect((await overrides(ep)).episode).toEqual({ id: "e01", target: "ltx2" });
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    const cleared = await s.call("PUT", "/episode-target", { ep, target: null });
    expect(cleared.body).toEqual({ target: "animatic", target_source: "default", series_target: null });
    expect((await overrides(ep)).episode).toBe("e01");
  });

  it("keeps the other episode keys and reports the series target", async () => {
    const series = (await import("./support/series-s.ts")).seriesS();
    series.series.target = "animatic";
    const ep = await s.episode(SCRIPT, { series });
    await writeFile(
      path.join(ep, "overrides.json"),
      JSON.stringify({ episode: { id: "e01", refs_target: "img" } }),
    );
    const set = await s.call("PUT", "/episode-target", { ep, target: "ltx2" });
    expect(set.body).toEqual({ target: "ltx2", target_source: "editor", series_target: "animatic" });
    expect((await overrides(ep)).episode).toEqual({ id: "e01", target: "ltx2", refs_target: "img" });
    const cleared = await s.call("PUT", "/episode-target", { ep, target: null });
    expect(cleared.body).toEqual({ target: "animatic", target_source: "series", series_target: "animatic" });
    expect((await overrides(ep)).episode).toEqual({ id: "e01", refs_target: "img" });
  });

  it("refuses a missing target key or a non-video target (400) and an unbuilt episode (404)", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await s.call("PUT", "/episode-target", { ep }), 400, "target: required");
    refusal(
      await s.call("PUT", "/episode-target", { ep, target: "nope" }),
      400,
      /^target: 'nope' is not a video target/,
    );
    const unbuilt = await s.episode(SCRIPT, { build: false });
    refusal(
      await s.call("PUT", "/episode-target", { ep: unbuilt, target: "ltx2" }),
      404,
      `${unbuilt} has no build: build the episode first`,
    );
    expect(s.env.events).toEqual([]);
  });
});
