// Mounted mode: a ComfyUI custom node pack starts this service inside ComfyUI's own server and names that server in
// STUDIO_MOUNTED_COMFY, so the `local` backend is that ComfyUI unless the settings name another.
import { normalUrl, urlProblem } from "./settings-values.ts";

export const MOUNTED_ENV = "STUDIO_MOUNTED_COMFY";

/** The ComfyUI this service runs inside, as GET /studio/config reports it. */
export interface Mounted {
  comfy: string;
}

/**
 * Refuse a STUDIO_MOUNTED_COMFY that is not a ComfyUI base address, at start: a service that silently used
 * another engine than the ComfyUI it is shown in would render where the user does not look.
 */
export function checkMounted(env: Record<string, string | undefined>): void {
  const text = env[MOUNTED_ENV];
  if (text === undefined || !text.trim()) return;
  const problem = urlProblem(text);
  if (problem !== null)
    throw new Error(
      `${MOUNTED_ENV}: "${text.slice(0, 200)}" ${problem.replace(/, or null$/, "")} (ComfyUI's own base address, e.g. http://127.0.0.1:8188)`,
    );
}

/** ComfyUI's base address when this service is mounted in it (unset, blank or unusable: not mounted). */
export function mountedComfy(env: Record<string, string | undefined> | undefined): string | null {
  return normalUrl(env?.[MOUNTED_ENV]);
}

export function mountedAnswer(env: Record<string, string | undefined> | undefined): Mounted | null {
  const comfy = mountedComfy(env);
  return comfy === null ? null : { comfy };
}
