// The references a ComfyUI take read are recorded with the identity of the files the job read: a keyframe or plate
// replaced between queueing and the job's start reads as the new file in the finished take's refs, though ComfyUI
// only ever sees the uploaded copies under their upload names.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { png, runRenders, targetModels, useComfyStudio } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = ["= e01  T", "# sq01 kitchen", "## sh010", "dur: 1", "The kettle steams."].join("\n");

const c = useComfyStudio(targetModels(["wan22_i2v"]));

/** Draw a 64×48 picture of `colour` at `file`; answers its sha1. */
async function drawn(file: string, colour: string): Promise<string> {
  await png(file, 64, 48, colour);
  return createHash("sha1")
    .update(await readFile(file))
    .digest("hex");
}

describe("references a ComfyUI take read", () => {
  it("record the files the job read, not what was there at queue time", async () => {
    const series = seriesS();
    series.series.target = "wan22_i2v";
    const ep = await c.s.episode(SCRIPT, { series });
    const first = path.join(ep, "refs", "shots", "sh010", "first.png");
    const queuedHash = await drawn(first, "#336699");

    const res = await c.s.call("POST", "/render", { ep });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    const sidecarFile = path.join(ep, "renders_proxy", "sh010", "sh010_t01.json");
    const queued: Any = JSON.parse(await readFile(sidecarFile, "utf8"));
    const ref = (sc: Any) => (sc.refs as Any[]).find((r) => r.slot === "first frame");
    expect(ref(queued)).toMatchObject({ sha1: queuedHash });

    // The keyframe is redrawn before the job starts: the take is made from the new picture.
    const readHash = await drawn(first, "#993366");
    expect(readHash).not.toBe(queuedHash);
    await runRenders(c, [q]);

    const done: Any = JSON.parse(await readFile(sidecarFile, "utf8"));
    expect(done.status).toBe("ok");
    // ComfyUI read an upload name; the take names the file it came from.
    expect(path.isAbsolute(done.inputs.first)).toBe(false);
    expect(ref(done)).toMatchObject({ sha1: readHash });
  });
});
