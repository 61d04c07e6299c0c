// The router dry run: one shot planned exactly as POST /studio/render plans it on a router target, then the task
// the engine would submit built by the same function, and shown with the address; nothing reaches the provider.
import { stat } from "node:fs/promises";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { badRequest } from "../errors.ts";
import { planRender } from "../render/plan.ts";
import { renderBody, renderRequest } from "../render/request.ts";
import { routerAddress } from "./connect.ts";
import { ROUTER_PREFIX } from "./provider.ts";
import { isRouterTarget, makesDraft, routerBlock, routerTask } from "./target.ts";

export interface DryRunInput {
  shot: string;
  target: string;
  pass: "final" | "proxy";
}

const exists = async (file: string | null) =>
  file ? (await stat(file).catch(() => null))?.isFile() === true : false;

export async function routerDryRun(
  services: Pick<Services, "home" | "engines" | "targets" | "caches" | "env">,
  ep: string,
  input: DryRunInput,
): Promise<Record<string, unknown>> {
  const req = renderRequest(
    renderBody.parse({ ep, pass: input.pass, shots: [input.shot], target: input.target, redo: true }),
  );
  const plan = await planRender(services, ep, req, { engine: (b) => services.engines.get(b) });
  const refused = [...plan.errors, ...plan.skipped].find((x) => x.shot === input.shot);
  if (refused) throw badRequest("error" in refused ? refused.error : refused.reason);
  const p = plan.shots.find((x) => x.shot === input.shot);
  if (!p) throw badRequest(`${input.shot} is not a shot of the ${input.pass} pass`);
  if (!isRouterTarget(p.spec))
    throw badRequest(`target ${input.target} is not a router target (backend router with a router block)`);
  const inputs: Record<string, string> = {};
  if (await exists(p.firstFrame)) inputs.first = p.firstFrame as string;
  if (await exists(p.lastFrame)) inputs.last = p.lastFrame as string;
  const task = await routerTask(p.spec, {
    pass: input.pass,
    width: p.width,
    height: p.height,
    fps: p.fps,
    frames: p.length,
    seed: p.seed,
    prompt: Array.isArray(p.entry.prompt) ? p.entry.prompt.map(String) : String(p.entry.prompt ?? ""),
    negative: typeof p.entry.negative === "string" ? p.entry.negative : null,
    inputs,
  });
  const s = await effectiveSettings(services);
  const block = routerBlock(p.spec);
  const base = routerAddress(s).replace(/\/+$/, "");
  return {
    shot: p.shot,
    target: p.target,
    model: block.model,
    method: "POST",
    url: `${base}${ROUTER_PREFIX}/tasks`,
    headers: { authorization: s.api_key ? "Bearer <api key>" : null, "content-type": "application/json" },
    body: task.body,
    notes: [...p.notes, ...task.notes],
    price_per_run: block.price_per_run,
    currency: block.currency,
    draft: makesDraft(block, input.pass),
  };
}
