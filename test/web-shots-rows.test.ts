// The shot list's rows: script order from the cut-ordered answer, the take a row shows, and selection rules.
import { describe, expect, it } from "vitest";
import type { ShotEntry, TakeSummary } from "../web/src/types.ts";
import {
  clickSelect,
  scriptOrder,
  sequencesOf,
  shotRow,
  shotRows,
  stepShot,
} from "../web/src/views/shots/rows.ts";

function take(n: number, over: Partial<TakeSummary> = {}): TakeSummary {
  return {
    take: n,
    status: "ok",
    has_video: true,
    seed: "1",
    frames: 48,
    fps: 24,
    width: 448,
    height: 256,
    note: null,
    overrides: [],
    stale: [],
    thumb: `renders_proxy/x/x_t0${n}.jpg`,
    strip: null,
    mp4: `renders_proxy/x/x_t0${n}.mp4`,
    queued: null,
    finished: null,
    save_notes: null,
    target: "animatic",
    ...over,
  };
}

function shot(
  id: string,
  index: number | null,
  over: Partial<ShotEntry> = {},
  cut: Partial<ShotEntry["cut"]> = {},
): ShotEntry {
  return {
    shot: id,
    orphan: index === null,
    sequence: "sq01",
    length: 48,
    seconds: 2,
    size: null,
    subjects: [],
    audio_policy: null,
    cut: {
      take: null,
      picked: false,
      pass: "proxy",
      placeholder: false,
      usable: false,
      trim_in: 0,
      trim_out: 0,
      locked: false,
      note: null,
      in_cut_file: false,
      frames: null,
      out: false,
      flag: false,
      fps: 24,
      order: 0,
      script_index: index,
      out_of_order: false,
      audio: null,
      audio_file: null,
      audio_why: null,
      ...cut,
    },
    override: null,
    target: "animatic",
    target_source: "default",
    built_target: "animatic",
    profile: null,
    missing_refs: [],
    takes: [],
    ...over,
  };
}

describe("scriptOrder", () => {
  it("sorts the cut-ordered answer by script index, orphans last in cut order", () => {
    const cutOrder = [
      shot("sh030", 2),
      shot("old1", null),
      shot("sh010", 0),
      shot("old2", null),
      shot("sh020", 1),
    ];
    expect(scriptOrder(cutOrder).map((s) => s.shot)).toEqual(["sh010", "sh020", "sh030", "old1", "old2"]);
  });

  it("does not reorder the answer it was given", () => {
    const list = [shot("b", 1), shot("a", 0)];
    scriptOrder(list);
    expect(list.map((s) => s.shot)).toEqual(["b", "a"]);
  });
});

describe("shotRow", () => {
  it("shows the cut's take and the newest take's status", () => {
    const e = shot(
      "sh010",
      0,
      { takes: [take(1), take(2), take(3, { status: "queued", thumb: null })] },
      { take: 2, picked: true },
    );
    const r = shotRow(e, "proxy");
    expect(r.shown?.take).toBe(2);
    expect(r.latest?.take).toBe(3);
    expect(r.status).toBe("queued");
    expect(r.picked).toBe(true);
  });

  it("falls back to the newest take with a picture when the cut has none of this pass", () => {
    const e = shot(
      "sh010",
      0,
      { takes: [take(1), take(2, { status: "failed", thumb: null })] },
      { take: 4, pass: "final", placeholder: true },
    );
    const r = shotRow(e, "proxy");
    expect(r.shown?.take).toBe(1);
    expect(r.status).toBe("failed");
    expect(r.picked).toBe(false);
  });

  it("says none for a shot without takes", () => {
    const r = shotRow(shot("sh010", 0), "proxy");
    expect([r.status, r.shown, r.latest]).toEqual(["none", null, null]);
  });

  it("lists the shown take's staleness and a stale override", () => {
    const e = shot(
      "sh010",
      0,
      { takes: [take(1, { stale: ["script", "ref"] })], override: { fields: ["prompt"], stale: true } },
      { take: 1 },
    );
    expect(shotRow(e, "proxy").stale).toEqual(["script", "ref", "override"]);
  });
});

describe("shotRows and sequencesOf", () => {
  it("lists sequences in the order they first appear in script order", () => {
    const rows = shotRows(
      [shot("c", 2, { sequence: "sq02" }), shot("a", 0), shot("b", 1, { sequence: "sq02" })],
      "proxy",
    );
    expect(rows.map((r) => r.entry.shot)).toEqual(["a", "b", "c"]);
    expect(sequencesOf(rows)).toEqual(["sq01", "sq02"]);
  });
});

describe("stepShot", () => {
  const ids = ["a", "b", "c"];
  it("moves by step and holds at the ends", () => {
    expect(stepShot(ids, "a", 1)).toBe("b");
    expect(stepShot(ids, "c", 1)).toBe("c");
    expect(stepShot(ids, "a", -1)).toBe("a");
  });
  it("starts at the first row going down and the last going up when nothing is current", () => {
    expect(stepShot(ids, null, 1)).toBe("a");
    expect(stepShot(ids, "gone", -1)).toBe("c");
    expect(stepShot([], null, 1)).toBe(null);
  });
});

describe("clickSelect", () => {
  const order = ["a", "b", "c", "d", "e"];
  const none = { ids: new Set<string>(), anchor: null };

  it("a plain click selects one shot", () => {
    const s = clickSelect({ ids: new Set(["a", "b"]), anchor: "a" }, order, "c", "one");
    expect([...s.ids]).toEqual(["c"]);
    expect(s.anchor).toBe("c");
  });

  it("toggle adds and drops a shot", () => {
    const one = clickSelect(none, order, "b", "toggle");
    const two = clickSelect(one, order, "d", "toggle");
    expect([...two.ids].sort()).toEqual(["b", "d"]);
    expect([...clickSelect(two, order, "b", "toggle").ids]).toEqual(["d"]);
  });

  it("shift takes the range from the anchor, either direction, keeping the anchor", () => {
    const start = clickSelect(none, order, "b", "one");
    const down = clickSelect(start, order, "d", "range");
    expect([...down.ids].sort()).toEqual(["b", "c", "d"]);
    expect(down.anchor).toBe("b");
    const up = clickSelect(start, order, "a", "range");
    expect([...up.ids].sort()).toEqual(["a", "b"]);
  });

  it("a range without an anchor adds the one shot", () => {
    expect([...clickSelect(none, order, "c", "range").ids]).toEqual(["c"]);
  });
});
