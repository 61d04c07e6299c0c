// The reference files a shot-list target's core path uploads (the pack would read them from the frozen shot list
// itself): the take's recorded subject pictures, then the plate, then its voice samples, in slot order, as job inputs.
import { refResolver } from "../episode/staleness.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { fileInside, showFence } from "../paths/guarded.ts";
import { isObject } from "../store/json-guards.ts";
import { pictureRole, voiceRole } from "../targets/patches/h3-core.ts";
import type { TargetSpec } from "../targets/registry.ts";
import type { Sidecar } from "./sidecar.ts";

/**
 * Job inputs (`ref_image_i`, `ref_audio_i`: absolute paths, numbered without gaps) for the take's recorded `refs`,
 * and notes for what the core path leaves out: a file that is not there (the pack would feed a grey stand-in) and a
 * dub's recording (the core node takes voice samples, not a track to follow).
 */
export async function h3CoreRefs(
  vi: ViewInputs,
  spec: TargetSpec,
  sidecar: Sidecar,
): Promise<{ inputs: Record<string, string>; notes: string[] }> {
  const refs = (Array.isArray(sidecar.refs) ? sidecar.refs : []).filter(isObject);
  const resolve = refResolver(vi, vi.ep, vi.home);
  const slotOrder = (slots: readonly string[] | undefined) => (slot: unknown) => {
    const i = (slots ?? []).indexOf(String(slot));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const bySlot = (role: string, order: (slot: unknown) => number) =>
    refs.filter((r) => r.role === role).sort((a, b) => order(a.slot) - order(b.slot));
  const pictures = [...bySlot("subject", slotOrder(spec.recipe.subject_slots)), ...bySlot("plate", () => 0)];
  const voices = bySlot("voice", slotOrder(spec.recipe.voice_slots));
  const inputs: Record<string, string> = {};
  const notes: string[] = [];
  const absent: string[] = [];
  const place = async (list: Record<string, unknown>[], role: (i: number) => string) => {
    let n = 0;
    for (const r of list) {
      if (typeof r.path !== "string") continue;
      const abs = resolve(r.path);
      if ((await fileInside(showFence(vi.ep), abs)) === null) {
        absent.push(`${String(r.slot)} (${r.path})`);
        continue;
      }
      inputs[role(n++)] = abs;
    }
  };
  await place(pictures, pictureRole);
  await place(voices, voiceRole);
  if (absent.length) notes.push(`the core path leaves out what is not there: ${absent.join(", ")}`);
  if (refs.some((r) => r.role === "recording"))
    notes.push(
      "the core path takes no recording to dub: the sound is generated with the voice samples alone",
    );
  return { inputs, notes };
}
