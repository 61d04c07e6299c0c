// Generate's `pano` option: a 360 panorama of a location on a panorama target. Its graph outpaints one 2:1 canvas,
// its only reference picture: the live plate in the middle (straight ahead) and up to two more plates a third of the
// way round each side, most important first, on grey the model fills in. The canvas is kept by content under the
// location's `_composites/`; the takes are of the `pano` pseudo-view (never picked).
import path from "node:path";
import sharp, { type OverlayOptions } from "sharp";
import { z } from "zod";
import { badRequest } from "../errors.ts";
import { fileInside, rootsFence } from "../paths/guarded.ts";
import { type JsonObject, num } from "../store/json-guards.ts";
import type { ApiGraph } from "../targets/graph.ts";
import type { TargetRegistryView, TargetSpec } from "../targets/registry.ts";
import type { Catalog, CatalogRef } from "./catalog.ts";
import { keepComposite, readPicture } from "./composite.ts";
import type { RefsPlace } from "./place.ts";

export const PANO_SIZE = { width: 2048, height: 1024 };
/** The panorama target each `engine` names. */
export const PANO_ENGINES = { klein: "klein_erp_360" } as const;
export const MAX_PANO_WORDS = 35;

export const panoOption = z
  .object({
    with: z
      .array(z.string().max(160))
      .max(8)
      .nullish()
      .describe(
        "Up to two more locations (location:<id> or <id>) whose live plates join the canvas, most important first",
      ),
    engine: z.enum(["klein"]).nullish().describe("The panorama engine: klein (klein_erp_360, the default)"),
    size: z.string().max(20).nullish().describe("WxH with width twice the height (default 2048x1024)"),
    latent: z
      .enum(["empty"])
      .nullish()
      .describe(
        "empty: sample from an empty latent instead of the encoded canvas (the canvas still guides it)",
      ),
  })
  .describe("On a location: make 360 panoramas (takes of the pano pseudo-view, listed as panos)");

export type PanoOption = z.output<typeof panoOption>;

/** The panorama's size: `WxH`, 2:1, 512 to 8192 wide, on the target's grid; 400 otherwise. */
export function panoSize(text: string | null | undefined, spec: Pick<TargetSpec, "template">) {
  if (!text) return { ...PANO_SIZE };
  const m = /^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$/.exec(text);
  if (!m) throw badRequest(`pano.size: ${JSON.stringify(text)} is not WxH`);
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w !== h * 2) throw badRequest(`pano.size: a panorama is 2:1 (width twice the height), not ${w}x${h}`);
  if (w < 512 || w > 8192) throw badRequest(`pano.size: the width must be 512 to 8192, not ${w}`);
  const grid = Math.max(1, num(spec.template.size_multiple) ?? 16);
  const hh = Math.max(grid, Math.round(h / grid) * grid);
  return { width: hh * 2, height: hh };
}

/** One sentence of at most 35 words: the panorama LoRA was trained on short captions. */
export function panoPrompt(text: string): string {
  const first = text.trim().split(/(?<=[.!?])\s+/)[0] ?? "";
  const words = first.split(/\s+/).filter(Boolean);
  const cut = words
    .slice(0, MAX_PANO_WORDS)
    .join(" ")
    .replace(/[,;:]+$/, "");
  if (!cut) return "";
  return /[.!?]$/.test(cut) ? cut : `${cut}.`;
}

/** The target a request lands on: the one asked (a panorama target), else the engine's. 400 otherwise. */
export function panoTargetOf(
  requested: string | null | undefined,
  pano: PanoOption,
  registry: TargetRegistryView,
): TargetSpec {
  const id = requested || PANO_ENGINES[pano.engine ?? "klein"];
  const spec = registry.get(id);
  const panos = registry.ids("image").filter((t) => registry.get(t)?.capabilities.mode === "pano");
  if (!spec)
    throw badRequest(
      `unknown target ${id}: panoramas are made on ${panos.join(", ") || "no installed target"}`,
    );
  if (spec.capabilities.mode !== "pano")
    throw badRequest(
      `${spec.short} is not a panorama target: panoramas are made on ${panos.join(", ") || "none installed"}`,
    );
  if (pano.engine && requested && PANO_ENGINES[pano.engine] !== spec.id)
    throw badRequest(`pano.engine ${pano.engine} is ${PANO_ENGINES[pano.engine]}, not ${spec.id}`);
  return spec;
}

/** Centre of each plate on the canvas, as a share of its width: straight ahead, then 120° right and left. */
const CENTRES = [0.5, 5 / 6, 1 / 6];

/** The canvas: grey, each plate scaled to a quarter of the width (a 90° view) at its centre. */
export async function panoCanvas(size: { width: number; height: number }, plates: readonly Buffer[]) {
  const layers: OverlayOptions[] = [];
  const boxes: { left: number; top: number; width: number; height: number }[] = [];
  for (const [i, plate] of plates.slice(0, CENTRES.length).entries()) {
    const meta = await sharp(plate).metadata();
    const aspect = (meta.width ?? 16) / Math.max(1, meta.height ?? 9);
    let width = Math.round(size.width / 4);
    let height = Math.round(width / aspect);
    if (height > size.height * 0.6) {
      height = Math.round(size.height * 0.6);
      width = Math.round(height * aspect);
    }
    const left = Math.round(size.width * CENTRES[i] - width / 2);
    const top = Math.round((size.height - height) / 2);
    layers.push({
      input: await sharp(plate).resize(width, height, { fit: "fill" }).removeAlpha().png().toBuffer(),
      left,
      top,
    });
    boxes.push({ left, top, width, height });
  }
  const grey = await sharp({
    create: { width: size.width, height: size.height, channels: 3, background: "#808080" },
  })
    .png()
    .toBuffer();
  return { png: await sharp(grey).composite(layers).png().toBuffer(), boxes };
}

export interface PanoPlan {
  spec: TargetSpec;
  width: number;
  height: number;
  prompt: string;
  /** The canvas, the one picture sent. */
  files: string[];
  latent: "empty" | null;
  record: { pano: JsonObject; references: JsonObject[] };
}

/** Check a panorama request on a location and compose its canvas; 400 for what cannot be made. */
export async function planPano(
  place: RefsPlace,
  catalog: Catalog,
  ask: {
    ref: CatalogRef;
    pano: PanoOption;
    prompt: string | null;
    target: string | null;
    registry: TargetRegistryView;
  },
): Promise<PanoPlan> {
  const { ref: c, pano } = ask;
  if (c.kind !== "location") throw badRequest(`panoramas are made of locations, not of ${c.ref.id}`);
  const spec = panoTargetOf(ask.target, pano, ask.registry);
  const size = panoSize(pano.size, spec);
  const more = (pano.with ?? []).map((w) => (w.startsWith("location:") ? w : `location:${w}`));
  if (more.length > 2) throw badRequest(`pano.with: at most two more plates, got ${more.length}`);
  const ids = [c.ref.id, ...more];
  const roots = rootsFence(place.roots);
  const plates: { ref: string; file: string }[] = [];
  for (const [i, id] of ids.entries()) {
    const where = i === 0 ? "" : `pano.with[${i - 1}]: `;
    if (ids.indexOf(id) !== i) throw badRequest(`${where}${id} is already on the canvas`);
    const other = catalog.byId.get(id);
    if (other?.kind !== "location") throw badRequest(`${where}${id} is not a location of this episode`);
    const file = await fileInside(roots, other.file);
    if (!file)
      throw badRequest(
        `${where}${id} has no live plate (nothing at ${other.path}): pick or import one first`,
      );
    plates.push({ ref: id, file });
  }
  const read = await Promise.all(plates.map((p) => readPicture(roots, p.file)));
  const canvas = await panoCanvas(
    size,
    read.map((r) => r.data),
  );
  const file = await keepComposite(place, c.ref, canvas.png);
  const prompt = panoPrompt(ask.prompt?.trim() || c.prompt || "");
  if (!prompt)
    throw badRequest(
      `${c.ref.id} has no wording for a panorama (the series config gives none): send a prompt`,
    );
  const rel = (f: string) => path.relative(place.ep, f).split(path.sep).join("/");
  const kept = await readPicture(roots, file);
  return {
    spec,
    width: size.width,
    height: size.height,
    prompt,
    files: [file],
    latent: pano.latent ?? null,
    record: {
      pano: {
        with: more,
        engine: pano.engine ?? "klein",
        size: `${size.width}x${size.height}`,
        latent: pano.latent ?? null,
      },
      references: [
        {
          image: 1,
          ref: "canvas",
          path: rel(file),
          sha1: kept.sha1,
          width: size.width,
          height: size.height,
          plates: plates.map((p, i) => ({
            ref: p.ref,
            path: rel(p.file),
            sha1: read[i].sha1,
            box: canvas.boxes[i],
          })),
        },
      ],
    },
  };
}

/**
 * `latent: empty`: the sampler starts from an empty latent at the panorama's size instead of the encoded canvas
 * (which still conditions it through its reference latents). Answers a changed copy.
 */
export function withEmptyLatent(graph: ApiGraph, width: number, height: number): ApiGraph {
  const g = structuredClone(graph);
  const samplers = Object.keys(g).filter((id) => g[id].class_type === "KSampler");
  if (samplers.length !== 1)
    throw new Error(`latent empty: expected one KSampler in the panorama graph, found ${samplers.length}`);
  let id = "h3_empty_latent";
  while (g[id]) id += "_";
  g[id] = {
    class_type: "EmptyFlux2LatentImage",
    inputs: { width, height, batch_size: 1 },
    _meta: { title: "Empty latent (pano latent: empty)" },
  };
  g[samplers[0]].inputs.latent_image = [id, 0];
  return g;
}
