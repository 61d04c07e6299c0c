// Story warnings and the series-config recipe checks (script format 4.16, 3.12, 3.13; test cases 6.37, 6.38).
import { beforeAll, describe, expect, it } from "vitest";
import type { BuildResult } from "../lib/compile/build.ts";
import { shippedRegistry, type TargetRegistryView } from "../lib/targets/registry.ts";
import { compileText, type Raw } from "./support/compile.ts";

let targets: TargetRegistryView;
beforeAll(async () => {
  targets = shippedRegistry();
});

const build = (text: string, patch?: (raw: Raw) => void): BuildResult =>
  compileText(targets, text, { patch });

const S637 = `= e01  T
# sq01 kitchen
## sh020
who: ada
size: ms
dur: 3.04
Ada wipes the counter.
## sh030
who: ada
size: mcu
dur: 3.04
Ada looks up.
`;

const jumps = (r: BuildResult) => r.warnings.filter((w) => w.includes("jump cut"));

describe("6.37 jump cut", () => {
  it("warns for the same person, the same plate and sizes one step apart", () => {
    const w = jumps(build(S637));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^sequence sq01: /);
    expect(w[0]).toContain("sh020 -> sh030");
    expect(w[0]).toContain("a medium shot and a medium close-up of Ada on the same plate (kitchen)");
  });

  it("no warning two steps apart", () => {
    expect(jumps(build(S637.replace("size: mcu", "size: cu")))).toEqual([]);
  });

  it("no warning on another angle", () => {
    expect(jumps(build(S637.replace("## sh030\n", "## sh030\nplate: kitchen_rev\n")))).toEqual([]);
  });

  it("no warning in a continuing sequence or for a shot that continues by its first frame", () => {
    expect(jumps(build(S637.replace("# sq01 kitchen\n", "# sq01 kitchen\ncontinuous: first\n")))).toEqual([]);
    expect(jumps(build(S637.replace("## sh030\n", "## sh030\ncontinuous: first\n")))).toEqual([]);
  });

  it("a variant counts as its base person; unknown sizes are skipped", () => {
    const variant = S637.replaceAll("who: ada", "who: gina").replace(
      "## sh030\nwho: gina",
      "## sh030\nwho: gina_towel",
    );
    expect(jumps(build(variant))).toHaveLength(1);
    expect(jumps(build(variant))[0]).toContain("of Gina on the same plate");
    // Nobody in the cast: no jump cut.
    expect(jumps(build(S637.replaceAll("who: ada\n", "")))).toEqual([]);
  });

  it("is reported once, on the series target's report only", () => {
    const r = build(
      S637.replace("## sh030\n", "## sh030\ntarget: ltx2\n").replace(
        "## sh020\n",
        "## sh020\ntarget: ltx2\n",
      ),
    );
    expect(r.reports.minimax_h3_ref2va.warnings.filter((w) => w.includes("jump cut"))).toHaveLength(1);
    expect(r.reports.ltx2.warnings.filter((w) => w.includes("jump cut"))).toEqual([]);
  });
});

describe("6.38 two singles on one plate", () => {
  const singles = (a: string, b: string) =>
    `= e01  T\n# sq01 kitchen\n## sh010\nwho: ${a}\nsize: ws\ndur: 3\nThey wait.\n## sh020\nwho: ${b}\nsize: cu\ndur: 3\nThey wait.\n`;
  const plates = (r: BuildResult) => r.warnings.filter((w) => w.includes("alone on the same plate"));

  it("warns once, naming the sequence, the people and the plate", () => {
    const w = plates(build(singles("ada", "bo")));
    expect(w).toEqual([
      "sequence sq01: Ada and Bo each appear alone on the same plate (kitchen): give each speaker their own angle",
    ]);
  });

  it("a variant and its base are one person", () => {
    expect(plates(build(singles("gina", "gina_towel")))).toEqual([]);
  });

  it("different plates do not warn", () => {
    expect(
      plates(build(singles("ada", "bo").replace("## sh020\n", "## sh020\nplate: kitchen_rev\n"))),
    ).toEqual([]);
  });
});

describe("other story warnings", () => {
  it("legacy notes come from the IR", () => {
    const r = build(`= e01  T\n# sq01 kitchen\ncontinuous: yes\n## sh010\ndur: 3\nAda waits.\n`);
    expect(r.warnings.some((w) => w.startsWith("line 3:") && w.includes("continuous: latent"))).toBe(true);
  });

  it("a continuation on the episode's first shot builds, with a warning (open point 11)", () => {
    const r = build(`= e01  T\n# sq01 kitchen\n## sh010\ncontinuous: first\ndur: 3\nAda waits.\n`);
    expect(r.shotTargets.sh010).toBe("minimax_h3_fl2va");
    expect(r.warnings.some((w) => w.startsWith("sh010:") && w.includes("no earlier shot"))).toBe(true);
  });

  it("upscale and post recipe problems are warnings naming the key", () => {
    const r = build(`= e01  T\n# sq01 kitchen\n## sh010\ndur: 3\nAda waits.\n`, (raw) => {
      raw.upscale = {
        save_latents: "sometimes",
        master: {
          deliver: "720p",
          // biome-ignore lint/suspicious/noThenProperty: `then` is the recipe key under test
          targets: { "minimax_h3_*": { method: "latent", scale: 5 }, "*": { method: "pixel", then: "x" } },
        },
      };
      raw.post = { master: { enhance: "ultra", motion_blur: 2 } };
    });
    const w = r.warnings;
    expect(w).toContain(
      'series.json upscale.save_latents "sometimes" is not final, always or never: treated as final',
    );
    expect(w.some((x) => x.startsWith("series.json upscale.master.deliver"))).toBe(true);
    expect(w.some((x) => x.startsWith("series.json upscale.master.targets.minimax_h3_*.scale"))).toBe(true);
    expect(
      w.some((x) => x.startsWith("series.json upscale.master.targets.*.then only follows method latent")),
    ).toBe(true);
    expect(w.some((x) => x.startsWith("series.json post.master.enhance"))).toBe(true);
    expect(w.some((x) => x.startsWith("series.json post.master.motion_blur"))).toBe(true);
  });

  it("a valid recipe adds nothing", () => {
    const r = build(`= e01  T\n# sq01 kitchen\n## sh010\ndur: 3.04\nAda waits.\n`, (raw) => {
      raw.upscale = {
        save_latents: "always",
        master: {
          deliver: "1080p",
          fit: "crop",
          quality: "master",
          encoder: "auto",
          finish: { frequency_split: true, keep_soft: 0, grain: 0 },
          targets: { "minimax_h3_*": { method: "latent" }, "*": { method: "pixel" } },
        },
      };
      raw.post = { master: { enhance: { tier: "production", chunk: 21 }, motion_blur: 0.5 } };
    });
    expect(r.warnings).toEqual([]);
  });
});
