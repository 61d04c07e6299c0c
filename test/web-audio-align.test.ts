// The Align panel's progress, change rows and readiness words; the voice-from-take span rules.
import { describe, expect, it } from "vitest";
import {
  type AlignEvent,
  type AlignReady,
  alignEventOf,
  alignPct,
  changeRows,
  readyText,
  stageRows,
  takesModel,
} from "../web/src/views/cut/align-model.ts";
import {
  defaultSpan,
  spanProblem,
  takeLength,
  voiceChoices,
  voiceFromTakeBody,
} from "../web/src/views/shots/voice-span.ts";

const ev = (stage: AlignEvent["stage"], pct: number, text = ""): AlignEvent => ({
  ep: "/e",
  stage,
  pct,
  text,
});

describe("align progress", () => {
  it("keeps only this episode's well-formed events", () => {
    expect(alignEventOf({ ep: "/e", stage: "match", pct: 65, text: "x" }, "/e")).toEqual(
      ev("match", 65, "x"),
    );
    expect(alignEventOf({ ep: "/other", stage: "match", pct: 65 }, "/e")).toBeNull();
    expect(alignEventOf({ ep: "/e", stage: "nap", pct: 65 }, "/e")).toBeNull();
    expect(alignEventOf(null, "/e")).toBeNull();
  });

  it("runs the newest stage, finishes the earlier ones, waits the later ones", () => {
    expect(stageRows([], false).map((r) => r.state)).toEqual(["waiting", "waiting", "waiting"]);
    const two = [ev("transcribe", 10, "transcribing"), ev("match", 65, "matching 3 lines")];
    expect(stageRows(two, false).map((r) => [r.state, r.text])).toEqual([
      ["done", "transcribing"],
      ["running", "matching 3 lines"],
      ["waiting", ""],
    ]);
    expect(alignPct(two)).toBe(65);
    const all = [...two, ev("write", 90), ev("write", 100, "dry run — nothing written")];
    expect(stageRows(all, false).map((r) => r.state)).toEqual(["done", "done", "done"]);
    expect(stageRows(all, false)[2].text).toBe("dry run — nothing written");
    // The answer came: the stages reached are done.
    expect(stageRows(two, true).map((r) => r.state)).toEqual(["done", "done", "waiting"]);
  });

  it("sets each change beside the window before", () => {
    const before = new Map([
      ["sh010", { audio_in: 1, audio_out: 2 }],
      ["sh020", { audio_in: null, audio_out: null }],
    ]);
    expect(
      changeRows(
        [
          { shot: "sh010", audio_in: 1.25, audio_out: 2.5, note: null },
          { shot: "sh020", audio_in: 3, audio_out: 4, note: "snapped" },
          { shot: "sh030", audio_in: null, audio_out: null, note: "line not found" },
        ],
        before,
      ),
    ).toEqual([
      { shot: "sh010", before: "1.00–2.00", after: "1.25–2.50", shift: 0.25, note: "" },
      { shot: "sh020", before: "–", after: "3.00–4.00", shift: null, note: "snapped" },
      { shot: "sh030", before: "–", after: "–", shift: null, note: "line not found" },
    ]);
  });

  const ready: AlignReady = {
    ready: true,
    ffmpeg: "/usr/bin/ffmpeg",
    missing: [],
    python: null,
    install: "",
    models: { default: "medium.en", choices: ["small.en", "medium.en"] },
    engine: "pocketsphinx",
    program: "/usr/bin/pocketsphinx_continuous",
  };

  it("names the engine that runs, or what is missing and the commands to add it", () => {
    expect(readyText(ready)).toEqual({
      engine: "pocketsphinx (/usr/bin/pocketsphinx_continuous)",
      missing: null,
      commands: [],
    });
    const not: AlignReady = {
      ...ready,
      ready: false,
      ffmpeg: null,
      engine: null,
      program: null,
      missing: ["ffmpeg", "numpy", "faster-whisper"],
      install: "python3 -m pip install numpy faster-whisper",
      apt: "apt-get install pocketsphinx pocketsphinx-en-us",
      ffmpeg_hint: "install ffmpeg",
    };
    expect(readyText(not)).toEqual({
      engine: null,
      missing: "ffmpeg, numpy, faster-whisper",
      commands: [
        "python3 -m pip install numpy faster-whisper",
        "apt-get install pocketsphinx pocketsphinx-en-us",
        "install ffmpeg",
      ],
    });
  });

  it("offers a model only to a whisper engine", () => {
    expect(takesModel(ready)).toBe(false);
    expect(takesModel({ ...ready, engine: "faster-whisper" })).toBe(true);
    expect(takesModel(null)).toBe(false);
  });
});

describe("voice from a take", () => {
  it("lists voices, the shot's own characters first", () => {
    const refs = [
      { id: "series:voice:bob", kind: "voice", name: "Bob", subject: "bob" },
      { id: "series:char:ann", kind: "character", name: "Ann", subject: "ann" },
      { id: "series:voice:ann", kind: "voice", name: "Ann", subject: "ann" },
    ];
    expect(voiceChoices(refs, ["ann"]).map((v) => [v.id, v.inShot])).toEqual([
      ["series:voice:ann", true],
      ["series:voice:bob", false],
    ]);
  });

  it("cuts the whole take by default, at most 30 s", () => {
    expect(takeLength({ frames: 97, fps: 24 })).toBeCloseTo(4.0417, 3);
    expect(takeLength({ frames: null, fps: 24 })).toBeNull();
    expect(defaultSpan(4.041666)).toEqual({ start: 0, end: 4.04 });
    expect(defaultSpan(95)).toEqual({ start: 0, end: 30 });
    expect(defaultSpan(null)).toEqual({ start: 0, end: 30 });
  });

  it("says why the service would refuse a span", () => {
    expect(spanProblem(0, 4, 4)).toBeNull();
    expect(spanProblem(1, 1.1, 4)).toMatch(/at least 0.2/);
    expect(spanProblem(0, 31, 40)).toMatch(/at most 30/);
    expect(spanProblem(5, 6, 4)).toMatch(/inside the take/);
    expect(spanProblem(-1, 2, 4)).toMatch(/0 or later/);
    expect(spanProblem(Number.NaN, 2, 4)).toMatch(/numbers/);
  });

  it("asks with pick true, false or null", () => {
    const at = { ep: "/e", shot: "sh010", take: 2, pass: "proxy" };
    expect(voiceFromTakeBody(at, "series:voice:ann", 0.123, 3.456, "auto")).toEqual({
      ...at,
      ref: "series:voice:ann",
      start: 0.12,
      end: 3.46,
      pick: null,
    });
    expect(voiceFromTakeBody(at, "r", 0, 1, "yes").pick).toBe(true);
    expect(voiceFromTakeBody(at, "r", 0, 1, "no").pick).toBe(false);
  });
});
