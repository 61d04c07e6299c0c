// review_copy (GET/PUT /studio/config): a workflow's review nodes (the binding's `review_nodes`) are stripped from
// the graph a take sends unless review_copy was on when the take was queued; then ComfyUI also writes that second
// copy to its output folder, and the take is still the saver's file. The choice is in the take's notes. Rendered
// through the ComfyUI double with a show's own target: Wan 2.2 TI2V with a SaveWEBM review branch.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { reviewNodesOf, reviewNote } from "../lib/render/review-copy.ts";
import { type ApiGraph, patchGraph } from "../lib/targets/graph.ts";
import { parseTarget } from "../lib/targets/registry.ts";
import { renderQueued, takeSidecar, targetModels, useComfyStudio } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SHIPPED = path.join(import.meta.dirname, "..", "lib", "targets", "video", "wan22_ti2v");
const SCRIPT = ["= e01  T", "# sq01 kitchen", "## sh010", "dur: 1", "The kettle steams."].join("\n");

/** Wan 2.2 TI2V as a show's own target whose workflow also writes a review copy (SaveWEBM, node 13). */
async function reviewTarget(): Promise<{ target: Any; workflow: ApiGraph }> {
  const target = JSON.parse(await readFile(path.join(SHIPPED, "target.json"), "utf8"));
  target.id = "ti2v_review";
  target.label = "TI2V with a review copy";
  target.short = "TI2V-R";
  target.binding.review_nodes = ["SaveWEBM"];
  delete target.binding.env;
  delete target.binding.workflow_name;
  const workflow: ApiGraph = JSON.parse(await readFile(path.join(SHIPPED, "workflow.json"), "utf8"));
  const decode = Object.entries(workflow).find(([, n]) => n.class_type === "VAEDecode")?.[0];
  if (!decode) throw new Error("the TI2V workflow has no VAEDecode");
  workflow["13"] = {
    class_type: "SaveWEBM",
    inputs: { images: [decode, 0], filename_prefix: "review/ti2v", codec: "vp9", fps: 24, crf: 32 },
    _meta: { title: "Review copy" },
  };
  return { target, workflow };
}

describe("review nodes in the patch", () => {
  it("are deleted unless kept, and never the saver or what feeds it", async () => {
    const { target, workflow } = await reviewTarget();
    const spec = parseTarget(target, target.id, "video", true);
    const values = { prompt: "p", seed: 1, width: 64, height: 64, length: 17, fps: 24, prefix: "x" };
    const off = patchGraph(spec, workflow, values, { first: "first.png" });
    expect(Object.values(off.graph).map((n) => n.class_type)).not.toContain("SaveWEBM");
    const on = patchGraph(spec, workflow, values, { first: "first.png" }, { review: true });
    expect(reviewNodesOf(spec, on.graph)).toEqual(["13"]);
    expect(on.saver).toBe(off.saver);
    expect(reviewNote(spec, workflow, true)).toMatch(/review_copy is on.*SaveWEBM/);
    expect(reviewNote(spec, workflow, false)).toBe("review nodes SaveWEBM stripped (review_copy is off)");
    expect(reviewNote(spec, off.graph, false)).toBeNull();

    // A review class that is also the saver's (SaveVideo) never takes the take's own output with it.
    const saverClass = {
      ...target,
      binding: { ...target.binding, review_nodes: ["SaveVideo", "CreateVideo"] },
    };
    const both = patchGraph(parseTarget(saverClass, target.id, "video", true), workflow, values, {
      first: "first.png",
    });
    expect(both.graph[both.saver]?.class_type).toBe("SaveVideo");
    expect(Object.values(both.graph).map((n) => n.class_type)).toContain("CreateVideo");
  });
});

describe("review_copy on a render through the ComfyUI double", () => {
  const c = useComfyStudio(targetModels(["wan22_ti2v"]));

  /** Queue the episode's one shot and run it; answers its finished sidecar and the graph the double ran. */
  async function renderOnce(ep: string, take: number): Promise<{ sc: Any; graph: ApiGraph }> {
    const before = c.double.prompts.length;
    await renderQueued(c, { ep, redo: take > 1 }, [["sh010", "ti2v_review"]]);
    const sent = c.double.prompts.slice(before).filter((p) => p.status === 200);
    expect(sent).toHaveLength(1);
    return { sc: await takeSidecar(ep, "sh010", take), graph: (sent[0] as Any).body.prompt };
  }

  const reviewFiles = async () =>
    (await readdir(path.join(c.double.outputDir, "review")).catch(() => [] as string[])).filter((f) =>
      f.endsWith(".webm"),
    );

  it("strips the review nodes when off and keeps them (a second copy, the take unchanged) when on", async () => {
    const { target, workflow } = await reviewTarget();
    const series = seriesS();
    series.series.target = "ti2v_review";
    const ep = await c.s.episode(SCRIPT, { series, build: false });
    // The series file sits in the episode folder here, which is so the show folder.
    const dir = path.join(ep, "targets", "ti2v_review");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "target.json"), JSON.stringify(target));
    await writeFile(path.join(dir, "workflow.json"), JSON.stringify(workflow));
    const built = await c.s.call("POST", "/build", { ep });
    expect(built.body.ok, JSON.stringify(built.body)).toBe(true);

    const config = await c.s.call("GET", "/config");
    expect(config.body.review_copy).toBe(false);
    const off = await renderOnce(ep, 1);
    const classes = (g: ApiGraph) => Object.values(g).map((n) => n.class_type);
    expect(classes(off.graph)).not.toContain("SaveWEBM");
    expect(classes(off.graph)).toContain("SaveVideo");
    expect(off.sc.notes).toContain("review nodes SaveWEBM stripped (review_copy is off)");
    expect(await reviewFiles()).toEqual([]);

    const put = await c.s.call("PUT", "/config", { roots: config.body.roots, review_copy: true });
    expect(put.status).toBe(200);
    const on = await renderOnce(ep, 2);
    expect(classes(on.graph).filter((cls) => cls === "SaveWEBM")).toHaveLength(1);
    expect(on.sc.notes.join("\n")).toMatch(
      /review_copy is on: the workflow's review nodes \(SaveWEBM\) are kept/,
    );
    expect(await reviewFiles()).toHaveLength(1);

    // The take is still the saver's file, at the shot's frame count, whichever node ComfyUI listed last.
    for (const { sc } of [off, on]) {
      expect(sc.status).toBe("ok");
      const mp4 = path.join(ep, "renders_proxy", "sh010", sc.mp4);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
    }
    expect(on.sc.save_notes).toMatch(/ComfyUI produced 2 video files; kept [^;]*\.mp4/);
  }, 120_000);
});
