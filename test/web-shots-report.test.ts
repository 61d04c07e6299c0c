// A render answer as the page reports it: queued takes, per-shot problems in the service's words, and warnings.
import { describe, expect, it } from "vitest";
import { renderReport } from "../web/src/views/shots/report.ts";

const queued = (shot: string, take: number) => ({
  shot,
  take,
  prompt_id: "j_1",
  seed: "1",
  seed_source: "stable",
  target: "animatic",
});

describe("renderReport", () => {
  it("names the queued takes and lists skipped and refused shots with their reasons", () => {
    const r = renderReport({
      queued: [queued("sh010", 3), queued("sh020", 12)],
      skipped: [{ shot: "sh030", reason: "missing refs: Picture 1" }],
      errors: [{ shot: "sh040", error: "size off the grid" }],
    });
    expect(r.queued).toBe(2);
    expect(r.takes).toEqual(["sh010 t03", "sh020 t12"]);
    expect(r.problems).toEqual([
      { shot: "sh030", kind: "skipped", text: "missing refs: Picture 1" },
      { shot: "sh040", kind: "error", text: "size off the grid" },
    ]);
    expect(r.warnings).toEqual([]);
  });

  it("carries the warning and the warnings list once each", () => {
    const w = "rendering from the build of 10:02: the script saved at 10:05 does not build";
    const r = renderReport({ queued: [], skipped: [], errors: [], warning: w, warnings: [w, "another"] });
    expect(r.warnings).toEqual([w, "another"]);
  });

  it("ignores an empty or null warning", () => {
    expect(
      renderReport({ queued: [], skipped: [], errors: [], warning: null, warnings: [""] }).warnings,
    ).toEqual([]);
  });
});
