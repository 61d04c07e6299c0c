// Following jobs to their end: bars redrawn in place on a terminal, one line per change of state otherwise, nothing
// with --json; over a client whose GET /studio/jobs answers move through the states a queue goes through.
import { describe, expect, it } from "vitest";
import type { Client } from "../cli/client.ts";
import { followJobs } from "../cli/follow.ts";
import type { Io } from "../cli/output.ts";

type State = { status: string; progress: number; step: string | null; error: string | null };

/** A client whose listing shows `steps[i]` at its i-th GET /studio/jobs (the last one from then on). */
function scripted(steps: Record<string, State>[]): Client & { calls: number } {
  const client = {
    where: "a script",
    leftBehind: "nothing",
    calls: 0,
    async call(method: string, path: string) {
      if (method !== "GET" || path !== "/jobs") throw new Error(`unexpected ${method} ${path}`);
      const now = steps[Math.min(client.calls++, steps.length - 1)];
      const jobs = Object.entries(now).map(([id, s]) => ({
        id,
        kind: "render",
        lane: "builtin",
        title: id,
        created: "2026-01-01T00:00:00Z",
        ...s,
      }));
      return { status: 200, body: { jobs, lanes: {}, paid: { count: 0, limit: null } } };
    },
    async close() {},
  };
  return client;
}

function capture(tty: boolean, json = false): Io & { text: () => string } {
  let err = "";
  return { out: () => {}, err: (t) => (err += t), tty, json, text: () => err };
}

const queued: State = { status: "queued", progress: 0, step: null, error: null };
const half: State = { status: "running", progress: 0.5, step: "render", error: null };
const done: State = { status: "succeeded", progress: 1, step: "render", error: null };
const failed: State = { status: "failed", progress: 0.2, step: null, error: "the engine went away" };
const STEPS = [
  { a: queued, b: queued },
  { a: half, b: queued },
  { a: done, b: half },
  { a: done, b: failed },
];
const LABELS = { a: "sh010 take 1", b: "sh020 take 1" };

describe("followJobs", () => {
  it("answers each job as it ended, in the order asked", async () => {
    const ended = await followJobs(scripted(STEPS), ["b", "a"], LABELS, capture(false, true));
    expect(ended.map((j) => [j.id, j.status])).toEqual([
      ["b", "failed"],
      ["a", "succeeded"],
    ]);
  });

  it("writes one plain line per change of state when stderr is not a terminal", async () => {
    const io = capture(false);
    await followJobs(scripted(STEPS), ["a", "b"], LABELS, io);
    expect(io.text().split("\n").filter(Boolean)).toEqual([
      "sh010 take 1: queued",
      "sh020 take 1: queued",
      "sh010 take 1: running",
      "sh010 take 1: succeeded",
      "sh020 take 1: running",
      "sh020 take 1: failed: the engine went away",
    ]);
  });

  it("redraws one bar per job in place on a terminal", async () => {
    const io = capture(true);
    await followJobs(scripted(STEPS), ["a", "b"], LABELS, io);
    const frames = io.text().split("\x1b[2A");
    expect(frames).toHaveLength(STEPS.length);
    expect(frames[1]).toContain("sh010 take 1  [############............]  50%  running render");
    expect(frames[3]).toContain("sh010 take 1  [########################] 100%  succeeded\n");
    expect(frames[3]).toContain("sh020 take 1  [#####...................]  20%  failed");
  });

  it("writes nothing with --json", async () => {
    const io = capture(true, true);
    await followJobs(scripted(STEPS), ["a", "b"], LABELS, io);
    expect(io.text()).toBe("");
  });
});
