// The token model downloads send to Hugging Face: read where it is needed, never written into an answer or a log.
import { readSettingsFile } from "../config/settings.ts";
import type { Services } from "../context.ts";

/** The download token: HF_TOKEN (or HUGGING_FACE_HUB_TOKEN) in the environment, else settings `hf_token`. */
export async function hfToken(services: Pick<Services, "home" | "caches" | "env">): Promise<string | null> {
  const fromEnv = services.env.HF_TOKEN?.trim() || services.env.HUGGING_FACE_HUB_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const record: Record<string, unknown> = await readSettingsFile(services);
  const t = record.hf_token;
  return typeof t === "string" && t.trim() ? t.trim() : null;
}
