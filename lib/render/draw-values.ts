// The values a picture job (a reference candidate, a preset's sample) is drawn with, fixed in its payload at queue
// time so a retry draws the same picture, and its target's workflow (as the local engine would load it) with the
// patch values they make.
import { z } from "zod";
import type { Services } from "../context.ts";
import { localAddress } from "../engines/registry.ts";
import type { EngineJob } from "../engines/types.ts";
import type { ApiGraph, PatchValues } from "../targets/graph.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { resolveWorkflow } from "../targets/workflow.ts";

const lora = z.object({ name: z.string(), strength: z.number() });

/** The payload fields every picture job carries; spread into each job's payload schema. */
export const drawFields = {
  prompt: z.string(),
  /** Digit text: payloads are JSON, seeds are 63-bit. */
  seed: z.string().regex(/^\d+$/),
  width: z.number().int().min(1),
  height: z.number().int().min(1),
  steps: z.number().nullable(),
  cfg: z.number().nullable(),
  model: z.string().nullable(),
  loras: z.array(lora),
  /** Model files per param as resolved against the engine at queue time (ComfyUI targets); empty otherwise. */
  files: z.record(z.string(), z.string()),
  /** The accelerator fallback (`base` preset) is in force, with the base preset's other values. */
  base: z.boolean(),
  base_values: z.record(z.string(), z.unknown()).nullable(),
};

export type DrawValues = z.infer<z.ZodObject<typeof drawFields>>;

/** The engine job's size, timing, seed and prompt for a still drawn from these values (no frames to deliver). */
export function stillJobValues(
  p: DrawValues,
): Pick<EngineJob, "width" | "height" | "fps" | "frames" | "seed" | "prompt"> {
  return { width: p.width, height: p.height, fps: 24, frames: 0, seed: BigInt(p.seed), prompt: p.prompt };
}

/**
 * The target's workflow (environment file, the copy saved in the local ComfyUI, the shipped one or the custom
 * target's own in `targetDir`) and the patch values the job's fields make; `params` are the job's own extra values.
 */
export async function drawPatch(
  services: Pick<Services, "home" | "env" | "caches">,
  spec: TargetSpec,
  targetDir: string | undefined,
  p: DrawValues,
  more: { negative: string | null; prefix: string; params?: Record<string, string | number> },
): Promise<{ graph: ApiGraph; values: PatchValues }> {
  const url = (await localAddress(services)).replace(/\/+$/, "");
  const wf = await resolveWorkflow(spec, {
    env: services.env,
    targetDir,
    fetch: async (route) => {
      const res = await fetch(url + route, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, text: () => res.text() };
    },
  });
  if (!wf.ok) throw new Error(wf.error);
  const values: PatchValues = {
    ...p.files,
    ...more.params,
    prompt: p.prompt,
    negative: more.negative,
    seed: BigInt(p.seed),
    width: p.width,
    height: p.height,
    model: p.files.model ?? p.model,
    loras: p.loras,
    prefix: more.prefix,
    base: p.base,
  };
  if (p.steps !== null) values.steps = p.steps;
  if (p.cfg !== null) values.cfg = p.cfg;
  // Accelerator files missing: the base preset's other values fill what the job's own values leave open.
  for (const [k, v] of Object.entries(p.base_values ?? {})) {
    if (k === "steps" || (values[k] !== undefined && values[k] !== null)) continue;
    values[k] = v;
  }
  return { graph: wf.graph, values };
}
