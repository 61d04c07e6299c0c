// What a render job carries from the route that queued it to the worker that runs it; the rest is read from the
// take's sidecar and its frozen shot list. Parsed when a worker claims the job.
import { z } from "zod";
import type { Pass } from "../compile/types.ts";
import type { ApiGraph } from "../engines/types.ts";
import type { WorkflowSource } from "../targets/workflow.ts";

export interface RenderPayload {
  ep: string;
  pass: Pass;
  shot: string;
  take: number;
  stem: string;
  target: string;
  backend: string;
  /** How the shot continues the previous one in the cut (the job cuts the first frame again for `first`). */
  chain: "first" | "latent" | null;
  /** The first keyframe the target reads (absolute), or null. */
  first_frame: string | null;
  /** The last keyframe the target reads (absolute), or null; absent on older payloads. */
  last_frame?: string | null;
  save_frames: boolean;
  save_latent: boolean;
  /** The target's workflow resolved at queue time; absent on older payloads (the job resolves it). */
  workflow?: { graph: ApiGraph; source: WorkflowSource; where: string } | null;
  /** review_copy as it was when the take was queued: the workflow's review nodes are kept; absent: stripped. */
  review_copy?: boolean;
}

const workflowSource = z.enum([
  "explicit",
  "env",
  "comfy",
  "saved",
  "repo",
]) satisfies z.ZodType<WorkflowSource>;

/** One node of a ComfyUI API-format graph; fields beyond these are kept as they are. */
const apiNode = z.looseObject({
  class_type: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  _meta: z.looseObject({ title: z.string().optional() }).optional(),
});

export const renderPayload: z.ZodType<RenderPayload> = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  shot: z.string().min(1),
  take: z.number().int().min(1),
  stem: z.string().min(1),
  target: z.string().min(1),
  backend: z.string().min(1),
  chain: z.enum(["first", "latent"]).nullable(),
  first_frame: z.string().nullable(),
  last_frame: z.string().nullish(),
  save_frames: z.boolean(),
  save_latent: z.boolean(),
  workflow: z
    .object({ graph: z.record(z.string(), apiNode), source: workflowSource, where: z.string() })
    .nullish(),
  review_copy: z.boolean().optional(),
});
