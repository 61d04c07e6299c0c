// The animatic's caption plan as pure functions: beats in script order from the parser, speaker marks, each beat's
// stretch of the shot and the lines spoken over theirs.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  captionPlan,
  lineSeconds,
  type PlannedBeat,
  shotBeats,
  titleLine,
} from "../lib/engines/builtin/caption-plan.ts";
import { parseScript } from "../lib/script/parse.ts";
import type { Shot } from "../lib/script/types.ts";
import { loadSeries } from "../lib/series/load.ts";

const starter = path.join(import.meta.dirname, "..", "lib", "episode", "starter");

async function starterShots(): Promise<Map<string, Shot>> {
  const series = loadSeries(await readFile(path.join(starter, "series.json"), "utf8"));
  const { story } = parseScript(await readFile(path.join(starter, "starter.md"), "utf8"), series);
  return new Map(story.sequences.flatMap((s) => s.shots.map((x) => [x.id, x] as const)));
}

const names: Record<string, string> = { riley: "Riley", mom: "Mom" };
const nameOf = (id: string) => names[id] ?? id;

describe("beats in script order", () => {
  it("puts the starter's action after the line it follows, and first where it comes first", async () => {
    const shots = await starterShots();
    const sh020 = shots.get("sh020")!;
    expect(sh020.beats).toEqual([{ line: 0 }, { action: "He points off down the street, eyes wide." }]);
    expect(shotBeats(sh020, nameOf).map((b) => b.kind)).toEqual(["line", "action"]);
    // An action-only shot and a shot whose action comes first carry no beats: action first is the default.
    expect(shots.get("sh010")!.beats).toBeUndefined();
    expect(shotBeats(shots.get("sh010")!, nameOf)).toEqual([
      {
        kind: "action",
        text: "Riley bursts out of the garden gate, the backpack bouncing on his shoulders.",
      },
    ]);
  });

  it("marks a line not said on screen and names the speaker in capitals", async () => {
    const shots = await starterShots();
    const plan = captionPlan(shotBeats(shots.get("sh030")!, nameOf), 2.33);
    expect(plan.captions.map((c) => [c.kind, c.text])).toEqual([
      ["line", "MOM (V.O.): Dinner in ten minutes!"],
      ["action", "Riley freezes mid-step, then grins and keeps going."],
    ]);
    const os = captionPlan([{ kind: "line", speaker: "ada", name: "Ada", mode: "os", text: "Here!" }], 2);
    expect(os.captions[0].text).toBe("ADA (O.S.): Here!");
  });

  it("reads action before lines when the parser wrote no beats (older shot lists)", () => {
    const shot = {
      action: "Ada waits.",
      dialogue: [{ speaker: "ada", mode: "on" as const, delivery: "", line: "Well?" }],
    };
    expect(shotBeats(shot, nameOf).map((b) => b.text)).toEqual(["Ada waits.", "Well?"]);
  });
});

describe("caption timing", () => {
  const line = (text: string): PlannedBeat => ({
    kind: "line",
    speaker: "riley",
    name: "Riley",
    mode: "on",
    text,
  });
  const action = (text: string): PlannedBeat => ({ kind: "action", text });

  it("gives a line the time to say it and the action the rest, back to back over the whole shot", () => {
    const said = "There's gold at the end of the path.";
    const { captions, spoken } = captionPlan([line(said), action("He points.")], 5);
    expect(captions[0]).toMatchObject({ kind: "line", start: 0 });
    expect(captions[0].end).toBeCloseTo(lineSeconds(said), 6);
    expect(captions[1]).toMatchObject({ kind: "action", start: captions[0].end, end: 5 });
    expect(spoken).toEqual([{ speaker: "riley", text: said, start: 0, end: captions[0].end }]);
  });

  it("keeps a line's time in a short shot, the action at least a third of it, in order and without gaps", () => {
    const said = "Dinner in ten minutes!";
    const { captions, spoken } = captionPlan(
      [line(said), action("Riley freezes mid-step, then grins.")],
      2.33,
    );
    expect(captions.map((c) => c.kind)).toEqual(["line", "action"]);
    // The line needs ~1.74 s; the action keeps a third of the shot, so the line gets the other two.
    expect(lineSeconds(said)).toBeGreaterThan((2.33 * 2) / 3);
    expect(spoken[0].end).toBeCloseTo((2.33 * 2) / 3, 6);
    expect(captions[1]).toMatchObject({ start: spoken[0].end, end: 2.33 });
    // Lines longer than the shot: the action keeps a third, the lines share the rest by length.
    const beats = [action("Riley runs."), line("Wait for me, I am coming too, wait!"), line("Now!")];
    const short = captionPlan(beats, 1.5);
    expect(short.captions.map((c) => c.kind)).toEqual(["action", "line", "line"]);
    expect(short.captions[0]).toMatchObject({ start: 0 });
    expect(short.captions[0].end).toBeCloseTo(0.5, 6);
    for (let i = 1; i < short.captions.length; i++)
      expect(short.captions[i].start).toBe(short.captions[i - 1].end);
    expect(short.captions.at(-1)!.end).toBe(1.5);
    expect(short.spoken[0].end - short.spoken[0].start).toBeGreaterThan(
      short.spoken[1].end - short.spoken[1].start,
    );
  });

  it("lets lines share the spare time when the shot has no action", () => {
    const { captions } = captionPlan([line("Hi."), line("Hello there, friend.")], 6);
    expect(captions[1].end).toBe(6);
    expect(captions[0].end - captions[0].start).toBeGreaterThan(lineSeconds("Hi."));
  });

  it("plans nothing for an empty shot or no time", () => {
    expect(captionPlan([], 3)).toEqual({ captions: [], spoken: [] });
    expect(captionPlan([action("x")], 0)).toEqual({ captions: [], spoken: [] });
  });
});

describe("title line", () => {
  it("joins shot, location, size and camera, leaving out what is not there", () => {
    expect(
      titleLine({ shot: "sh010", location: "street", size: "wide shot", camera: "drifts  slowly" }),
    ).toBe("sh010 · street · wide shot · drifts slowly");
    expect(titleLine({ shot: "sh040", location: "kitchen", size: null, camera: null })).toBe(
      "sh040 · kitchen",
    );
    // Short sizes are abbreviations, written in capitals; a longer word stays as written.
    expect(titleLine({ shot: "sh010", location: "street", size: "ws" })).toBe("sh010 · street · WS");
    expect(titleLine({ shot: "sh020", size: "cowboy" })).toBe("sh020 · cowboy");
  });
});
