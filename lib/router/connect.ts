// Where the router backend is: the settings' cloud address (`cloud_url` / STUDIO_CLOUD_URL, else Comfy Cloud) and
// its API key, read the same way as the cloud lane's, so one key and one address serve both.
import { DEFAULT_CLOUD } from "../backends/list.ts";
import { type EffectiveSettings, effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { ComfyV2DownError, ComfyV2Error } from "../engines/comfy-v2/errors.ts";
import { StudioError } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { createRouterClient, type RouterClient, type RouterModel } from "./provider.ts";

/** The provider's base address of these settings. */
export const routerAddress = (s: Pick<EffectiveSettings, "cloud_url">): string =>
  s.cloud_url ?? DEFAULT_CLOUD;

/** Why the router cannot be used with these settings, or null. */
export function routerProblem(s: Pick<EffectiveSettings, "api_key">): string | null {
  return s.api_key
    ? null
    : "the router backend needs an API key: set api_key in the settings (or STUDIO_API_KEY)";
}

/** A client of the settings in force (the caller closes it); 503 without a key. */
export async function routerClient(
  services: Pick<Services, "home" | "env" | "caches">,
): Promise<RouterClient> {
  const s = await effectiveSettings(services);
  const problem = routerProblem(s);
  if (problem) throw new StudioError(503, problem);
  return createRouterClient(routerAddress(s), s.api_key);
}

/** A provider failure as the route's answer: 503 when it cannot be reached, 502 when it answered wrongly. */
export function providerError(err: unknown): StudioError {
  if (err instanceof StudioError) return err;
  if (err instanceof ComfyV2DownError) return new StudioError(503, err.message);
  if (err instanceof ComfyV2Error) return new StudioError(502, err.message);
  return new StudioError(502, `the hosted-model router failed: ${errorMessage(err)}`);
}

/** The provider's models (GET /studio/router/models), or the route's error. */
export async function routerModels(
  services: Pick<Services, "home" | "env" | "caches">,
): Promise<RouterModel[]> {
  const client = await routerClient(services);
  try {
    return await client.models({ timeoutMs: 15_000 });
  } catch (err) {
    throw providerError(err);
  } finally {
    await client.close();
  }
}

/** One model by id; 404 when the provider does not list it. */
export async function routerModel(
  services: Pick<Services, "home" | "env" | "caches">,
  id: string,
): Promise<RouterModel> {
  const models = await routerModels(services);
  const m = models.find((x) => x.id === id);
  if (!m) {
    const known = models.map((x) => x.id).join(", ") || "none";
    throw new StudioError(404, `the hosted-model router has no model '${id}' (it offers: ${known})`);
  }
  return m;
}
