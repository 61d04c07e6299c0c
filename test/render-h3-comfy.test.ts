// MiniMax H3 Ref2VA and FL2VA render through the ComfyUI double: POST /studio/render on an H3 series, the job store, a
// WorkerPool and the local engine. Ref2VA's graph reads the take's frozen shot list through the pack's loader and
// saves with the pack's saver; FL2VA reads a shot's first frame or renders from the prompt alone, and a dubbed shot's
// window of the dialogue track as an audio guide; each take has the shot's exact frame count. Without the pack, Ref2VA is not ready and its shots are skipped naming the classes.
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countFrames, mediaTools } from "../lib/media/ffmpeg.ts";
import { loaderVariant } from "../lib/targets/patches/h3-core.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { DEFAULT_NODES } from "./support/comfy-double/index.ts";
import {
  graphs,
  ofClass,
  png,
  renderQueued,
  runRenders,
  takeSidecar as sidecar,
  TWO_SHOTS,
  targetModels,
  useComfyStudio,
} from "./support/comfy-studio.ts";
import { makeTone } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

/** The double's own files plus every file the H3 targets name for download. */
const H3_MODELS = targetModels(["minimax_h3_ref2va", "minimax_h3_fl2va"]);
const c = useComfyStudio(H3_MODELS);

async function episodeOn(target: string, firsts: Record<string, string> = {}): Promise<string> {
  const series = seriesS();
  series.series.target = target;
  const ep = await c.s.episode(TWO_SHOTS, { series });
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 48, "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 48, "#336699");
  for (const [shot, colour] of Object.entries(firsts))
    await png(path.join(ep, "refs", "shots", shot, "first.png"), 64, 48, colour);
  return ep;
}

/** Render both shots through POST /studio/render and a worker pool; every job succeeds, the double refuses nothing. */
async function renderEpisode(ep: string, target: string): Promise<number> {
  const before = graphs(c.double).length;
  await renderQueued(c, { ep }, [
    ["sh010", target],
    ["sh020", target],
  ]);
  return before;
}

describe("minimax_h3_ref2va on the local ComfyUI", { timeout: 120_000 }, () => {
  it("renders each shot from its frozen shot list through the pack's loader and saver, with exact frame counts", async () => {
    const ep = await episodeOn("minimax_h3_ref2va");
    const before = await renderEpisode(ep, "minimax_h3_ref2va");
    const mine = graphs(c.double).slice(before);
    expect(mine).toHaveLength(2);
    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "minimax_h3_ref2va", backend: "local" });
      expect(sc.save_notes).toMatch(/rendered through the h3pipe node pack \(H3SaveShot, H3ShotListLoader\)/);
      expect(sc.notes).toContainEqual(expect.stringMatching(/^rendered through the h3pipe node pack/));
      expect((sc.length - 5) % 17).toBe(0);
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect((await stat(mp4)).size).toBeGreaterThan(0);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
      const frozen = path.join(ep, "renders_proxy", shot, `${shot}_t01.shotlist.json`);
      const g =
        mine.find((x) =>
          ofClass(x, "H3ShotListLoader").some((n: Any) =>
            n.inputs.shotlist.endsWith(`${shot}_t01.shotlist.json`),
          ),
        ) ?? {};
      const loader: Any = ofClass(g, "H3ShotListLoader")[0];
      expect(path.resolve(loader.inputs.root, loader.inputs.shotlist)).toBe(frozen);
      expect(loader.inputs.index).toBe(0);
      expect(ofClass(g, "H3SaveShot")).toHaveLength(1);
      expect(ofClass(g, "SaveVideo")).toHaveLength(0);
      expect(ofClass(g, "MiniMaxH3ReferenceToVideo")).toHaveLength(1);
    }
  });
});

describe("minimax_h3_fl2va on the local ComfyUI", { timeout: 120_000 }, () => {
  it("renders a shot from its first frame and one from the prompt alone, with exact frame counts", async () => {
    const ep = await episodeOn("minimax_h3_fl2va", { sh010: "#336699" });
    const before = await renderEpisode(ep, "minimax_h3_fl2va");
    const mine = graphs(c.double).slice(before);
    expect(mine).toHaveLength(2);
    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "minimax_h3_fl2va", backend: "local" });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
      expect((sc.length - 5) % 17).toBe(0);
    }
    const first = (await sidecar(ep, "sh010")).inputs.first;
    expect(first).toBeTruthy();
    const i2vOf = (g: Record<string, Any>) => {
      const nodes = ofClass(g, "MiniMaxH3ImageToVideo");
      expect(nodes).toHaveLength(1);
      return nodes[0];
    };
    const g1 = mine.find((g) => ofClass(g, "LoadImage").length > 0) ?? {};
    expect(g1[i2vOf(g1).inputs.first_frame[0]].inputs.image).toBe(first);
    expect(i2vOf(g1).inputs).toMatchObject({
      width: 448,
      height: 256,
      length: (await sidecar(ep, "sh010")).length,
    });
    expect(ofClass(g1, "LoraLoaderModelOnly")).toHaveLength(1);
    const g2 = mine.find((g) => g !== g1) ?? {};
    expect(i2vOf(g2).inputs).not.toHaveProperty("first_frame");
  });
});

describe("minimax_h3_fl2va dubbing a recorded line on the local ComfyUI", { timeout: 120_000 }, () => {
  it("uploads the shot's window of the dialogue track and anchors it through LoadAudio and MiniMaxH3AddGuide", async () => {
    const series = seriesS();
    series.series.target = "minimax_h3_fl2va";
    (series as Any).audio = { mode: "generate", track: "audio/e01_dialogue.wav" };
    const script = [
      "= e01  T",
      "# sq01 kitchen",
      "## sh010",
      "who: ada",
      "policy: dub",
      "audio: 0.50-2.00",
      "ADA: Hi.",
    ];
    const ep = await c.s.episode(script.join("\n"), { series });
    const track = path.join(ep, "audio", "e01_dialogue.wav");
    await mkdir(path.dirname(track), { recursive: true });
    const { ffmpeg } = await mediaTools(c.s.env.services.media);
    await makeTone(ffmpeg, track, 4, 440, { channels: 1 });
    const before = graphs(c.double).length;
    const res = await c.s.call("POST", "/render", { ep });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.queued.map((q: Any) => q.shot),
      JSON.stringify(res.body),
    ).toEqual(["sh010"]);
    await runRenders(c, res.body.queued);
    const sc = await sidecar(ep, "sh010");
    expect(sc).toMatchObject({ status: "ok", target: "minimax_h3_fl2va" });
    const g = graphs(c.double).slice(before)[0] ?? {};
    const guide: Any = ofClass(g, "MiniMaxH3AddGuide")[0];
    expect(guide.inputs.frame_idx).toBe(0);
    const load = g[guide.inputs.audio[0]];
    expect(load.class_type).toBe("LoadAudio");
    expect(load.inputs.audio).toMatch(/\.wav$/);
    expect(c.double.uploads.map((u) => u.name.split("/").pop())).toContain(
      load.inputs.audio.split("/").pop(),
    );
    expect(ofClass(g, "BasicGuider").map((n: Any) => n.inputs.conditioning[0])).toEqual([
      Object.keys(g).find((id) => g[id] === guide),
    ]);
  });
});

describe("minimax_h3_ref2va without the project's node pack", { timeout: 120_000 }, () => {
  const bare = useComfyStudio(H3_MODELS, { nodes: DEFAULT_NODES.filter((n) => !n.startsWith("H3")) });

  it("renders on core nodes alone: the take's values as widgets, its pictures uploaded, SaveVideo saving it", async () => {
    const series = seriesS();
    series.series.target = "minimax_h3_ref2va";
    const script = TWO_SHOTS.replace("## sh010\n", "## sh010\nwho: ada\n");
    const ep = await bare.s.episode(script, { series });
    for (const dir of [path.dirname(ep), ep]) {
      await png(path.join(dir, "refs", "_bg", "kitchen.png"), 64, 48, "#336699");
      await png(path.join(dir, "refs", "ada", "ada_sheet_4panel.png"), 64, 48, "#aa3322");
    }
    const listed = await bare.s.call("GET", "/targets", { ready: "1", kind: "video", ep });
    expect(listed.status).toBe(200);
    const h3 = listed.body.targets.find((t: Any) => t.id === "minimax_h3_ref2va");
    // The pack is optional now: readiness names it but does not block the core path.
    expect(h3.readiness.status).toBe("degraded");
    expect(h3.readiness.nodes_missing).toEqual(["H3SaveShot", "H3ShotListLoader"]);
    const before = bare.double.prompts.length;
    const res = await bare.s.call("POST", "/render", { ep });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.skipped).toEqual([]);
    expect(res.body.queued.map((q: Any) => q.shot)).toEqual(["sh010", "sh020"]);
    await runRenders(bare, res.body.queued);
    const sent = bare.double.prompts.slice(before);
    expect(sent.map((p) => p.status)).toEqual([200, 200]);
    const mine = sent.map((p: Any) => (p.body?.prompt ?? {}) as Record<string, Any>);
    const pictures: Record<string, number> = {};
    for (const shot of ["sh010", "sh020"]) {
      const sc = await sidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: "minimax_h3_ref2va", backend: "local" });
      expect((sc.length - 5) % 17).toBe(0);
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect(await countFrames(mp4, bare.s.env.services.media)).toBe(sc.length);
      // The take's notes (and the run's save_notes) say which path it took.
      expect(sc.notes).toContainEqual(expect.stringMatching(/^rendered on core ComfyUI nodes/));
      expect(sc.save_notes).toMatch(/rendered on core ComfyUI nodes: the engine lacks the h3pipe node pack/);
      const g =
        mine.find((x) => ofClass(x, "SaveVideo").some((n: Any) => n.inputs.filename_prefix.includes(shot))) ??
        {};
      expect(Object.values(g).filter((n: Any) => n.class_type.startsWith("H3"))).toEqual([]);
      const ref: Any = ofClass(g, "MiniMaxH3ReferenceToVideo")[0];
      expect(ref.inputs).toMatchObject({ width: sc.width, height: sc.height, length: sc.length });
      expect(typeof ref.inputs.prompt).toBe("string");
      expect(ofClass(g, "RandomNoise")[0].inputs.noise_seed).toBe(Number(sc.seed));
      expect(ofClass(g, "BasicScheduler")[0].inputs.steps).toBe(sc.steps);
      const images = Object.keys(ref.inputs).filter((k) => k.startsWith("ref_images."));
      pictures[shot] = images.length;
      for (const k of images) {
        const load = g[ref.inputs[k][0]];
        expect(load.class_type).toBe("LoadImage");
        expect(bare.double.uploads.map((u) => u.name.split("/").pop())).toContain(
          load.inputs.image.split("/").pop(),
        );
      }
    }
    // Ada's sheet, then the plate; the second shot has the plate alone.
    expect(pictures).toEqual({ sh010: 2, sh020: 1 });
  });
});

describe("minimax_h3_ref2va with only part of the pack", { timeout: 120_000 }, () => {
  it("takes the core path when either pack class is missing", async () => {
    const spec = shippedRegistry().get("minimax_h3_ref2va");
    if (!spec) throw new Error("no minimax_h3_ref2va");
    expect(loaderVariant(spec, new Set(DEFAULT_NODES))).toBe("pack");
    expect(loaderVariant(spec, new Set(DEFAULT_NODES.filter((n) => n !== "H3SaveShot")))).toBe("core");
  });
});
