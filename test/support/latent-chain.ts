// Latent chains in tests: a studio whose local backend is the ComfyUI double (offering the project pack's
// nodes), a test-only target `ltx2_chain` (ltx2's workflow and binding with a `continuous` block that holds
// latents: a hold of 17 frames, the first SamplerCustomAdvanced, the video VAELoader), and a three-shot episode
// whose sh020 and sh030 continue the shot before them. The target is a show's own (`targets/ltx2_chain` beside series.json).
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_MODELS, DEFAULT_NODES, FINISHING_PACK_NODES } from "./comfy-double/index.ts";
import { type ComfyStudio, png, useComfyStudio } from "./comfy-studio.ts";
import { seriesS } from "./series-s.ts";
import type { Studio } from "./studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
export type Any = any;

export const CHAIN_TARGET = "ltx2_chain";

export const CHAIN_SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "dur: 1",
  "The kettle steams.",
  "## sh020",
  "continuous: latent",
  "dur: 1",
  "Steam fills the window.",
  "## sh030",
  "continuous: latent",
  "dur: 1",
  "The window fogs over.",
].join("\n");

/** ltx2's target.json with a `continuous` block that holds latents (what only H3 declares among the shipped ones). */
async function chainTargetJson(): Promise<Record<string, unknown>> {
  const raw = JSON.parse(await readFile(path.join(LTX2_DIR, "target.json"), "utf8"));
  return {
    ...raw,
    id: CHAIN_TARGET,
    label: "LTX-2 chained (test)",
    continuous: {
      modes: ["latent"],
      latent: {
        overlap: 17,
        hold_audio: false,
        sampler: { class: "SamplerCustomAdvanced", input: "latent_image" },
        video_vae: { class_type: "VAELoader", output: 0, title: "Load video VAE" },
      },
    },
  };
}

const LTX2_DIR = path.join(import.meta.dirname, "..", "..", "lib", "targets", "video", "ltx2");

/** Registers the hooks of a ComfyUI studio whose double also offers the project pack's nodes. */
export function useChainStudio(): ComfyStudio {
  // The project pack's nodes too: its H3ChainLatent holds, its loaders and savers run the latent upscales.
  return useComfyStudio(DEFAULT_MODELS, { nodes: [...DEFAULT_NODES, ...FINISHING_PACK_NODES.h3pipe] });
}

/** The chain episode on `ltx2_chain` (a target of the show's own), with its kitchen plate, built. */
export async function chainEpisode(s: Studio): Promise<string> {
  const series = seriesS();
  series.series.target = CHAIN_TARGET;
  const ep = await s.episode(CHAIN_SCRIPT, { series, build: false });
  // The show folder is the one holding series.json: here the episode folder itself.
  const dir = path.join(ep, "targets", CHAIN_TARGET);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "target.json"), JSON.stringify(await chainTargetJson(), null, 2));
  await copyFile(path.join(LTX2_DIR, "workflow.json"), path.join(dir, "workflow.json"));
  await png(path.join(path.dirname(ep), "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  await png(path.join(ep, "refs", "_bg", "kitchen.png"), 64, 64, "#336699");
  const built = await s.call("POST", "/build", { ep });
  if (!built.body.ok) throw new Error(`build failed: ${JSON.stringify(built.body)}`);
  return ep;
}
