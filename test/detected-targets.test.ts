// detected_targets (settings) where the contract uses it: GET /studio/targets' `default` per kind and the default
// video target of a show never built, each after the settings' own default_targets. A settings file naming a target
// this machine does not have (written by another version, or by hand) has that id passed over, and the build says so.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chooseShowDefault } from "../lib/episode/show-default.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const s = useStudio();
const settingsPath = () => path.join(s.env.home, "default", "studio", "settings.json");
async function settings(value: Record<string, unknown>): Promise<void> {
  await mkdir(path.dirname(settingsPath()), { recursive: true });
  await writeFile(settingsPath(), JSON.stringify(value));
}
afterEach(async () => settings({}));

const isVideo = (id: string) => shippedRegistry().get(id)?.kind === "video";
const ONE_SHOT = ["= e01  T", "# sq01 kitchen", "## sh010", "dur: 3", "Ada waits."].join("\n");

describe("detected_targets", () => {
  it("is the show default after the settings' own choice, and an unknown id in either is passed over", () => {
    const none = { default_targets: {}, detected_targets: {} };
    expect(
      chooseShowDefault({ ...none, detected_targets: { video: "wan22_i2v" } }, null, isVideo),
    ).toMatchObject({
      target: "wan22_i2v",
      source: "detected",
    });
    expect(
      chooseShowDefault(
        { default_targets: { video: "ltx2" }, detected_targets: { video: "wan22_i2v" } },
        null,
        isVideo,
      ),
    ).toMatchObject({ target: "ltx2", source: "settings" });
    const stale = chooseShowDefault(
      { default_targets: { video: "ltx1_old" }, detected_targets: { video: "wan22_i2v" } },
      null,
      isVideo,
    );
    expect(stale).toMatchObject({ target: "wan22_i2v", source: "detected" });
    expect(stale.why).toContain("'ltx1_old' in the settings is not a video target here");
    const both = chooseShowDefault(
      { default_targets: { video: "ltx1_old" }, detected_targets: { video: "krea2" } },
      null,
      isVideo,
    );
    expect(both).toMatchObject({ target: "animatic", source: "builtin" });
    expect(both.why).toContain("'ltx1_old' and 'krea2' in the settings are not a video target here");
  });

  it("gives GET /studio/targets its default per kind, passing over ids this machine lacks", async () => {
    await settings({ detected_targets: { video: "wan22_i2v", image: "flux2_klein", audio: "ltx2_voice" } });
    let res = await s.call("GET", "/targets");
    expect(res.status).toBe(200);
    expect(res.body.default).toEqual({ video: "wan22_i2v", image: "flux2_klein", audio: "ltx2_voice" });
    const flags = (id: string) => res.body.targets.find((t: { id: string }) => t.id === id)?.default;
    expect([flags("wan22_i2v"), flags("animatic"), flags("flux2_klein"), flags("card")]).toEqual([
      true,
      false,
      true,
      false,
    ]);

    // A settings file edited by hand: a video id given for images, and an id no target has.
    await settings({
      default_targets: { image: "ltx2", video: "gone_target" },
      detected_targets: { image: "krea2", video: "also_gone" },
    });
    res = await s.call("GET", "/targets");
    expect(res.body.default).toEqual({ video: "animatic", image: "krea2", audio: "speech" });
  });

  it("is the target a never-built show is compiled for, and the report names an id passed over", async () => {
    await settings({ default_targets: { video: "gone_target" }, detected_targets: { video: "ltx2" } });
    const ep = await s.folder({ "series.json": seriesS(), "ep01.md": ONE_SHOT });
    const body = (await s.call("POST", "/build", { ep })).body;
    expect(body.ok, JSON.stringify(body)).toBe(true);
    expect(body.passes.final.report).toMatchObject({ target: "ltx2", target_source: "detected" });
    expect(body.passes.final.report.target_why).toContain(
      "'gone_target' in the settings is not a video target here",
    );
  });
});
