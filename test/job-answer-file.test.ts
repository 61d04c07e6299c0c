// A job's answer file: written fenced to its episode, taken once (read, then removed), and pruned after a day when
// no route came for it.
import { mkdtemp, readdir, realpath, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneAlignAnswers, takeAlignAnswer, writeAlignAnswer } from "../lib/align/payload.ts";
import { ANSWER_LIFE_MS } from "../lib/jobs/answer-file.ts";

let ep: string;

beforeAll(async () => {
  ep = await realpath(await mkdtemp(path.join(os.tmpdir(), "answer-file-")));
});
afterAll(() => rm(ep, { recursive: true, force: true }));

describe("job answer files", () => {
  it("are taken once, and read as null when there is none or it is not JSON", async () => {
    await writeAlignAnswer(ep, "j_1", { ok: true, words: 3 });
    expect(await takeAlignAnswer(ep, "j_1")).toEqual({ ok: true, words: 3 });
    expect(await takeAlignAnswer(ep, "j_1")).toBeNull();
    await writeFile(path.join(ep, "_cache", ".align-answer-j_2.json"), "{not json");
    expect(await takeAlignAnswer(ep, "j_2")).toBeNull();
  });

  it("nobody took are removed after a day; younger ones and other files stay", async () => {
    const now = Date.now();
    await writeAlignAnswer(ep, "j_old", { ok: true });
    await writeAlignAnswer(ep, "j_new", { ok: true });
    await writeFile(path.join(ep, "_cache", "keep.json"), "{}");
    const old = new Date(now - ANSWER_LIFE_MS - 60_000);
    await utimes(path.join(ep, "_cache", ".align-answer-j_old.json"), old, old);
    await utimes(path.join(ep, "_cache", "keep.json"), old, old);
    await pruneAlignAnswers(ep, now);
    expect((await readdir(path.join(ep, "_cache"))).sort()).toEqual([
      ".align-answer-j_new.json",
      "keep.json",
    ]);
  });
});
