// Recordings and the series track at the library level: names kept, placing a file (copy, same bytes reused,
// other bytes numbered, in place, nothing half-written left), and the series config's `audio.track`/`audio.mode`
// edit with the mode remembered in overrides.json and restored, history copy, BOM and CRLF kept, reformatting
// said, invalid JSON refused with nothing written.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeWordsCache } from "../lib/align/words-cache.ts";
import { numberedName, placeRecording, recordingName } from "../lib/audio/recording.ts";
import { setSeriesTrack, trackFacts } from "../lib/audio/track.ts";
import { StudioError } from "../lib/errors.ts";
import { rootsFence } from "../lib/paths/guarded.ts";
import { copyFrom } from "../lib/refs/takes.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();

async function refusal(work: Promise<unknown>): Promise<StudioError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StudioError);
  return err as StudioError;
}

describe("recording names", () => {
  it("keeps the allowed characters, replaces the others, drops leading dots", () => {
    expect(recordingName("take one (b).WAV")).toBe("take one (b).WAV");
    expect(recordingName("dir/sub\\épisode#1.mp3")).toBe("_pisode_1.mp3");
    expect(recordingName("..hidden.ogg")).toBe("hidden.ogg");
  });

  it("stays within 120 characters, extension kept", () => {
    const name = recordingName(`${"a".repeat(300)}.flac`);
    expect(name.length).toBe(120);
    expect(name.endsWith(".flac")).toBe(true);
    expect(numberedName(name, 12).length).toBe(120);
    expect(numberedName(name, 12).endsWith("-12.flac")).toBe(true);
    expect(numberedName("a.wav", 2)).toBe("a-2.wav");
  });

  it("refuses another extension and a name that is only an extension", async () => {
    for (const bad of ["a.txt", "a", "a.wav.png"]) {
      expect(() => recordingName(bad)).toThrow(/not a recording/);
    }
    for (const bad of [".wav", "...mp3", " .opus"]) {
      expect(() => recordingName(bad)).toThrow(/only an extension/);
    }
  });
});

describe("placeRecording", () => {
  const services = () => s.env.services;

  async function source(dir: string, name: string, bytes: string) {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return { name, real: file, fill: copyFrom(rootsFence([s.root]), file) };
  }

  it("copies into audio/, reuses the same bytes, numbers other bytes", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const elsewhere = path.join(path.dirname(ep), "takes");
    const a = await placeRecording(services(), ep, await source(elsewhere, "line 1?.wav", "AAAA"));
    expect(a).toMatchObject({ path: "audio/line 1_.wav", copied: true, reused: false });
    expect(await readFile(path.join(ep, "audio", "line 1_.wav"), "utf8")).toBe("AAAA");

    const again = await placeRecording(services(), ep, await source(elsewhere, "line 1?.wav", "AAAA"));
    expect(again).toMatchObject({ path: "audio/line 1_.wav", copied: true, reused: true });

    const other = await placeRecording(services(), ep, await source(elsewhere, "line 1?.wav", "BBBB"));
    expect(other.path).toBe("audio/line 1_-2.wav");
    const same = await placeRecording(services(), ep, await source(elsewhere, "line 1?.wav", "BBBB"));
    expect(same).toMatchObject({ path: "audio/line 1_-2.wav", reused: true });
    // Same size, other bytes: a third name.
    const third = await placeRecording(services(), ep, await source(elsewhere, "line 1?.wav", "CCCC"));
    expect(third.path).toBe("audio/line 1_-3.wav");
    // No temporary left behind.
    expect((await readdir(path.join(ep, "audio"))).sort()).toEqual([
      "line 1_-2.wav",
      "line 1_-3.wav",
      "line 1_.wav",
    ]);
  });

  it("uses a file inside the episode where it is", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const src = await source(path.join(ep, "sound"), "mix.m4a", "M");
    const placed = await placeRecording(services(), ep, src);
    expect(placed).toEqual({ abs: src.real, path: "sound/mix.m4a", copied: false, reused: false });
    await expect(readdir(path.join(ep, "audio"))).rejects.toThrow();
  });

  it("two concurrent imports of one name with other bytes get two names", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const dir = path.join(path.dirname(ep), "two");
    const [x, y] = await Promise.all([
      placeRecording(services(), ep, await source(path.join(dir, "x"), "v.wav", "XX")),
      placeRecording(services(), ep, await source(path.join(dir, "y"), "v.wav", "YY")),
    ]);
    expect([x.path, y.path].sort()).toEqual(["audio/v-2.wav", "audio/v.wav"]);
  });
});

describe("setSeriesTrack", () => {
  const services = () => s.env.services;
  const config = (ep: string) => path.join(ep, "series.json");
  const overrides = async (ep: string) =>
    JSON.parse(await readFile(path.join(ep, "overrides.json"), "utf8").catch(() => "{}"));

  it("sets the track and source_track, remembers the mode, restores it on clear", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const edit = await setSeriesTrack(services(), ep, "audio/mix.wav");
    expect(edit).toMatchObject({ changed: true, reformatted: false });
    const after = JSON.parse(await readFile(config(ep), "utf8"));
    expect(after.audio).toEqual({ mode: "source_track", track: "audio/mix.wav" });
    expect((await overrides(ep)).audio).toEqual({ mode_before_track: "generate" });
    expect(await readdir(path.join(ep, "_history"))).toHaveLength(1);

    // Replacing the track keeps the first remembered mode.
    await setSeriesTrack(services(), ep, "audio/mix-2.wav");
    expect((await overrides(ep)).audio).toEqual({ mode_before_track: "generate" });

    // The same track again changes nothing.
    const same = await setSeriesTrack(services(), ep, "audio/mix-2.wav");
    expect(same.changed).toBe(false);
    expect(await readdir(path.join(ep, "_history"))).toHaveLength(2);

    const cleared = await setSeriesTrack(services(), ep, null);
    expect(cleared.changed).toBe(true);
    expect(JSON.parse(await readFile(config(ep), "utf8")).audio).toEqual({ mode: "generate" });
    expect((await overrides(ep)).audio).toBeUndefined();
  });

  it("a config with no mode gets its mode key removed on clear; nothing remembered clears to generate", async () => {
    const series = seriesS();
    delete series.audio;
    const ep = await s.episode(SCRIPT, { build: false, series });
    await setSeriesTrack(services(), ep, "audio/a.wav");
    expect((await overrides(ep)).audio).toEqual({ mode_before_track: "" });
    await setSeriesTrack(services(), ep, null);
    expect(JSON.parse(await readFile(config(ep), "utf8")).audio).toBeUndefined();

    await setSeriesTrack(services(), ep, "audio/a.wav");
    await writeFile(path.join(ep, "overrides.json"), "{}\n");
    await setSeriesTrack(services(), ep, null);
    expect(JSON.parse(await readFile(config(ep), "utf8")).audio).toEqual({ mode: "generate" });
  });

  it("keeps BOM and CRLF, says when it reformatted", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    const compact = JSON.stringify(seriesS());
    await writeFile(config(ep), `\ufeff${compact}\r\n`);
    const edit = await setSeriesTrack(services(), ep, "audio/a.wav");
    expect(edit.reformatted).toBe(true);
    const bytes = await readFile(config(ep));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const text = bytes.subarray(3).toString("utf8");
    expect(text).toContain('\r\n  "series": {');
    expect(text.endsWith("}\r\n")).toBe(true);
    const history = await readdir(path.join(ep, "_history"));
    expect(await readFile(path.join(ep, "_history", history[0]), "utf8")).toBe(`\ufeff${compact}\r\n`);
    // Now in the editor's layout: the next edit is not a reformatting.
    expect((await setSeriesTrack(services(), ep, null)).reformatted).toBe(false);
  });

  it("refuses a config that is not JSON and writes nothing", async () => {
    const ep = await s.episode(SCRIPT, { build: false });
    await writeFile(config(ep), '{"series": {,}\n');
    const err = await refusal(setSeriesTrack(services(), ep, "audio/a.wav"));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/not valid JSON/);
    expect(await readFile(config(ep), "utf8")).toBe('{"series": {,}\n');
    await expect(readdir(path.join(ep, "_history"))).rejects.toThrow();
    await expect(readFile(path.join(ep, "overrides.json"))).rejects.toThrow();
  });

  it("writes the path relative to a parent config's folder", async () => {
    const show = await s.show();
    const ep = path.join(show, "ep07");
    await mkdir(ep);
    await writeFile(path.join(show, "series.json"), `${JSON.stringify(seriesS(), null, 2)}\n`);
    await writeFile(path.join(ep, "ep07.md"), SCRIPT);
    await setSeriesTrack(services(), ep, "audio/a.wav");
    const after = JSON.parse(await readFile(path.join(show, "series.json"), "utf8"));
    expect(after.audio.track).toBe("ep07/audio/a.wav");
    const facts = await trackFacts(services(), ep, "proxy");
    expect(facts).toMatchObject({ path: "audio/a.wav", exists: false, duration: null, words: 0 });
  });
});

describe("trackFacts", () => {
  it("probes the recording, counts cached words and windowed shots", async () => {
    const ep = await s.episode(SCRIPT.replace("dur: 3", "audio: 0.5-2.5"));
    expect(await trackFacts(s.env.services, ep, "proxy")).toBeNull();
    const wav = path.join(ep, "audio", "mix.wav");
    await mkdir(path.dirname(wav), { recursive: true });
    await writeFile(wav, silentWav(16000, 3));
    await setSeriesTrack(s.env.services, ep, "audio/mix.wav");
    await s.call("POST", "/build", { ep });
    await writeWordsCache(wav, {
      engine: "pocketsphinx",
      model: "en-us",
      grammar_hash: null,
      words: [
        { w: "a", start: 0.1, end: 0.2 },
        { w: "b", start: 0.3, end: 0.4 },
      ],
    });
    const facts = await trackFacts(s.env.services, ep, "proxy");
    expect(facts).toEqual({
      path: "audio/mix.wav",
      duration: 3,
      rate: 16000,
      exists: true,
      words: 2,
      aligned: 1,
    });
  });
});

/** A mono 16-bit wav of `seconds` of silence at `rate`. */
function silentWav(rate: number, seconds: number): Buffer {
  const samples = rate * seconds;
  const b = Buffer.alloc(44 + samples * 2);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write("WAVEfmt ", 8, "latin1");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36, "latin1");
  b.writeUInt32LE(samples * 2, 40);
  return b;
}
