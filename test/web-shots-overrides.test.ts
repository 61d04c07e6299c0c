// A shot's override as form text and the change sent back: only edited fields, blanks clear, typed values kept.
import { describe, expect, it } from "vitest";
import { overrideChange, overrideText } from "../web/src/views/shots/overrides.ts";

describe("overrideText", () => {
  it("shows every field, unset ones blank", () => {
    const t = overrideText({ prompt: "A boy points", steps: 3, seed: "42" });
    expect(t).toEqual({
      prompt: "A boy points",
      negative: "",
      seed: "42",
      steps: "3",
      model: "",
      loras: "",
      size: "",
      note: "",
      target: "",
    });
  });

  it("writes LoRAs as name:strength and sizes as WxH", () => {
    const t = overrideText({
      loras: [{ name: "ink.safetensors", strength: 0.6 }, "grain"],
      size: [640, 384],
    });
    expect(t.loras).toBe("ink.safetensors:0.6, grain");
    expect(t.size).toBe("640x384");
  });
});

describe("overrideChange", () => {
  const before = overrideText({ prompt: "A boy points", steps: 3, seed: "42" });

  it("sends nothing when nothing changed", () => {
    expect(overrideChange(before, { ...before })).toEqual({});
  });

  it("sends only the changed fields, steps as a number and LoRAs as a list", () => {
    const after = { ...before, steps: "6", loras: "ink:0.5, grain", note: "warmer" };
    expect(overrideChange(before, after)).toEqual({ steps: 6, loras: ["ink:0.5", "grain"], note: "warmer" });
  });

  it("clears a field emptied by the user", () => {
    expect(overrideChange(before, { ...before, prompt: "", seed: "  " })).toEqual({
      prompt: null,
      seed: null,
    });
  });

  it("keeps a prompt's own spacing but trims a seed", () => {
    expect(overrideChange(before, { ...before, prompt: "A boy points. ", seed: " 7 " })).toEqual({
      prompt: "A boy points. ",
      seed: "7",
    });
  });
});

describe("overrideChange with steps that are not a number", () => {
  it("sends the text as typed rather than clearing the field", () => {
    const before = overrideText({ steps: 3 });
    expect(overrideChange(before, { ...before, steps: "lots" })).toEqual({ steps: "lots" });
  });
});
