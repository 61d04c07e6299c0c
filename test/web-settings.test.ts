// The Settings view's mapping: server facts, readiness rows by tier, and field values as PUT /studio/settings takes.
import { describe, expect, it } from "vitest";
import {
  deploymentsValue,
  detailSummary,
  infoFacts,
  type MissingFile,
  paidLimitValue,
  passesNote,
  readinessRows,
  textValue,
} from "../web/src/views/settings/settings-model.ts";

describe("infoFacts", () => {
  it("reads a found tool as its version and path, a missing one as its reason, anything else as text", () => {
    const facts = infoFacts({
      service: "episode-studio",
      version: "0.1.0",
      roles: ["api", "worker"],
      port: 8190,
      host: null,
      ffmpeg: { path: "/usr/bin/ffmpeg", version: "5.1.9" },
      ffprobe: { path: null, error: "not on PATH" },
      gpu_count: 2,
      extra: { a: 1, b: null, c: "x" },
    });
    expect(facts).toEqual([
      { label: "Service", value: "episode-studio", tone: null },
      { label: "Version", value: "0.1.0", tone: null },
      { label: "Roles", value: "api, worker", tone: null },
      { label: "Port", value: "8190", tone: null },
      { label: "Address", value: "–", tone: null },
      { label: "ffmpeg", value: "5.1.9 (/usr/bin/ffmpeg)", tone: "ok" },
      { label: "ffprobe", value: "not found: not on PATH", tone: "bad" },
      { label: "gpu count", value: "2", tone: null },
      { label: "extra", value: "a 1 · c x", tone: null },
    ]);
  });
});

const file = (
  param: string,
  tier: MissingFile["tier"],
  passes: ("final" | "proxy")[] = ["final", "proxy"],
) => ({
  param,
  tier,
  want: `${param}.safetensors`,
  folder: "loras",
  url: null,
  passes,
});

describe("readinessRows", () => {
  it("groups missing files by tier, required first, and marks the default", () => {
    const rows = readinessRows(
      [
        {
          id: "ltx2",
          label: "LTX",
          kind: "video",
          readiness: {
            status: "not_ready",
            missing: [
              file("opt", "optional"),
              file("acc", "accelerator", ["proxy"]),
              file("vae", "required"),
            ],
            features_off: [],
            nodes_missing: ["NodeA"],
          },
        },
        {
          id: "animatic",
          label: "Animatic",
          kind: "video",
          readiness: { status: "ready", missing: [], features_off: [], nodes_missing: [] },
        },
        { id: "bare", label: "No readiness", kind: "video" },
      ],
      "animatic",
    );
    expect(rows[0].missing.map((g) => [g.tier, g.files.map((f) => f.param)])).toEqual([
      ["required", ["vae"]],
      ["accelerator", ["acc"]],
      ["optional", ["opt"]],
    ]);
    expect(rows[0]).toMatchObject({
      status: "not_ready",
      summary: "not ready",
      nodes: ["NodeA"],
      isDefault: false,
    });
    expect(rows[1]).toMatchObject({ status: "ready", missing: [], isDefault: true });
    expect(rows[2]).toMatchObject({ status: "not asked", missing: [], nodes: [], error: null });
    expect(passesNote(rows[0].missing[1].files[0])).toBe("proxy pass only");
    expect(passesNote(rows[0].missing[0].files[0])).toBe("");
    expect(detailSummary(rows[0])).toBe(
      "1 required file, 1 accelerator file, 1 optional file, 1 node missing",
    );
    expect(detailSummary(rows[1])).toBe("");
  });

  it("says when the engine did not answer", () => {
    const [row] = readinessRows(
      [
        {
          id: "ltx2",
          label: "LTX",
          kind: "video",
          readiness: {
            status: "unknown",
            missing: [],
            features_off: [],
            nodes_missing: [],
            error: "refused",
          },
        },
      ],
      null,
    );
    expect(row.summary).toBe("unknown");
    expect(row.error).toBe("refused");
    expect(detailSummary(row)).toBe("the engine did not answer");
  });
});

describe("field values", () => {
  it("clears an address or folder with a blank box", () => {
    expect(textValue("  http://127.0.0.1:8188 ")).toBe("http://127.0.0.1:8188");
    expect(textValue("   ")).toBeNull();
  });

  it("sends the paid cap as a number, blank as no cap, and anything else as typed for the service to refuse", () => {
    expect(paidLimitValue("12")).toBe(12);
    expect(paidLimitValue("")).toBeNull();
    expect(paidLimitValue("-3")).toBe("-3");
    expect(paidLimitValue("2.5")).toBe("2.5");
  });

  it("turns deployment rows into the settings object, leaving rows without a target out", () => {
    expect(
      deploymentsValue([
        { target: " ltx2 ", url: " https://a.example " },
        { target: "", url: "https://b.example" },
        { target: "wan22_i2v", url: "" },
      ]),
    ).toEqual({ ltx2: "https://a.example", wan22_i2v: "" });
  });
});
