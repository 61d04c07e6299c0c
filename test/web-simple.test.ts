// The Simple view's logic without a browser: a prompt written into a Simple project (its own sequence, location and
// shot; the same prompt again reuses the shot) builds for real, and one press's progress is read from the answer,
// the pictures' events, the jobs and the takes.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClipAnswer, clipProgress, refKey } from "../web/src/views/simple/clip-progress.ts";
import { addClip, promptLine } from "../web/src/views/simple/clip-script.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

describe("addClip", () => {
  const series = '{\n  "series": {"id": "c", "title": "C"},\n  "locations": {}\n}\n';

  it("adds a sequence on a location of its own and a shot whose action is the prompt", () => {
    const first = addClip("= clips  C\n", series, "  A fox\n runs.  ");
    expect(first).toMatchObject({ shot: "sh010", added: true });
    expect(first.script).toBe("= clips  C\n\n# sq01  clip010\n\n## sh010\ndur: 5\nA fox runs.\n");
    expect(JSON.parse(first.series).locations).toEqual({
      clip010: { description: "A fox runs.", plate: "refs/_bg/clip010.png" },
    });
    const second = addClip(first.script, first.series, "A boat drifts.");
    expect(second.shot).toBe("sh020");
    expect(second.script).toContain("# sq02  clip020\n\n## sh020\ndur: 5\nA boat drifts.\n");
    expect(Object.keys(JSON.parse(second.series).locations)).toEqual(["clip010", "clip020"]);
  });

  it("the same prompt as the last clip reuses its shot and changes nothing", () => {
    const first = addClip("= clips  C\n", series, "A fox runs.");
    const again = addClip(first.script, first.series, "A  fox runs.");
    expect(again).toEqual({ script: first.script, series: first.series, shot: "sh010", added: false });
  });

  it("refuses an empty prompt and a config that is not JSON, saying what to do", () => {
    expect(() => addClip("= c\n", series, " \n ")).toThrow(/Write what the clip shows/);
    expect(() => addClip("= c\n", "{", "A fox.")).toThrow(/not JSON/);
    expect(promptLine("## # = > shot")).toBe("shot");
  });
});

describe("addClip on a real Simple project", () => {
  let s: Studio;
  beforeAll(async () => {
    s = await makeStudio();
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it("writes texts the service saves and builds, with the prompt as the shot's action", async () => {
    const ep = ((await s.call("POST", "/clips/ensure", {})).body as Any).ep as string;
    let shot = "";
    for (const prompt of ["A red fox runs across the snow.", "Rain falls on a tin roof."]) {
      const [script, seriesText] = await Promise.all(
        ["script", "series"].map(async (file) => (await s.call("GET", "/source", { ep, file })).body as Any),
      );
      const edit = addClip(script.text, seriesText.text, prompt);
      shot = edit.shot;
      const a = await s.call("PUT", "/source", {
        ep,
        file: "series",
        text: edit.series,
        base_hash: seriesText.hash,
        rebuild: false,
      });
      expect(a.status).toBe(200);
      const b = await s.call("PUT", "/source", {
        ep,
        file: "script",
        text: edit.script,
        base_hash: script.hash,
      });
      expect(b.status).toBe(200);
      expect((b.body as Any).build.ok).toBe(true);
    }
    expect(shot).toBe("sh020");
    const status = (await s.call("GET", "/episode", { ep, pass: "proxy" })).body as Any;
    expect(status.shots.map((x: Any) => [x.shot, x.action])).toEqual([
      ["sh010", "A red fox runs across the snow."],
      ["sh020", "Rain falls on a tin roof."],
    ]);
    const config = JSON.parse(await readFile(path.join(path.dirname(ep), "series.json"), "utf8"));
    expect(config.simple).toBe(true);
    expect(config.locations.clip020.description).toBe("Rain falls on a tin roof.");
  });
});

describe("clipProgress", () => {
  const answer: ClipAnswer = {
    refs: [
      {
        ref: "location:clip010",
        kind: "location",
        state: "queued",
        takes: [{ view: null, take: 1, prompt_id: "j_a" }],
        errors: [],
      },
      {
        ref: "shot:sh010:first",
        kind: "keyframe",
        state: "queued",
        takes: [{ view: null, take: 2, prompt_id: "j_b" }],
        errors: [],
      },
    ],
    waiting_on: ["j_a", "j_b"],
    step: "j_step",
    renders: [],
    stills: [],
  };
  const base = { answer, jobs: [], takes: [], since: 0, ep: "/r/C/clips", shot: "sh010" };

  it("counts the pictures made from their events", () => {
    const none = clipProgress({ ...base, refStatus: new Map() });
    expect(none).toMatchObject({ stage: "pictures", share: 0, text: "Making the pictures it needs: 0 of 2" });
    const one = clipProgress({
      ...base,
      refStatus: new Map([[refKey("location:clip010", null, 1), "picked"]]),
    });
    expect(one).toMatchObject({ stage: "pictures", share: 0.5 });
    const all = clipProgress({
      ...base,
      refStatus: new Map([
        [refKey("location:clip010", null, 1), "ok"],
        [refKey("shot:sh010:first", null, 2), "failed"],
      ]),
    });
    expect(all.stage).toBe("waiting");
  });

  it("follows the render job, then plays the newest finished take made since the press", () => {
    const job = {
      id: "j_r",
      kind: "render",
      status: "running",
      progress: 0.4,
      error: null,
      info: { ep: base.ep, shot: "sh010", take: 3 },
    };
    const old = { take: 2, status: "ok", mp4: "renders_proxy/sh010/sh010_t02.mp4", save_notes: null };
    const rendering = clipProgress({
      ...base,
      refStatus: new Map(),
      since: 2,
      jobs: [job],
      takes: [old, { take: 3, status: "queued", mp4: null, save_notes: null }],
    });
    expect(rendering).toMatchObject({
      stage: "rendering",
      share: 0.4,
      clip: null,
      text: "Rendering the clip",
    });
    const done = { take: 3, status: "ok", mp4: "renders_proxy/sh010/sh010_t03.mp4", save_notes: null };
    const ready = clipProgress({ ...base, refStatus: new Map(), since: 2, takes: [old, done] });
    expect(ready).toMatchObject({ stage: "ready", clip: done });
  });

  it("shows the service's reason when the step or the render failed", () => {
    const step = {
      id: "j_next",
      kind: "step",
      status: "failed",
      progress: 0,
      error: "sh010 was not queued: backend local is not set up",
      info: { step: "j_step" },
    };
    const failed = clipProgress({ ...base, refStatus: new Map(), jobs: [step] });
    expect(failed).toMatchObject({
      stage: "failed",
      error: "sh010 was not queued: backend local is not set up",
    });
    const take = { take: 1, status: "failed", mp4: null, save_notes: "ffmpeg exited 1" };
    const render = clipProgress({
      ...base,
      answer: { ...answer, refs: [] },
      refStatus: new Map(),
      takes: [take],
    });
    expect(render).toMatchObject({ stage: "failed", error: "ffmpeg exited 1" });
    const refused = clipProgress({
      ...base,
      answer: {
        ...answer,
        refs: [{ ...answer.refs[0], errors: [{ view: null, error: "no such target" }] }],
      },
      refStatus: new Map(),
    });
    expect(refused.error).toBe("location:clip010: no such target");
  });
});
