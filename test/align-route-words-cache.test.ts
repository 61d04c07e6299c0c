// The words cache beside a recording: written, read back while the recording is unchanged, refused once it changes
// or when the file is not a cache.
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWordsCache, wordsCachePath, writeWordsCache } from "../lib/align/words-cache.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "words-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const words = [
  { w: "hello", start: 0.5, end: 0.9 },
  { w: "there", start: 0.95, end: 1.3 },
];

describe("words cache", () => {
  it("is written beside the recording and read back while the recording is unchanged", async () => {
    const rec = path.join(dir, "take one.wav");
    await writeFile(rec, "RIFF....");
    expect(await readWordsCache(rec)).toBeNull();
    const written = await writeWordsCache(rec, {
      engine: "pocketsphinx",
      model: "en-us",
      grammar_hash: "ab",
      words,
    });
    expect(wordsCachePath(rec)).toBe(`${rec}.words.json`);
    const read = await readWordsCache(rec);
    expect(read).toEqual(written);
    expect(read?.words).toEqual(words);
    expect(read?.recording.size).toBe(8);
  });

  it("is stale once the recording changes (size or time)", async () => {
    const rec = path.join(dir, "a.wav");
    await writeFile(rec, "12345678");
    await writeWordsCache(rec, { engine: "faster-whisper", model: "medium.en", grammar_hash: null, words });
    await writeFile(rec, "123456789");
    expect(await readWordsCache(rec)).toBeNull();
    await writeWordsCache(rec, { engine: "faster-whisper", model: "medium.en", grammar_hash: null, words });
    expect(await readWordsCache(rec)).not.toBeNull();
    const later = new Date(Date.now() + 60_000);
    await utimes(rec, later, later);
    expect(await readWordsCache(rec)).toBeNull();
  });

  it("is null for a file that is not a cache", async () => {
    const rec = path.join(dir, "b.wav");
    await writeFile(rec, "x");
    await writeFile(wordsCachePath(rec), "{not json");
    expect(await readWordsCache(rec)).toBeNull();
    await writeFile(wordsCachePath(rec), JSON.stringify({ version: 2, words: [] }));
    expect(await readWordsCache(rec)).toBeNull();
  });
});
