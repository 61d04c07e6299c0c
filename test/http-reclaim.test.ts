// The upload reclaimer: a young-generation collection every RECLAIM_EVERY bytes of a body, and V8's collector
// really had in a process started without --expose-gc.
import { describe, expect, it } from "vitest";
import { collector, RECLAIM_EVERY, Reclaimer } from "../lib/http/reclaim.ts";

describe("Reclaimer", () => {
  it("collects once every RECLAIM_EVERY bytes received, however the chunks fall", () => {
    const calls: string[] = [];
    const r = new Reclaimer((o) => calls.push(o.type));
    r.add(RECLAIM_EVERY - 1);
    expect(calls).toEqual([]);
    r.add(1);
    expect(calls).toEqual(["minor"]);
    for (let i = 0; i < 64; i++) r.add(RECLAIM_EVERY / 16);
    expect(calls).toHaveLength(5);
    r.add(RECLAIM_EVERY * 3);
    expect(calls).toHaveLength(6);
  });

  it("has V8's collector, which runs a young-generation collection when asked", () => {
    const collect = collector();
    expect(typeof collect).toBe("function");
    expect(() => collect?.({ type: "minor" })).not.toThrow();
    // Asked again (each upload asks), still a collector.
    expect(typeof collector()).toBe("function");
  });
});
