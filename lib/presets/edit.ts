// Saving and deleting own presets: the body checked as a render request's fields are (LoRAs, steps, size), the
// target checked against the installed targets of the preset's kind, the record created or replaced by id.
import { z } from "zod";
import type { Services } from "../context.ts";
import { badRequest, notFound, shown } from "../errors.ts";
import { lorasOf, sizeOf } from "../render/request.ts";
import { targetId } from "../schema/fields.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { isShippedId, type ListedPreset, listedOwn, listPresets } from "./listing.ts";
import {
  changeOwnPresets,
  checkPresetId,
  MAX_LABEL,
  MAX_NOTE,
  type OwnPreset,
  PRESET_ID_RULE,
  removePicture,
} from "./store.ts";

export const presetIdText = z.string().max(256).describe(`An own preset's id: ${PRESET_ID_RULE}`);

/** The body of POST /studio/presets/own. */
export const ownBody = z.object({
  id: presetIdText
    .nullish()
    .describe(
      `The preset to replace, or the id of a new one (${PRESET_ID_RULE}); left out: made from the label`,
    ),
  label: z
    .string()
    .trim()
    .min(1)
    .max(MAX_LABEL)
    .describe(`Its name as shown, at most ${MAX_LABEL} characters`),
  kind: z.enum(["video", "image"]).describe("video or image: the kind of target it renders on"),
  target: targetId.describe("The target it renders on, of the preset's kind"),
  model: z.string().max(512).nullish().describe("A model file instead of the target's"),
  loras: z
    .unknown()
    .optional()
    .describe('LoRAs: "name" or "name:0.6", {name, strength}, or a list of them; "none" drops them'),
  steps: z.int().min(1).max(1000).nullish().describe("Sampling steps instead of the target's"),
  size: z.unknown().optional().describe("A size instead of the target's: WxH text or [width, height]"),
  note: z
    .string()
    .max(MAX_NOTE)
    .nullish()
    .describe(`A note (also a sample's prompt), at most ${MAX_NOTE} characters`),
});

export type OwnBody = z.output<typeof ownBody>;

/** An id made from a label: its letters and digits joined by `-`, numbered when taken. */
export function idFromLabel(label: string, taken: ReadonlySet<string>): string {
  const base =
    label
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .replace(/[^A-Za-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .toLowerCase()
      .slice(0, 48) || "preset";
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? "an" : "a");

export interface SavedPresets {
  preset: ListedPreset;
  presets: ListedPreset[];
}

/** Create or replace an own preset; 400 for a shipped id, an unknown target or one of another kind, bad fields. */
export async function saveOwnPreset(
  services: Pick<Services, "home" | "caches" | "locks" | "now">,
  registry: TargetRegistryView,
  body: OwnBody,
): Promise<SavedPresets> {
  const wanted = body.id?.trim() || null;
  if (wanted !== null && isShippedId(wanted))
    throw badRequest(
      `id: ${shown(wanted)} is a shipped preset, which cannot be changed: save it under an id of your own`,
    );
  if (wanted !== null) checkPresetId(wanted);
  const spec = registry.get(body.target);
  if (!spec) {
    const known = registry.ids(body.kind).join(", ") || "none";
    throw badRequest(
      `target: ${shown(body.target)} is not an installed target (${body.kind} targets: ${known})`,
    );
  }
  if (spec.kind !== body.kind)
    throw badRequest(
      `target: ${spec.id} is ${article(spec.kind)} ${spec.kind} target, not ${article(body.kind)} ${body.kind} target`,
    );
  const loras = lorasOf(body.loras);
  const size = sizeOf(body.size);
  const model = body.model?.trim() || null;
  const note = body.note?.trim() || null;
  const now = services.now().toISOString();
  const saved = await changeOwnPresets(services, (presets) => {
    const id = wanted ?? idFromLabel(body.label, new Set(presets.map((p) => p.id)));
    const i = presets.findIndex((p) => p.id === id);
    const old = i >= 0 ? presets[i] : null;
    const record: OwnPreset = {
      id,
      label: body.label,
      kind: body.kind,
      target: spec.id,
      model,
      loras,
      steps: body.steps ?? null,
      size,
      note,
      picture: old?.picture ?? null,
      created: old?.created ?? now,
      updated: now,
    };
    const next = [...presets];
    if (i >= 0) next[i] = record;
    else next.push(record);
    return { next, out: record };
  });
  return { preset: listedOwn(saved), presets: await listPresets(services, registry, undefined) };
}

/** Delete an own preset and its picture; 400 for a shipped id, 404 for an unknown one. */
export async function deleteOwnPreset(
  services: Pick<Services, "home" | "caches" | "locks">,
  id: string,
): Promise<void> {
  if (isShippedId(id)) throw badRequest(`id: ${shown(id)} is a shipped preset, which cannot be deleted`);
  checkPresetId(id);
  await changeOwnPresets(services, async (presets) => {
    if (!presets.some((p) => p.id === id)) throw notFound(`no own preset ${shown(id)}`);
    await removePicture(services.home, id);
    return { next: presets.filter((p) => p.id !== id), out: null };
  });
}

/** The own preset `id`: 400 for a shipped or malformed id, 404 for none. */
export function ownPresetOf(presets: readonly OwnPreset[], id: string): OwnPreset {
  if (isShippedId(id))
    throw badRequest(`id: ${shown(id)} is a shipped preset: only own presets have pictures`);
  checkPresetId(id);
  const found = presets.find((p) => p.id === id);
  if (!found) throw notFound(`no own preset ${shown(id)}`);
  return found;
}
