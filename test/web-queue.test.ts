// The Queue view's mapping of GET /studio/jobs: lanes, order, durations, progress words, moves and links.
import { describe, expect, it } from "vitest";
import {
  dropIndex,
  formatDuration,
  jobDuration,
  jobPlace,
  movedIndex,
  percent,
  type QueueJob,
  queueCounts,
  queueLayout,
  stepText,
  waitDuration,
} from "../web/src/views/queue/queue-model.ts";

function job(id: string, over: Partial<QueueJob> = {}): QueueJob {
  return {
    id,
    lane: "builtin",
    status: "queued",
    progress: 0,
    step: null,
    steps: null,
    created: "2026-01-01T10:00:00.000Z",
    started: null,
    finished: null,
    info: {},
    ...over,
  };
}

describe("queueLayout", () => {
  it("groups jobs by lane, waiting ones in the lane's order rather than the list's", () => {
    const jobs = [
      job("a"),
      job("b"),
      job("c"),
      job("r", { status: "running", started: "2026-01-01T10:00:01.000Z" }),
      job("l1", { lane: "local" }),
    ];
    const out = queueLayout({
      jobs,
      lanes: {
        builtin: { paused: false, parallel: 1, waiting: ["c", "a", "b"], running: ["r"] },
        local: { paused: true, parallel: 2, waiting: ["l1"], running: [] },
      },
    });
    expect(out.lanes.map((l) => l.name)).toEqual(["builtin", "local"]);
    expect(out.lanes[0].waiting.map((j) => j.id)).toEqual(["c", "a", "b"]);
    expect(out.lanes[0].running.map((j) => j.id)).toEqual(["r"]);
    expect(out.lanes[1]).toMatchObject({ paused: true, parallel: 2 });
    expect(out.lanes[1].waiting.map((j) => j.id)).toEqual(["l1"]);
  });

  it("keeps a job an event moved ahead of the lane lists in its lane, and drops listed ids that moved on", () => {
    const jobs = [
      job("was-waiting", { status: "running", started: "2026-01-01T10:00:05.000Z" }),
      job("new", { lane: "cloud", created: "2026-01-01T10:00:09.000Z" }),
      job("newer", { lane: "cloud", created: "2026-01-01T10:00:10.000Z" }),
    ];
    const out = queueLayout({
      jobs,
      lanes: { builtin: { paused: false, parallel: 1, waiting: ["was-waiting", "gone"], running: [] } },
    });
    const builtin = out.lanes.find((l) => l.name === "builtin");
    expect(builtin?.waiting).toEqual([]);
    expect(builtin?.running.map((j) => j.id)).toEqual(["was-waiting"]);
    const cloud = out.lanes.find((l) => l.name === "cloud");
    expect(cloud?.waiting.map((j) => j.id)).toEqual(["new", "newer"]);
    expect(cloud?.paused).toBe(false);
  });

  it("lists finished jobs newest first, whatever their lane, and shows an idle lane the service names", () => {
    const jobs = [
      job("old", { status: "succeeded", finished: "2026-01-01T10:01:00.000Z" }),
      job("new", { status: "failed", lane: "local", finished: "2026-01-01T10:03:00.000Z" }),
      job("mid", { status: "canceled", finished: "2026-01-01T10:02:00.000Z" }),
    ];
    const out = queueLayout({
      jobs,
      lanes: { builtin: { paused: false, parallel: 1, waiting: [], running: [] } },
    });
    expect(out.finished.map((j) => j.id)).toEqual(["new", "mid", "old"]);
    expect(out.lanes.map((l) => l.name)).toEqual(["builtin"]);
  });
});

describe("counts and times", () => {
  it("counts running and waiting jobs", () => {
    const jobs = [job("a"), job("b", { status: "running" }), job("c"), job("d", { status: "failed" })];
    expect(queueCounts({ jobs, lanes: {} })).toEqual({ running: 1, waiting: 2 });
  });

  it("measures run time from start to end, or to now while running", () => {
    const now = Date.parse("2026-01-01T10:05:00.000Z");
    const done = job("a", {
      started: "2026-01-01T10:00:00.000Z",
      finished: "2026-01-01T10:01:05.000Z",
    });
    expect(jobDuration(done, now)).toBe(65_000);
    expect(jobDuration(job("b", { status: "running", started: "2026-01-01T10:04:30.000Z" }), now)).toBe(
      30_000,
    );
    expect(jobDuration(job("c"), now)).toBeNull();
    expect(waitDuration(job("c"), now)).toBe(300_000);
    expect(waitDuration(done, now)).toBe(0);
  });

  it("formats durations like an editing tool", () => {
    expect(formatDuration(800)).toBe("0.8 s");
    expect(formatDuration(12_400)).toBe("12 s");
    expect(formatDuration(245_000)).toBe("4:05");
    expect(formatDuration(3_723_000)).toBe("1:02:03");
    expect(formatDuration(null)).toBe("–");
  });

  it("names the step and counts sampler steps from the progress", () => {
    expect(stepText(job("a", { step: "KSampler", steps: 8, progress: 0.375 }))).toBe("KSampler 3/8");
    expect(stepText(job("b", { step: "render" }))).toBe("render");
    expect(stepText(job("c"))).toBe("");
    expect(percent(0.426)).toBe(43);
    expect(percent(1.5)).toBe(100);
    expect(percent(Number.NaN)).toBe(0);
  });
});

describe("moves", () => {
  it("moves a waiting job up or down by one, not past either end", () => {
    const w = ["a", "b", "c"];
    expect(movedIndex(w, "b", -1)).toBe(0);
    expect(movedIndex(w, "b", 1)).toBe(2);
    expect(movedIndex(w, "a", -1)).toBeNull();
    expect(movedIndex(w, "c", 1)).toBeNull();
    expect(movedIndex(w, "x", 1)).toBeNull();
  });

  it("turns a drop before or after a row into the index the move route takes", () => {
    // a b c d: drag a after c → b c a d
    expect(dropIndex(0, 2, true)).toBe(2);
    // drag d before b → a d b c
    expect(dropIndex(3, 1, false)).toBe(1);
    // dropping onto itself, or right after the job before it, changes nothing
    expect(dropIndex(2, 2, false)).toBeNull();
    expect(dropIndex(2, 1, true)).toBeNull();
    expect(dropIndex(1, 3, true)).toBe(3);
  });
});

describe("jobPlace", () => {
  it("links a job to its episode's shots at its pass, its shot selected", () => {
    const j = job("a", { info: { ep: "/shows/gold/ep01", pass: "final", shot: "sh020", take: 2 } });
    expect(jobPlace(j)).toEqual({ ep: "/shows/gold/ep01", shot: "sh020", view: "shots", pass: "final" });
    expect(jobPlace(job("b", { info: { ep: "/shows/gold/ep01" } }))).toEqual({
      ep: "/shows/gold/ep01",
      shot: null,
      view: "shots",
      pass: "proxy",
    });
    expect(jobPlace(job("c"))).toBeNull();
  });
});
