// The facts planning needs about one take (finished or not, its target and size, schedule, seed, kept latent,
// engine, its target's upscale block, its fresh upscale), read from its sidecar and folder; shared by the queuer
// and by the take summary's `recipe_match`, so both plan the same take the same way.
import path from "node:path";
import type { FileProbe } from "../episode/staleness.ts";
import { passFolder, safeShot, type TakeRecord, takeUsable } from "../episode/takes.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { isObject, type JsonObject, positive } from "../store/json-guards.ts";
import type { UpscaleState } from "./fresh.ts";
import type { TakeFacts } from "./plan.ts";

const ON_UPSCALE_KEYS = [
  "method",
  "route",
  "mode",
  "scale",
  "start_step",
  "pixel_model",
  "then_pixel",
  "deliver",
  "width",
  "height",
  "finished",
  "on_upscale",
];

/** The previous upscale as a record built on it summarises it (`on_upscale`). */
export function upscaleSummary(rec: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of ON_UPSCALE_KEYS) if (rec[k] !== undefined) out[k] = rec[k];
  return out;
}

/** The backend a take was rendered on (its sidecar's `backend`), or null when it does not say. */
export const takeBackend = (t: TakeRecord): string | null =>
  typeof t.sidecar?.backend === "string" && t.sidecar.backend ? t.sidecar.backend : null;

export async function takeFacts(
  vi: Pick<ViewInputs, "ep" | "pass" | "env">,
  shot: string,
  t: TakeRecord,
  up: UpscaleState | null,
  probe: FileProbe,
): Promise<TakeFacts> {
  const sc = t.sidecar ?? {};
  const target = typeof sc.target === "string" ? sc.target : null;
  const spec = target ? vi.env.targets.get(target) : undefined;
  const dir = path.join(vi.ep, passFolder(vi.pass), safeShot(shot));
  const latentName = typeof sc.latent === "string" ? sc.latent : `${t.stem}.latent.safetensors`;
  const rec = up?.record;
  return {
    shot,
    take: t.take,
    usable: takeUsable(t),
    status: typeof sc.status === "string" ? sc.status : "queued",
    target,
    width: positive(sc.width),
    height: positive(sc.height),
    steps: positive(sc.steps),
    seed:
      typeof sc.seed === "bigint" || typeof sc.seed === "number" || typeof sc.seed === "string"
        ? sc.seed
        : null,
    latent: t.files.includes(latentName) && (await probe.exists(path.join(dir, latentName))),
    builtin: spec?.backend === "builtin" || sc.backend === "builtin",
    upscaleSpec: isObject(spec?.upscale) ? spec.upscale : null,
    freshUpscale:
      up?.fresh && rec && positive(rec.width) && positive(rec.height)
        ? {
            width: positive(rec.width) ?? 0,
            height: positive(rec.height) ?? 0,
            summary: upscaleSummary(rec),
          }
        : null,
  };
}
