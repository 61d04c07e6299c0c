// POST /studio/presets/own/render: a sample picture of an own image preset, queued as a `preset` job on the
// preset's target (the built-in card draws one with no GPU; a ComfyUI target gets its workflow patched with the
// preset's model, LoRAs, steps and size, its files checked against the local engine first). The job's picture
// becomes the preset's picture when it ends. Every value is fixed here so a retry draws the same picture.
import { z } from "zod";
import type { Services } from "../context.ts";
import { laneUnready, localAddress } from "../engines/registry.ts";
import { badRequest, conflict } from "../errors.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { onGrid } from "../refs/generate.ts";
import { drawFields } from "../render/draw-values.ts";
import { listTargetModels } from "../render/model-listing.ts";
import { targetBackend } from "../render/plan.ts";
import { ep } from "../schema/fields.ts";
import { newSeed53 } from "../script/seeds.ts";
import { errorMessage, num } from "../store/json-guards.ts";
import { resolveModels } from "../targets/models.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { ownPresetOf, presetIdText } from "./edit.ts";
import { presetLoras } from "./listing.ts";
import { readOwnPresets } from "./store.ts";

export const MAX_PROMPT = 4000;
/** The size a sample is drawn at when neither the preset nor its target names one. */
const FALLBACK_SIDE = 1024;

export const sampleBody = z.object({
  id: presetIdText,
  ep: ep.optional().describe("An episode, so a preset on one of its show's own targets finds that target"),
  prompt: z
    .string()
    .max(MAX_PROMPT)
    .nullish()
    .describe("What the sample shows; left out: the preset's note, else its label"),
  backend: z
    .string()
    .max(128)
    .nullish()
    .describe("The backend: builtin, local, cloud or deployment:<target>; left out: the target's own"),
});

export type SampleBody = z.output<typeof sampleBody>;

/** What a `preset` job carries: everything the picture is drawn with. */
export const samplePayload = z.object({
  preset: z.string().min(1),
  target: z.string().min(1),
  backend: z.string().min(1),
  /** The show folder whose own targets are looked in too (null: the installed targets only). */
  show: z.string().nullable(),
  ...drawFields,
});

export type SamplePayload = z.infer<typeof samplePayload>;

type SampleServices = Pick<Services, "home" | "env" | "caches" | "engines" | "now">;

/** Model files for a ComfyUI target on the local engine: 409 naming the missing ones. */
async function localFiles(
  services: SampleServices,
  spec: NonNullable<ReturnType<TargetRegistryView["get"]>>,
  model: string | null,
  loras: SamplePayload["loras"] | null,
): Promise<Pick<SamplePayload, "files" | "base" | "base_values" | "loras">> {
  const url = await localAddress(services);
  const listed = await listTargetModels(services.engines.lookups, url, spec, new Map());
  if ("error" in listed) throw conflict(listed.error);
  const models = await resolveModels(spec, "final", listed.listing, { job: { model, loras } });
  if (models.blocked) {
    const lacking = models.missing.filter((m) => m.tier !== "optional");
    throw conflict(`missing model files: ${lacking.map((m) => `${m.want} (${m.param})`).join(", ")}`, {
      missing_files: lacking.map((m) => ({
        param: m.param,
        tier: m.tier,
        want: m.want,
        folder: m.folder,
        url: m.url,
      })),
    });
  }
  return {
    files: { ...models.files },
    base: models.base,
    base_values: models.base ? { ...models.values } : null,
    loras: models.loras,
  };
}

/** Check the request and queue the sample's job; 400/404 for the preset, 400/409 for its target and backend. */
export async function queueSample(
  services: SampleServices,
  registry: TargetRegistryView,
  show: string | null,
  body: SampleBody,
  store: JobStore,
): Promise<Job> {
  const preset = ownPresetOf(await readOwnPresets(services), body.id);
  if (preset.kind !== "image") {
    throw badRequest(
      `${preset.id} is a video preset: a sample is drawn for image presets only; give it a picture with POST /studio/presets/own/picture`,
    );
  }
  const spec = registry.get(preset.target);
  if (!spec) throw conflict(`the target ${preset.target} of ${preset.id} is not installed here any more`);
  const mode = spec.capabilities.mode;
  if (mode === "edit" || mode === "pano") {
    const needs = mode === "edit" ? "the pictures it changes" : "a canvas to outpaint";
    throw badRequest(
      `${spec.short} is ${mode === "edit" ? "an edit" : "a pano"} target: it needs ${needs}, so it draws no sample`,
    );
  }
  const builtin = spec.backend === "builtin";
  const lane = body.backend?.trim() || targetBackend(spec);
  try {
    services.engines.get(lane);
  } catch (err) {
    throw badRequest(`backend: ${errorMessage(err)}`);
  }
  const problem = await laneUnready(lane, services);
  if (problem !== null) throw conflict(problem);
  if (lane === "builtin" && !builtin)
    throw badRequest(
      `backend: the builtin backend does not run ${spec.short}: send it to one that does (local)`,
    );
  if (builtin && lane !== "builtin")
    throw badRequest(
      `backend: ${spec.short} is drawn by the built-in engine only: leave backend out or send builtin`,
    );
  const final = spec.presets.final ?? spec.presets.proxy ?? {};
  const { width, height } = onGrid(
    preset.size?.width ?? num(final.width) ?? FALLBACK_SIDE,
    preset.size?.height ?? num(final.height) ?? FALLBACK_SIDE,
    spec,
  );
  const models =
    !builtin && lane === "local"
      ? await localFiles(services, spec, preset.model, preset.loras)
      : { files: {}, base: false, base_values: null, loras: preset.loras ?? presetLoras(final) };
  const prompt = body.prompt?.trim() || preset.note || preset.label;
  const payload: SamplePayload = {
    preset: preset.id,
    target: spec.id,
    backend: lane,
    show,
    prompt,
    seed: newSeed53().toString(),
    width,
    height,
    steps: preset.steps ?? num(final.steps) ?? null,
    cfg: num(final.cfg) ?? null,
    model: preset.model,
    ...models,
  };
  return store.add({
    kind: "preset",
    lane,
    title: `preset ${preset.id} sample`,
    info: { preset: preset.id, target: spec.id, backend: lane },
    payload,
    after: null,
  });
}
