// The token model downloads send to Hugging Face: read where it is needed, never written into an answer or a log.
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";

/** The download token: HF_TOKEN (or HUGGING_FACE_HUB_TOKEN) in the environment, else settings `hf_token`. */
export async function hfToken(services: Pick<Services, "home" | "caches" | "env">): Promise<string | null> {
  return (await effectiveSettings(services)).hf_token;
}
