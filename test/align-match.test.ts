// Matching recognised words to dialogue lines, shots' windows, snapping to silence, and the report, on word lists.
import { describe, expect, it } from "vitest";
import { isFound, type LineMatch, matchLines, shotWindows, type Word } from "../lib/align/match.ts";
import { alignReport } from "../lib/align/report.ts";
import { type Envelope, silenceThreshold, snapEnd, snapStart } from "../lib/align/snap.ts";

const LINES = [
  { shot: "sh010", line: 5, text: "Is it on?" },
  { shot: "sh010", line: 6, text: "Put the kettle on, Ada." },
  { shot: "sh020", line: 10, text: "It's been on for an hour (beat) honestly." },
  { shot: "sh030", line: 14, text: "Then where is the colour of the steam?" },
];

/** Words spoken one after another from `at`, each 0.3 s with 0.05 s between; tokens are kept as given. */
function say(text: string, at: number): Word[] {
  return text
    .split(" ")
    .filter((w) => w !== "")
    .map((w, i) => ({ w, start: round(at + i * 0.35), end: round(at + i * 0.35 + 0.3) }));
}
const round = (t: number) => Math.round(t * 1000) / 1000;

function found(m: LineMatch) {
  if (!isFound(m)) throw new Error(`line ${m.line} not found`);
  return m;
}

describe("matchLines", () => {
  it("finds every line of an exact reading, with its span and full score", () => {
    const words = [
      ...say("is it on", 1),
      ...say("put the kettle on ada", 3),
      ...say("it's been on for an hour honestly", 6),
      ...say("then where is the colour of the steam", 10),
    ];
    const m = matchLines(LINES, words);
    expect(m.map((x) => found(x).start)).toEqual([1, 3, 6, 10]);
    expect(found(m[0])).toMatchObject({ end: 1.3 + 0.7, matched: 3, of: 3, score: 1, first: 0, last: 2 });
    expect(found(m[2])).toMatchObject({ matched: 7, of: 7, text: LINES[2].text });
  });

  it("tolerates recogniser spellings, alternates, silences and noises", () => {
    const words: Word[] = [
      { w: "<s>", start: 0, end: 0.5 },
      ...say("Is it(2) on", 1),
      { w: "<sil>", start: 2, end: 3 },
      ...say("put the kettel on [noise] Ada,", 3),
      ...say("its bean on for an hour honestly", 6),
      ...say("then ++breath++ where is the color of the steam", 10),
      { w: "</s>", start: 14, end: 14.1 },
    ];
    const m = matchLines(LINES, words);
    expect(m.every(isFound)).toBe(true);
    expect(found(m[1])).toMatchObject({ start: 3, matched: 5, of: 5 });
    expect(found(m[1]).score).toBeLessThan(1);
    expect(found(m[1]).score).toBeGreaterThan(0.9);
    expect(found(m[2]).start).toBe(6);
    expect(found(m[3])).toMatchObject({ start: 10, matched: 8 });
  });

  it("reports a line nobody said as missing and keeps the lines around it", () => {
    const words = [
      ...say("is it on", 1),
      ...say("it's been on for an hour honestly", 6),
      ...say("then where is the colour of the steam", 10),
    ];
    const m = matchLines(LINES, words);
    expect(m[1]).toMatchObject({ line: 6, missing: true, of: 5 });
    expect(m[1].matched).toBe(0);
    // Its "on" stays with the line before, which is whole.
    expect(found(m[0])).toMatchObject({ start: 1, matched: 3 });
    expect(found(m[2]).start).toBe(6);
    expect(found(m[3]).start).toBe(10);
  });

  it("skips ad-libs before, between and inside lines", () => {
    const words = [
      ...say("okay rolling", 0),
      ...say("is it on", 1),
      ...say("um right so", 2.2),
      ...say("put the uh kettle on ada", 3),
      ...say("it's been on for an hour honestly", 6),
      ...say("really", 8.6),
      ...say("then where is the colour of the steam", 10),
      ...say("cut thanks everyone", 14),
    ];
    const m = matchLines(LINES, words);
    expect(m.map((x) => [found(x).start, found(x).matched])).toEqual([
      [1, 3],
      [3, 5],
      [6, 7],
      [10, 8],
    ]);
    expect(found(m[1]).end).toBe(round(3 + 5 * 0.35 + 0.3));
    expect(found(m[3]).end).toBe(round(10 + 7 * 0.35 + 0.3));
  });

  it("takes the last take of a repeated line, whole or restarted", () => {
    const words = [
      ...say("is it on", 1),
      ...say("is it on", 2.5),
      ...say("put the", 4),
      ...say("put the kettle on ada", 5),
      ...say("it's been on for an hour honestly", 8),
      ...say("then where is the colour of the steam", 11),
    ];
    const m = matchLines(LINES, words);
    expect(found(m[0]).start).toBe(2.5);
    expect(found(m[1]).start).toBe(5);
    expect(found(m[1]).matched).toBe(5);
  });

  it("reads a line split across utterances as one", () => {
    const words = [
      ...say("is it on", 1),
      { w: "</s>", start: 2, end: 2 },
      { w: "<s>", start: 3, end: 3 },
      ...say("put the", 3),
      { w: "<sil>", start: 3.7, end: 5 },
      ...say("kettle on ada", 5),
      ...say("it's been on for an hour honestly", 7),
      ...say("then where is the colour of the steam", 10),
    ];
    const m = matchLines(LINES, words);
    expect(found(m[1])).toMatchObject({ start: 3, end: 5 + 0.7 + 0.3, matched: 5 });
  });

  it("gives every line missing when nothing was heard, and handles a line with no words", () => {
    const m = matchLines([...LINES, { shot: "sh040", line: 20, text: "..." }], []);
    expect(m.every((x) => !isFound(x))).toBe(true);
    expect(m[4]).toMatchObject({ missing: true, of: 0, matched: 0 });
  });
});

describe("a real recogniser's output", () => {
  // pocketsphinx_continuous -jsgf (grammar from these lines) -time yes, on three espeak-ng lines starting at
  // 1.00 s, 4.21 s and 7.33 s: three utterances, alternates, silences, and "Ada" not heard.
  const OUTPUT = `<sil> 0.880 1.000 1.000000
is 1.010 1.130 1.000000
the 1.140 1.260 1.000000
kettle 1.270 1.660 1.000000
on 1.670 1.810 1.000000
<sil> 1.820 2.850 1.000000
<sil> 4.090 4.200 1.000000
it 4.210 4.370 1.000000
has(2) 4.380 4.650 1.000000
been 4.660 4.820 1.000000
on(2) 4.830 4.990 1.000000
for(2) 5.000 5.150 1.000000
an(2) 5.160 5.210 1.000000
<sil> 5.220 5.260 1.000000
hour(2) 5.270 5.440 1.000000
<sil> 5.450 5.980 1.000000
<sil> 7.220 7.350 1.000000
then 7.360 7.560 1.000000
where 7.570 7.760 1.000000
is 7.770 7.890 1.000000
the 7.900 8.000 1.000000
steam 8.010 8.400 1.000000
<sil> 8.410 8.710 1.000000`;
  const words: Word[] = OUTPUT.split("\n").map((l) => {
    const [w, start, end] = l.split(" ");
    return { w, start: Number(start), end: Number(end) };
  });
  const lines = [
    { shot: "sh010", line: 4, text: "Is the kettle on, Ada?" },
    { shot: "sh020", line: 7, text: "It has been on for an hour." },
    { shot: "sh030", line: 10, text: "Then where is the steam?" },
  ];

  it("puts each shot's window within 0.15 s of its line's start", () => {
    const { changes, notes } = shotWindows(matchLines(lines, words), words, { snap: false });
    expect(changes).toEqual([
      { shot: "sh010", audio_in: 1.01, audio_out: 1.81, note: "" },
      { shot: "sh020", audio_in: 4.21, audio_out: 5.44, note: "" },
      { shot: "sh030", audio_in: 7.36, audio_out: 8.4, note: "" },
    ]);
    expect(notes).toEqual([]);
    expect(found(matchLines(lines, words)[0])).toMatchObject({ matched: 4, of: 5 });
  });
});

describe("shotWindows", () => {
  const words = [
    ...say("is it on", 1),
    ...say("put the kettle on ada", 3),
    ...say("it's been on for an hour honestly", 6),
    ...say("then where is the colour of the steam", 10),
  ];

  it("spans a shot from its first line's first word to its last line's last word, to 0.01 s", () => {
    const { changes, notes } = shotWindows(matchLines(LINES, words), words, { snap: false });
    expect(changes).toEqual([
      { shot: "sh010", audio_in: 1, audio_out: 4.7, note: "" },
      { shot: "sh020", audio_in: 6, audio_out: 8.4, note: "" },
      { shot: "sh030", audio_in: 10, audio_out: 12.75, note: "" },
    ]);
    expect(notes).toEqual([]);
  });

  it("notes a shot whose lines were not found, with no change, and a shot with one line missing", () => {
    const some = [...say("put the kettle on ada", 3), ...say("then where is the colour of the steam", 10)];
    const { changes, notes } = shotWindows(matchLines(LINES, some), some, { snap: false });
    expect(changes).toEqual([
      { shot: "sh010", audio_in: 3, audio_out: 4.7, note: "line 5 not found" },
      { shot: "sh030", audio_in: 10, audio_out: 12.75, note: "" },
    ]);
    expect(notes).toEqual(["sh020: line 10 not found in the recording; window left as it was"]);
  });

  it("snaps edges outward into the silence around the words, never into neighbouring words", () => {
    // 200 bins a second: sound from 0.95 s to 4.85 s (sh010), then from 5.9 s to 8.5 s (sh020), else silence.
    const peaks = new Uint8Array(200 * 14);
    const loud = (a: number, b: number) => peaks.fill(180, Math.round(a * 200), Math.round(b * 200));
    loud(0.95, 4.85);
    loud(5.9, 8.5);
    loud(9.5, 13); // starts more than 0.3 s before sh030's first word: out of reach
    const envelope: Envelope = { rate: 200, peaks };
    const { changes } = shotWindows(matchLines(LINES, words), words, { snap: true, envelope });
    expect(changes.map((c) => [c.shot, c.audio_in, c.audio_out])).toEqual([
      ["sh010", 0.95, 4.85],
      ["sh020", 5.9, 8.5],
      ["sh030", 10, 13],
    ]);
    // Without snap the envelope is not read.
    expect(shotWindows(matchLines(LINES, words), words, { snap: false, envelope }).changes[0].audio_in).toBe(
      1,
    );
  });

  it("stops at the neighbouring words even in loud audio", () => {
    const close = [...say("is it on", 1), ...say("put the kettle on ada", 2.1)];
    const envelope: Envelope = { rate: 200, peaks: new Uint8Array(200 * 5).fill(200) };
    envelope.peaks.fill(0, 0, 150); // silence up to 0.75 s, within reach of 1.0 s
    envelope.peaks.fill(0, 900); // silence from 4.5 s
    const { changes } = shotWindows(matchLines(LINES.slice(0, 2), close), close, { snap: true, envelope });
    expect(changes).toEqual([{ shot: "sh010", audio_in: 0.75, audio_out: 3.8, note: "" }]);
    const split = matchLines(
      [
        { shot: "a", line: 1, text: "is it on" },
        { shot: "b", line: 2, text: "put the kettle on ada" },
      ],
      close,
    );
    const two = shotWindows(split, close, { snap: true, envelope }).changes;
    // a ends at 2.0 where the next words start at 2.1: it may not pass 2.1; loud all the way, so it stays.
    expect(two[0]).toMatchObject({ audio_in: 0.75, audio_out: 2 });
    expect(two[1]).toMatchObject({ audio_in: 2.1, audio_out: 3.8 });
  });

  it("reaches over a line's first and last words the recogniser missed, across the pauses between them", () => {
    const lines = [{ shot: "a", line: 1, text: "Hello there, where is the kettle? On the stove." }];
    // Heard: "where is the kettle on" (1.3–3.0 s) only; "hello there" (0.6–1.2 s) and "the stove" (3.1–3.7 s)
    // were missed.
    const heard = say("where is the kettle on", 1.3);
    const [line] = matchLines(lines, heard);
    expect(line).toMatchObject({ unheardBefore: 2, unheardAfter: 2 });
    const peaks = new Uint8Array(200 * 5);
    const loud = (a: number, b: number) => peaks.fill(180, Math.round(a * 200), Math.round(b * 200));
    loud(0.6, 1.2); // hello there
    loud(1.3, 3.0); // where is the kettle on, after a 0.1 s pause as at a comma
    loud(3.1, 3.7); // the stove
    const envelope: Envelope = { rate: 200, peaks };
    const { changes } = shotWindows([line], heard, { snap: true, envelope });
    expect(changes).toEqual([{ shot: "a", audio_in: 0.6, audio_out: 3.7, note: "" }]);
    // A line heard whole stops at the first silence, as before.
    const whole = say("where is the kettle on", 1.3);
    const plain = matchLines([{ shot: "a", line: 1, text: "where is the kettle on" }], whole);
    expect(shotWindows(plain, whole, { snap: true, envelope }).changes[0].audio_in).toBe(1.3);
  });
});

describe("snap", () => {
  const env: Envelope = { rate: 100, peaks: new Uint8Array([0, 0, 0, 50, 90, 90, 90, 40, 2, 0]) };

  it("takes a tenth of the loud level as silence, at least 3", () => {
    expect(silenceThreshold(env)).toBe(9);
    expect(silenceThreshold({ rate: 100, peaks: new Uint8Array(10) })).toBe(3);
  });

  it("moves a start back to the sound's first bin and an end on to its last", () => {
    expect(snapStart(0.05, 0, env, 9)).toBe(0.03);
    expect(snapStart(0.015, 0, env, 9)).toBe(0.015); // already silent
    expect(snapStart(0.05, 0.04, env, 9)).toBe(0.05); // the words before end at 0.04
    expect(snapEnd(0.06, 10, env, 9)).toBe(0.08);
    expect(snapEnd(0.06, 0.075, env, 9)).toBe(0.06);
    expect(snapEnd(0.095, 10, env, 9)).toBe(0.095);
  });
});

describe("alignReport", () => {
  it("tabulates shots, lines, where they were heard and the windows before and after", () => {
    const some = [...say("is it on", 1), ...say("then where is the colour of the steam", 10)];
    const matches = matchLines(LINES, some);
    const { changes, notes } = shotWindows(matches, some, { snap: false });
    const text = alignReport({
      recording: "audio/take 1.wav",
      duration: 15.5,
      engine: "pocketsphinx",
      model: "en-us",
      words: some.length,
      matches,
      changes,
      notes,
      dryRun: true,
      before: { sh010: { audio_in: 0.5, audio_out: 2 }, sh020: { audio_in: 2, audio_out: 3 }, sh030: null },
    });
    expect(text).toBe(
      [
        "# Alignment report (dry run: nothing written)",
        "",
        "- recording: audio/take 1.wav (15.50 s)",
        "- engine: pocketsphinx (model en-us)",
        "- words recognised: 11",
        "- dialogue lines found: 2 of 4",
        "- shots with a new window: 2",
        "",
        "| shot | line | found at | window before → after | note |",
        "| --- | --- | --- | --- | --- |",
        "| sh010 | 5: Is it on? | 1.00–2.00 (3/3 words) | 0.50–2.00 → 1.00–2.00 | line 6 not found |",
        "|  | 6: Put the kettle on, Ada. | not found |  |  |",
        "| sh020 | 10: It's been on for an hour (beat) honestly. | not found | 2.00–3.00 (kept) |  |",
        "| sh030 | 14: Then where is the colour of the steam? | 10.00–12.75 (8/8 words) | none → 10.00–12.75 |  |",
        "",
        "## Notes",
        "",
        "- sh020: line 10 not found in the recording; window left as it was",
        "",
      ].join("\n"),
    );
  });

  it("shows only the new window when the old one is not given, and says when the script has no dialogue", () => {
    const words = say("is it on", 1);
    const matches = matchLines(LINES.slice(0, 1), words);
    const { changes, notes } = shotWindows(matches, words, { snap: false });
    const base = {
      recording: "audio/a.wav",
      duration: null,
      engine: "faster-whisper",
      model: null,
      words: 3,
      notes,
    };
    const text = alignReport({ ...base, matches, changes, dryRun: false });
    expect(text.split("\n")[0]).toBe("# Alignment report");
    expect(text).toContain("- recording: audio/a.wav\n- engine: faster-whisper\n");
    expect(text).toContain("| sh010 | 5: Is it on? | 1.00–2.00 (3/3 words) | 1.00–2.00 |  |");
    const none = alignReport({ ...base, matches: [], changes: [], dryRun: false });
    expect(none).toContain("| | no dialogue lines in the script | | | |");
    expect(none).not.toContain("## Notes");
  });
});
