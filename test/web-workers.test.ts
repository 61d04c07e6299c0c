// The Queue view's workers: one row per worker process by machine, the lanes it runs, the engines it cannot reach
// and why; per lane the machines that run it; nothing at all when the service lists no workers.
import { describe, expect, it } from "vitest";
import type { WorkerAd } from "../web/src/types.ts";
import { laneReach, reachText, workerRows } from "../web/src/views/queue/workers-model.ts";

const NOW = 1_700_000_000_000;

function ad(owner: string, host: string, pid: number, over: Partial<WorkerAd> = {}): WorkerAd {
  return { owner, host, pid, kinds: ["render"], lanes: ["builtin"], down: {}, seen: NOW - 2000, ...over };
}

const gpu2 = ad("w3", "gpu-2", 30, { lanes: ["builtin", "local"] });
const gpu1b = ad("w2", "gpu-1", 20, { lanes: ["builtin", "local"] });
const laptop = ad("w1", "laptop", 10, { down: { local: "http://127.0.0.1:8188 refused the connection" } });

describe("workerRows", () => {
  it("lists workers by machine then process, with lanes, unreachable engines and when last seen", () => {
    const rows = workerRows([laptop, gpu2, gpu1b], NOW);
    expect(rows.map((r) => r.where)).toEqual(["gpu-1 · pid 20", "gpu-2 · pid 30", "laptop · pid 10"]);
    expect(rows[0]).toMatchObject({
      owner: "w2",
      lanes: ["builtin", "local"],
      down: [],
      seen: "seen 2.0 s ago",
    });
    expect(rows[2].down).toEqual([{ lane: "local", why: "http://127.0.0.1:8188 refused the connection" }]);
  });

  it("shows nothing for an answer without workers, and skips malformed entries", () => {
    expect(workerRows(undefined, NOW)).toEqual([]);
    expect(workerRows([], NOW)).toEqual([]);
    expect(workerRows([null, "w", { owner: "x" }, laptop], NOW).map((r) => r.owner)).toEqual(["w1"]);
  });
});

describe("laneReach", () => {
  it("names the machines that run a lane and those that cannot reach its engine", () => {
    expect(laneReach([laptop, gpu2, gpu1b], "local")).toEqual({
      hosts: ["gpu-1", "gpu-2"],
      down: [{ host: "laptop", why: "http://127.0.0.1:8188 refused the connection" }],
    });
    expect(reachText(laneReach([laptop, gpu2, gpu1b], "local"))).toBe("runs on gpu-1, gpu-2");
  });

  it("counts a machine as running a lane when one of its workers reaches it", () => {
    const other = ad("w4", "gpu-1", 21, { down: { local: "down" } });
    expect(laneReach([gpu1b, other], "local")).toEqual({ hosts: ["gpu-1"], down: [] });
  });

  it("says when no worker reaches a lane, and nothing without workers", () => {
    expect(reachText(laneReach([laptop], "local"))).toBe("no worker reaches its engine now");
    expect(laneReach(undefined, "local")).toBeNull();
    expect(reachText(null)).toBeNull();
  });
});
