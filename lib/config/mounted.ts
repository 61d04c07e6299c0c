// Mounted mode: a ComfyUI custom node pack starts this service inside ComfyUI's own server and names that server in
// STUDIO_MOUNTED_COMFY, so the `local` backend is that ComfyUI unless the settings name another. The pack also names
// the client id the engine queues that ComfyUI's prompts under (STUDIO_COMFY_CLIENT_ID): ComfyUI sends a prompt's
// progress only to that id's socket, and the pack copies those events to the page's.
import { normalUrl, urlProblem } from "./settings-values.ts";

export const MOUNTED_ENV = "STUDIO_MOUNTED_COMFY";
export const MOUNTED_CLIENT_ENV = "STUDIO_COMFY_CLIENT_ID";
// 32 hex digits as the pack draws it, or a dashed UUID: anything else could collide with or pose as a page's id.
const CLIENT_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

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

/**
 * Why STUDIO_COMFY_CLIENT_ID is ignored, or null when it is usable or unset. Only a warning: the engine then queues
 * under an id of its own, renders still work, and only ComfyUI's progress on the page is missing.
 */
export function mountedClientIdProblem(env: Record<string, string | undefined>): string | null {
  const text = env[MOUNTED_CLIENT_ENV];
  if (text === undefined || !text.trim()) return null;
  if (!CLIENT_ID.test(text.trim()))
    return `${MOUNTED_CLIENT_ENV}: "${text.slice(0, 80)}" is not 32 hex digits or a UUID; ignored (ComfyUI's progress for the studio's renders will not reach the page)`;
  if (mountedComfy(env) === null) return `${MOUNTED_CLIENT_ENV} is set without ${MOUNTED_ENV}; ignored`;
  return null;
}

/** The client id to queue prompts on the mounted ComfyUI under, or null (not mounted, unset or unusable). */
export function mountedClientId(env: Record<string, string | undefined> | undefined): string | null {
  const text = env?.[MOUNTED_CLIENT_ENV]?.trim();
  if (!text || !CLIENT_ID.test(text) || mountedComfy(env) === null) return null;
  return text;
}

/** ComfyUI's base address when this service is mounted in it (unset, blank or unusable: not mounted). */
export function mountedComfy(env: Record<string, string | undefined> | undefined): string | null {
  return normalUrl(env?.[MOUNTED_ENV]);
}

export function mountedAnswer(env: Record<string, string | undefined> | undefined): Mounted | null {
  const comfy = mountedComfy(env);
  return comfy === null ? null : { comfy };
}
