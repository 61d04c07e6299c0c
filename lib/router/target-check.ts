// The rules a hosted-model target is saved by: it has no workflow to bind, so it is checked as a target.json
// (parseTarget) and by its `router` block's schema, the block the engine and the dry run build the provider's task
// from. A block read loosely at render time (routerBlock) is held to these rules when saved.
import { z } from "zod";
import { isObject } from "../store/json-guards.ts";
import { parseTarget, TargetError, type TargetRegistryView } from "../targets/registry.ts";

const seconds = z.number().finite().positive().max(3600);

/** The `router` block as POST /studio/targets/router-inspect proposes it. */
export const routerBlockSchema = z.object({
  model: z.string().trim().min(1).max(200),
  fps: z.number().finite().positive().max(240),
  inputs: z.object({
    prompt: z.boolean().optional(),
    negative: z.boolean().optional(),
    first_image: z.boolean().optional(),
    last_image: z.boolean().optional(),
    durations: z.array(seconds).max(64).optional(),
    resolutions: z
      .array(z.string().regex(/^\d{3,4}p$/, "a resolution name like 720p"))
      .max(16)
      .optional(),
    aspect_ratios: z
      .array(z.string().regex(/^\d+(\.\d+)?:\d+(\.\d+)?$/, "a ratio like 16:9"))
      .max(16)
      .optional(),
  }),
  draft: z
    .object({
      resolution: z.string().regex(/^\d{3,4}p$/, "a resolution name like 480p"),
      days: z.number().finite().positive().max(365),
    })
    .nullable()
    .optional(),
  price_per_run: z.number().finite().nonnegative().optional(),
  currency: z.string().trim().min(1).max(16).optional(),
});

/** Whether a proposed target.json asks for the router backend (then it has no workflow to check). */
export const asksForRouter = (raw: unknown): boolean => isObject(raw) && raw.backend === "router";

/** Every problem of a router target.json: as a target, then its video kind and its router block. */
export function routerTargetProblems(raw: unknown, shipped: TargetRegistryView): string[] {
  const id = isObject(raw) && typeof raw.id === "string" ? raw.id : "";
  let kind: unknown;
  try {
    kind = parseTarget(raw, id, undefined, true).kind;
  } catch (err) {
    return [err instanceof TargetError ? err.message : String(err)];
  }
  const problems: string[] = [];
  if (shipped.get(id)) problems.push(`id ${id} is a built-in target's id: choose another`);
  if (kind !== "video") problems.push(`target ${id}: a hosted model renders video, not ${String(kind)}`);
  const block = isObject(raw) ? raw.router : undefined;
  if (!isObject(block)) {
    problems.push(`target ${id}: backend router needs a "router" block naming the hosted model`);
    return problems;
  }
  const parsed = routerBlockSchema.safeParse(block);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      problems.push(`target ${id}: router.${issue.path.join(".")}: ${issue.message}`);
  return problems;
}
