// The whole alignment for real: three dialogue lines spoken by espeak-ng, joined with known gaps by ffmpeg into the
// recording, set as the episode's track (POST /studio/track), then POST /studio/align with a real worker pool and
// PocketSphinx: the windows written back near the known line starts, the report, the history copy, the rebuild,
// the events, the words cache; a dry run that writes nothing; and every refusal of the route.
import { chmod, copyFile, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audioWindowOf } from "../lib/align/script-windows.ts";
import { wordsCachePath } from "../lib/align/words-cache.ts";
import { refusal } from "./support/call.ts";
import { type DialogueStudio, dialogueStudio, LINES } from "./support/espeak-dialogue.ts";
import type { Studio } from "./support/studio-episode.ts";

let dialogue: DialogueStudio;
let s: Studio;
let ep: string;
/** Where each line's speech starts in the recording, seconds. */
let starts: number[];

beforeAll(async () => {
  dialogue = await dialogueStudio();
  ({ s, ep, starts } = dialogue);
}, 120_000);

afterAll(async () => {
  await dialogue?.stop();
});

const script = () => readFile(path.join(ep, "ep01.md"), "utf8");
const alignEvents = () => s.env.events.filter((e) => e.type === "studio.align").map((e) => e.data);

const stages = () => alignEvents().map((d) => [(d as { stage: string }).stage, (d as { pct: number }).pct]);
const STAGES = [
  ["transcribe", 10],
  ["match", 65],
  ["write", 90],
  ["write", 100],
];

describe("POST /studio/align with PocketSphinx", () => {
  it("a dry run answers the windows and writes and emits nothing but its progress", async () => {
    const before = await script();
    s.env.events.length = 0;
    const res = await s.call("POST", "/align", { ep, dry_run: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      dry_run: true,
      report_path: null,
      series_hash: null,
      build: null,
    });
    expect(res.body.changes.map((c: { shot: string }) => c.shot)).toEqual(["sh010", "sh020", "sh030"]);
    expect(res.body.report).toMatch(/dry run/);
    expect(await script()).toBe(before);
    expect(await stat(path.join(ep, "align_report.md")).catch(() => null)).toBeNull();
    expect(await stat(wordsCachePath(path.join(ep, "audio", "dialogue.wav"))).catch(() => null)).toBeNull();
    expect(s.env.events.filter((e) => !e.type.startsWith("studio.job")).map((e) => e.type)).toEqual(
      STAGES.map(() => "studio.align"),
    );
    expect(stages()).toEqual(STAGES);
    expect(alignEvents().at(-1)).toEqual({ ep, stage: "write", pct: 100, text: "dry run — nothing written" });
  }, 120_000);

  it("writes each shot's window near its line's start, the report, a history copy, the words; rebuilds", async () => {
    s.env.events.length = 0;
    const res = await s.call("POST", "/align", { ep });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({
      ok: true,
      dry_run: false,
      report_path: "align_report.md",
      recording: "audio/dialogue.wav",
    });
    expect(body.words).toBeGreaterThan(10);
    expect(typeof body.script_hash).toBe("string");
    expect(typeof body.series_hash).toBe("string");
    expect(body.build).not.toBeNull();
    expect(body.track).toMatchObject({ path: "audio/dialogue.wav", exists: true, aligned: 3 });
    const text = await script();
    for (const [i, l] of LINES.entries()) {
      const w = audioWindowOf(text, l.shot);
      expect(w, `${l.shot} window`).not.toBeNull();
      expect(
        Math.abs((w?.audio_in ?? -1) - starts[i]),
        `${l.shot}: ${w?.audio_in} vs ${starts[i]}`,
      ).toBeLessThan(0.15);
      expect(w?.audio_out ?? 0).toBeGreaterThan(w?.audio_in ?? 0);
    }
    expect(await readFile(path.join(ep, "align_report.md"), "utf8")).toBe(body.report);
    expect((await readdir(path.join(ep, "_history"))).some((n) => n.startsWith("ep01.md."))).toBe(true);
    const cache = JSON.parse(await readFile(wordsCachePath(path.join(ep, "audio", "dialogue.wav")), "utf8"));
    expect(cache).toMatchObject({ version: 1, engine: "pocketsphinx", model: "en-us" });
    expect(cache.words.length).toBe(body.words);
    expect(stages()).toEqual(STAGES);
    expect(s.env.events.some((e) => e.type === "studio.episode")).toBe(true);
    // The built shot list carries the windows.
    const episode = await s.call("GET", "/episode", { ep, pass: "proxy" });
    const rows = episode.body.shots as { id: string; audio_in?: number }[];
    expect(rows.filter((r) => typeof r.audio_in === "number").length).toBe(3);
  }, 120_000);

  it("reuses the words beside the recording on a second run", async () => {
    const res = await s.call("POST", "/align", { ep, dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body.log).toMatch(/words from dialogue\.wav\.words\.json/);
  }, 60_000);

  it("refuses bad fields, an escaping or missing track, before queueing", async () => {
    refusal(await s.call("POST", "/align", { ep, model: "" }), 400, /model/);
    refusal(await s.call("POST", "/align", { ep, snap: "yes" }), 400, /snap/);
    refusal(await s.call("POST", "/align", { ep, dry_run: 1 }), 400, /dry_run/);
    refusal(await s.call("POST", "/align", { ep, track: 5 }), 400, /track/);
    refusal(await s.call("POST", "/align", { ep, track: "../../../etc/passwd" }), 400, /track/);
    refusal(await s.call("POST", "/align", { ep, track: "/etc/passwd" }), 400, /track/);
    refusal(await s.call("POST", "/align", { ep, track: "audio/none.wav" }), 404, /track/);
    refusal(await s.call("POST", "/align", { ep: path.join(s.root, "nope") }), 404, /./);
  });

  it("is 409 with what is missing when no aligner can run", async () => {
    const saved = { ...s.env.services.env };
    try {
      s.env.services.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
      const res = await s.call("POST", "/align", { ep });
      refusal(res, 409, /ffmpeg/, ["missing", "install", "python", "ffmpeg", "words"]);
      expect(res.body.missing[0]).toBe("ffmpeg");
      expect(res.body.ffmpeg).toBeNull();
      expect(res.body.words).toBeGreaterThan(0);
    } finally {
      s.env.services.env.FFMPEG_PATH = saved.FFMPEG_PATH;
    }
  });

  it("answers 500 with the aligner's last !! line and its log when it fails", async () => {
    const py = path.join(s.env.dir, "broken-python");
    await writeFile(
      py,
      `#!/bin/sh\ncase "$2" in *H3PIPE_ALIGN_PROBE*) echo 'H3PIPE_ALIGN_PROBE {"numpy": "1", "faster-whisper": "1", "openai-whisper": null}'; exit 0;; esac\necho "loading" >&2\necho "!! ValueError: model nope not found" >&2\nexit 1\n`,
    );
    await chmod(py, 0o755);
    // A second recording, with no words beside it, so the recogniser has to run.
    await copyFile(path.join(ep, "audio", "dialogue.wav"), path.join(ep, "audio", "other.wav"));
    s.env.services.env.H3PIPE_ALIGN_PYTHON = py;
    try {
      const res = await s.call("POST", "/align", {
        ep,
        track: "audio/other.wav",
        model: "nope",
        dry_run: true,
      });
      refusal(res, 500, "broken-python: ValueError: model nope not found", ["log"]);
      expect(res.body.log).toMatch(/loading/);
    } finally {
      delete s.env.services.env.H3PIPE_ALIGN_PYTHON;
    }
  }, 60_000);
});
