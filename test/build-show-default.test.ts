// Existing show folders open unchanged: the default target a build takes (the settings' choice, else the last build's,
// else the detected one, else animatic) with the reason in its report; H3 voice entries and LoRA lists as the
// original tool writes them. Built over real folders through the routes.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const s = useStudio();

const script = (...shots: string[]) => ["= e01  T", "# sq01 kitchen", ...shots].join("\n");
const ONE_SHOT = script("## sh010", "dur: 3", "Ada waits.");

const settingsPath = () => path.join(s.env.home, "default", "studio", "settings.json");
async function settings(value: Record<string, unknown>): Promise<void> {
  await mkdir(path.dirname(settingsPath()), { recursive: true });
  await writeFile(settingsPath(), JSON.stringify(value));
}
afterEach(async () => settings({}));

const build = async (ep: string) => (await s.call("POST", "/build", { ep })).body;
const shotlist = async (ep: string, name = "shotlist.json") =>
  JSON.parse(await readFile(path.join(ep, "shotlist", name), "utf8"));

/** A shot list as the original tool leaves it for H3 Ref2VA: no `target` key (it means the default target). */
async function originalH3Build(ep: string): Promise<void> {
  await mkdir(path.join(ep, "shotlist"), { recursive: true });
  const doc = { episode: "e01", title: "T", prompt_prefix: "", defaults: {}, subjects: {}, shots: [] };
  for (const name of ["shotlist.json", "shotlist_proxy.json"]) {
    await writeFile(path.join(ep, "shotlist", name), JSON.stringify(doc));
  }
}

describe("the default target of a show", () => {
  it("a show built before by the original tool keeps H3 Ref2VA, and the report says why", async () => {
    const ep = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    await originalH3Build(ep);
    const body = await build(ep);
    expect(body.ok).toBe(true);
    expect(body.passes.final.report).toMatchObject({
      target: "minimax_h3_ref2va",
      target_source: "last_build",
      target_why: expect.stringContaining("last build"),
    });
    expect((await shotlist(ep)).shots[0].length).toBe(73);
    const episode = (await s.call("GET", "/episode", { ep, pass: "final" })).body;
    expect(episode).toMatchObject({ target: "minimax_h3_ref2va", target_source: "default" });
    expect(episode.shots[0]).toMatchObject({
      target: "minimax_h3_ref2va",
      built_target: "minimax_h3_ref2va",
    });
  });

  it("keeps its own last target when the settings that chose it are cleared", async () => {
    const ep = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    await settings({ default_targets: { video: "ltx2" } });
    expect((await build(ep)).passes.final.report).toMatchObject({
      target: "ltx2",
      target_source: "settings",
    });
    await settings({ detected_targets: { video: "animatic" } });
    expect((await build(ep)).passes.final.report).toMatchObject({
      target: "ltx2",
      target_source: "last_build",
    });
  });

  it("the settings' default wins over the last build; series.target over both", async () => {
    const ep = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    await originalH3Build(ep);
    await settings({ default_targets: { video: "ltx2" } });
    expect((await build(ep)).passes.final.report).toMatchObject({
      target: "ltx2",
      target_source: "settings",
      target_why: expect.stringContaining("default_targets.video"),
    });
    const series = seriesS();
    series.series.target = "animatic";
    await writeFile(path.join(ep, "series.json"), JSON.stringify(series));
    expect((await build(ep)).passes.final.report).toMatchObject({
      target: "animatic",
      target_source: "series",
    });
  });

  it("a show never built takes the detected default, else animatic", async () => {
    const detected = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    await settings({ detected_targets: { video: "ltx2" } });
    expect((await build(detected)).passes.final.report).toMatchObject({
      target: "ltx2",
      target_source: "detected",
      target_why: expect.stringContaining("detected_targets.video"),
    });
    await settings({});
    const bare = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    expect((await build(bare)).passes.final.report).toMatchObject({
      target: "animatic",
      target_source: "builtin",
    });
  });

  it("a last build on a target this machine no longer has falls through, saying so", async () => {
    const ep = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    await mkdir(path.join(ep, "shotlist"), { recursive: true });
    await writeFile(
      path.join(ep, "shotlist", "shotlist.json"),
      JSON.stringify({
        episode: "e01",
        title: "T",
        target: "gone_model",
        defaults: {},
        subjects: {},
        shots: [],
      }),
    );
    const report = (await build(ep)).passes.final.report;
    expect(report).toMatchObject({ target: "animatic", target_source: "builtin" });
    expect(report.target_why).toContain("gone_model");
  });
});

describe("the editor's check", () => {
  it("checks a show on the target of its last build", async () => {
    const series = seriesS();
    delete series.locations.kitchen.plate;
    const ep = await s.folder({ "series.json": series, "ep01.md": ONE_SHOT });
    const fresh = (await s.call("POST", "/source/check", { ep, file: "script", text: ONE_SHOT })).body;
    expect(fresh.ok).toBe(true);
    await originalH3Build(ep);
    const built = (await s.call("POST", "/source/check", { ep, file: "script", text: ONE_SHOT })).body;
    expect(built.ok).toBe(false);
    expect(built.errors[0].message).toMatch(/location 'kitchen' has no plate/);
  });
});

describe("H3 entries as the original tool writes them", () => {
  const h3 = () => {
    const series = seriesS();
    series.series.target = "minimax_h3_ref2va";
    return series;
  };

  it("carry voice_refs: [] when the policy is not clone", async () => {
    const ep = await s.folder({
      "series.json": h3(),
      "ep01.md": script("## sh010", "who: ada", "dur: 3", "ADA: Hi."),
    });
    expect((await build(ep)).ok).toBe(true);
    const entry = (await shotlist(ep)).shots[0];
    expect(entry.voice_refs).toEqual([]);
    expect(Object.keys(entry).indexOf("voice_refs")).toBe(Object.keys(entry).indexOf("voice_subject") + 1);
  });

  it("a clone speaker with no voice_sample gets no invented path", async () => {
    const series = h3();
    series.audio.mode = "clone";
    series.subjects.ada.voice_sample = "refs/voices/ada_take2.wav";
    const ep = await s.folder({
      "series.json": series,
      "ep01.md": script("## sh010", "who: ada", "dur: 3", "MOM (V.O.): Hi.", "ADA: Hello."),
    });
    const body = await build(ep);
    expect(body.ok).toBe(true);
    expect((await shotlist(ep)).shots[0].voice_refs).toEqual([
      { subject: "mom", sample: "" },
      { subject: "ada", sample: "refs/voices/ada_take2.wav" },
    ]);
    const workOrder = JSON.parse(await readFile(path.join(ep, "refs_todo.json"), "utf8"));
    expect(workOrder.map((t: { path: string }) => t.path)).not.toContain("refs/voices/mom.wav");
    expect(workOrder.map((t: { path: string }) => t.path)).toContain("refs/voices/ada_take2.wav");
    expect(body.passes.final.report.warnings.join("\n")).toMatch(/sh010: .*mom has no voice_sample/);
  });
});

describe("the check report", () => {
  it("writes LoRA lists as name@weight", async () => {
    const series = seriesS();
    series.profiles = { soft: { loras: ["turbo_8step.safetensors", "soft.safetensors:0.6"], steps: 8 } };
    const ep = await s.folder({ "series.json": series, "ep01.md": ONE_SHOT });
    const text = script("## sh010", "profile: soft", "dur: 3", "Ada waits.");
    const { body } = await s.call("POST", "/source/check", { ep, file: "script", text });
    const messages = body.warnings.map((w: { message: string }) => w.message);
    expect(messages).toContain("sh010 overrides loras: turbo_8step.safetensors@1, soft.safetensors@0.6");
  });
});
