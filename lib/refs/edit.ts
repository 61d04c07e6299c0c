// Generate's `edit` option: an edit target changes an existing picture (a take, or the live picture: a picked view,
// a sheet's panel, a hand-placed plate), with further references as images 2 onward. The pictures are found and
// checked here (each problem a 400 naming it), the output keeps the picture's size on the target's grid, and the
// instruction is sent wrapped with the reference introduction, or as typed. `turn` draws another view of a
// character by turning the camera, with a view-specific phrase and the target's angle LoRA where it has one.
import path from "node:path";
import sharp from "sharp";
import { z } from "zod";
import { joinList } from "../compile/prompts/text.ts";
import { badRequest } from "../errors.ts";
import { type Fence, fileInside, rootsFence } from "../paths/guarded.ts";
import { isObject, type JsonObject, num } from "../store/json-guards.ts";
import { editIntroduction, type IntroRef, type RefRole } from "../targets/prompts/edit-intro.ts";
import type { TargetRegistryView, TargetSpec } from "../targets/registry.ts";
import type { Catalog, CatalogRef } from "./catalog.ts";
import {
  atSize,
  composeFigures,
  keepComposite,
  MAX_FIGURES,
  readPicture,
  sha1Of,
  sheetPanel,
} from "./composite.ts";
import type { Lora, RefDefaults } from "./effective.ts";
import { type CharacterView, type RefId, refField, VIEWS } from "./ids.ts";
import { readPicks } from "./picks.ts";
import type { RefsPlace } from "./place.ts";
import { listTakes } from "./takes.ts";

const characterView = z.enum(VIEWS);

export const editOption = z
  .object({
    take: z
      .int()
      .min(1)
      .nullish()
      .describe(
        "The take to change; null or left out: the live picture (a picked view, a hand-placed plate)",
      ),
    from_view: characterView
      .nullish()
      .describe("With turn: the character view turned from (default 01_threequarter)"),
    turn: z
      .boolean()
      .nullish()
      .describe("Draw the asked view of a character by turning the camera from from_view"),
    with: z
      .array(
        z.object({
          ref: refField,
          view: characterView
            .nullish()
            .describe("A character's view (its picked take, else its sheet panel)"),
          take: z.int().min(1).nullish().describe("One of its takes instead of its live picture"),
        }),
      )
      .max(16)
      .nullish()
      .describe("Further references, sent as image 2 onward"),
    wrap: z
      .boolean()
      .nullish()
      .describe("true (default): the instruction follows the reference introduction; false: sent as typed"),
  })
  .describe(
    "Change an existing picture on an edit target: `prompt` is the instruction; the reference's overrides are not read",
  );

export type EditOption = z.output<typeof editOption>;

/** A picture a request names, found on disk. */
export interface FoundPicture {
  ref: string;
  view: CharacterView | null;
  take: number | null;
  /** `take` (a candidate), `live` (the live file or a picked view's take), `sheet` (a panel of the live sheet). */
  from: "take" | "live" | "sheet";
  file: string;
  fence: Fence;
  role: RefRole;
  name: string;
}

export function roleOf(c: Pick<CatalogRef, "kind">): RefRole {
  if (c.kind === "character" || c.kind === "prop" || c.kind === "vehicle") return c.kind;
  return "plate";
}

const label = (ref: string, view: string | null, take: number | null) =>
  `${ref}${view ? ` ${view}` : ""}${take !== null ? ` t${String(take).padStart(2, "0")}` : ""}`;

/**
 * The picture of a reference: take `take` of `view`, else its live picture (for a character's view: the picked
 * take of that view, else the panel of the live sheet). A string says why there is none.
 */
export async function findPicture(
  services: Parameters<typeof listTakes>[0],
  place: RefsPlace,
  catalog: Catalog,
  want: { ref: string; view: CharacterView | null; take: number | null },
): Promise<FoundPicture | string> {
  const c = catalog.byId.get(want.ref);
  if (!c) return `${want.ref} is not a reference of this episode`;
  const name = label(want.ref, want.view, want.take);
  if (c.kind === "voice") return `${want.ref} is a voice: it has no picture`;
  const views = c.views.length > 0;
  if (want.view !== null && !views) return `${want.ref} has no views: leave view out`;
  const base = { ref: want.ref, view: want.view, take: want.take, role: roleOf(c), name: c.name };
  const takes = await listTakes(services, place, c.ref);
  if (want.take !== null) {
    const t = takes.find((x) => x.view === want.view && x.take === want.take);
    if (!t) return `${name}: no such take`;
    if (!t.usable || !t.file) return `${name} is not a finished picture (status ${t.status})`;
    if (t.sidecar.audio !== undefined) return `${name} is a sound, not a picture`;
    return { ...base, from: "take", file: t.file, fence: takesFenceOf(place) };
  }
  const roots = rootsFence(place.roots);
  if (views && want.view !== null) {
    const entry = (await readPicks(services, place, c.ref)).refs[c.ref.id];
    const picked = entry?.views?.[want.view];
    const n = picked && !picked.cleared ? num(picked.take) : null;
    const t = n !== null ? takes.find((x) => x.view === want.view && x.take === n && x.usable) : undefined;
    if (t?.file) return { ...base, take: t.take, from: "live", file: t.file, fence: takesFenceOf(place) };
    const sheet = c.panels === 4 ? await fileInside(roots, c.file) : null;
    if (sheet) return { ...base, from: "sheet", file: sheet, fence: roots };
    return `${name} has no live picture (no picked take and no four-panel sheet): send a take`;
  }
  const live = await fileInside(roots, c.file);
  if (!live) return `${name} has no live picture (nothing at ${c.path}): send a take`;
  return { ...base, from: "live", file: live, fence: roots };
}

/** Candidates and picked takes are read inside the roots (series homes and episodes both are). */
const takesFenceOf = (place: RefsPlace): Fence => rootsFence(place.roots);

/**
 * The file to send for a picture: as it is, or (a sheet panel, or a size to match) composed and kept under the
 * candidate's `_composites/`. Answers the path and the SHA-1 of what is sent.
 */
export async function pictureToSend(
  place: RefsPlace,
  dest: RefId,
  pic: FoundPicture,
  size: { width: number; height: number } | null,
): Promise<{ file: string; sha1: string; width: number; height: number }> {
  const read = await readPicture(pic.fence, pic.file);
  let data = read.data;
  let changed = false;
  if (pic.from === "sheet" && pic.view) {
    data = await sheetPanel(data, VIEWS.indexOf(pic.view));
    changed = true;
  }
  if (size) {
    const now = changed ? await readSize(data) : { width: read.width, height: read.height };
    if (now.width !== size.width || now.height !== size.height) {
      data = await atSize(data, size.width, size.height);
      changed = true;
    }
  }
  if (!changed) return { file: pic.file, sha1: read.sha1, width: read.width, height: read.height };
  const file = await keepComposite(place, dest, data);
  const kept = await readPicture(rootsFence(place.roots), file);
  return { file, sha1: kept.sha1, width: kept.width, height: kept.height };
}

async function readSize(data: Buffer) {
  const m = await sharp(data).metadata();
  return { width: m.width ?? 0, height: m.height ?? 0 };
}

// ------------------------------------------------------------------------------------------- the target

/**
 * The edit target: the request's, else the reference target or the keyframe target when either is an edit target.
 * 400 for an unknown or non-edit target (the built-in card engine named as such: it draws cards, it cannot edit).
 */
export function editTargetOf(
  requested: string | null | undefined,
  defaults: Pick<RefDefaults, "target" | "keyframe_target">,
  registry: TargetRegistryView,
): TargetSpec {
  const edits = registry.ids("image").filter((id) => registry.get(id)?.capabilities.mode === "edit");
  const choose = `choose an edit target (${edits.join(", ") || "none installed"})`;
  if (requested) {
    const spec = registry.get(requested);
    if (!spec) throw badRequest(`unknown target ${requested}: ${choose}`);
    if (spec.capabilities.mode !== "edit") {
      if (spec.backend === "builtin")
        throw badRequest(`the built-in ${spec.id} engine cannot edit pictures; ${choose}`);
      throw badRequest(`${spec.short} is not an edit target (it makes pictures from text); ${choose}`);
    }
    return spec;
  }
  for (const id of [defaults.target, defaults.keyframe_target]) {
    const spec = registry.get(id);
    if (spec?.capabilities.mode === "edit") return spec;
  }
  throw badRequest(`neither the reference target nor the keyframe target is an edit target: ${choose}`);
}

/** A size on the target's grid (nearest multiple, at least one step). */
export function gridSize(width: number, height: number, spec: Pick<TargetSpec, "template">) {
  const grid = Math.max(1, num(spec.template.size_multiple) ?? 16);
  const snap = (n: number) => Math.max(grid, Math.round(n / grid) * grid);
  return { width: snap(width), height: snap(height) };
}

// --------------------------------------------------------------------------------------------- turning

/** What the camera does to show each view, sent as typed. */
export const TURN_PHRASES: Record<CharacterView, string> = {
  "01_threequarter":
    "Turn the camera so the same character is seen in a three-quarter view, full figure, turned slightly to the viewer's left.",
  "02_side":
    "Turn the camera 90 degrees around the character so the same character is seen in direct side profile facing right, full figure.",
  "03_back":
    "Turn the camera 180 degrees around the character so the same character is seen from behind, full figure.",
  "04_face": "Move the camera in to a head-and-shoulders view of the same character facing the viewer.",
};

const KEEP_PHRASE =
  "Keep the face, hair, build, clothes, colours, line quality and the plain background exactly as in the image.";

/** The target's camera-angle LoRA (preset `angle_lora`, or a `models.angle_lora` default), or null. */
export function angleLora(spec: Pick<TargetSpec, "presets" | "models">): string | null {
  const preset = spec.presets.final as Record<string, unknown> | undefined;
  if (typeof preset?.angle_lora === "string" && preset.angle_lora.trim()) return preset.angle_lora.trim();
  const model = spec.models?.angle_lora;
  if (isObject(model) && typeof model.default === "string" && model.default.trim())
    return model.default.trim();
  return null;
}

export const ANGLE_STRENGTH = 0.9;

// ------------------------------------------------------------------------------------------- the plan

export interface EditPlan {
  /** Image 1 (the picture changed), then the `with` references. */
  pictures: FoundPicture[];
  /** The files sent, in the same order. */
  files: string[];
  width: number;
  height: number;
  prompt: string;
  /** LoRAs to add (the angle LoRA of a turn). */
  loras: Lora[];
  /** Notes the finished candidate carries (`save_notes`). */
  saveNotes: string[];
  /** The sidecar's `edit` and `references`. */
  record: { edit: JsonObject; references: JsonObject[] };
}

export interface EditAsk {
  ref: CatalogRef;
  /** The view the candidate is made for (a character's), or null. */
  view: CharacterView | null;
  edit: EditOption;
  /** The typed instruction. */
  prompt: string | null;
  spec: TargetSpec;
  /** Image 1 taken from another reference's live picture (a relight's source plate) instead of this one's. */
  from?: { ref: string } | null;
}

/** Find and check every picture of an edit, its size and its prompt; 400 for what cannot be sent. */
export async function planEdit(
  services: Parameters<typeof listTakes>[0],
  place: RefsPlace,
  catalog: Catalog,
  ask: EditAsk,
): Promise<EditPlan> {
  const { ref: c, view, edit, spec } = ask;
  const id = c.ref.id;
  const turn = edit.turn === true;
  const instruction = ask.prompt?.trim() || null;
  if (c.kind === "voice") throw badRequest(`${id} is a voice: there is no picture to edit`);
  if (c.views.length > 0 && view === null)
    throw badRequest(`${id} is a character: name the view the edit makes (01_threequarter … 04_face)`);
  if (!instruction && !turn)
    throw badRequest("an edit needs a prompt: the instruction saying what to change");
  if (edit.from_view && !turn) throw badRequest("from_view goes with turn: true");
  let from: CharacterView | null = view;
  if (turn) {
    if (c.views.length === 0 || view === null)
      throw badRequest(`turn draws a character view: ${id} has no views`);
    from = edit.from_view ?? "01_threequarter";
    if (from === view) throw badRequest(`turn: from_view and view are both ${view}; name another view`);
  }
  if (ask.from && (turn || edit.take != null))
    throw badRequest("an edit of another reference's picture takes neither take nor turn");
  const take = edit.take ?? null;
  const wanted = [
    ask.from ? { ref: ask.from.ref, view: null, take: null } : { ref: id, view: from, take },
    ...(edit.with ?? []).map((w) => ({ ref: w.ref, view: w.view ?? null, take: w.take ?? null })),
  ];
  const max = num(spec.capabilities.max_refs) ?? 1;
  if (wanted.length > max) {
    throw badRequest(
      `${spec.short} reads at most ${max} picture${max === 1 ? "" : "s"}; this edit sends ${wanted.length} (the picture and ${wanted.length - 1} from with)`,
    );
  }
  const pictures: FoundPicture[] = [];
  for (const [i, w] of wanted.entries()) {
    const found = await findPicture(services, place, catalog, w);
    if (typeof found === "string") throw badRequest(i === 0 ? found : `with[${i - 1}]: ${found}`);
    pictures.push(found);
  }
  // Image 1 sets the size: its own, on the target's grid, sent already at that size (some targets render at the
  // first picture's size).
  const first = await readPicture(pictures[0].fence, pictures[0].file);
  const firstSize =
    pictures[0].from === "sheet"
      ? { width: 1024, height: 1024 }
      : { width: first.width, height: first.height };
  const size = gridSize(firstSize.width, firstSize.height, spec);
  const sent: Awaited<ReturnType<typeof pictureToSend>>[] = [];
  for (const [i, pic] of pictures.entries())
    sent.push(await pictureToSend(place, c.ref, pic, i === 0 ? size : null));

  const saveNotes: string[] = [];
  const loras: Lora[] = [];
  let prompt: string;
  if (turn) {
    const parts = [TURN_PHRASES[view as CharacterView], KEEP_PHRASE];
    if (instruction) parts.push(instruction);
    prompt = parts.join(" ");
    const lora = angleLora(spec);
    if (lora) loras.push({ name: lora, strength: ANGLE_STRENGTH });
    else
      saveNotes.push(
        `${spec.short} names no camera-angle LoRA in its presets or models: the view was turned by the phrase alone`,
      );
  } else if (edit.wrap === false) {
    prompt = instruction ?? "";
  } else {
    const intro: IntroRef[] = pictures.map((p) => ({ role: p.role, name: p.name }));
    const word = typeof spec.recipe.ref_word === "string" ? spec.recipe.ref_word : "image";
    prompt = `${editIntroduction(intro, word)} ${instruction ?? ""}`.trim();
  }
  const rel = (file: string) => path.relative(place.ep, file).split(path.sep).join("/");
  return {
    pictures,
    files: sent.map((s) => s.file),
    width: size.width,
    height: size.height,
    prompt,
    loras,
    saveNotes,
    record: {
      edit: {
        take,
        from_view: turn ? from : null,
        turn,
        with: (edit.with ?? []).map((w) => ({ ref: w.ref, view: w.view ?? null, take: w.take ?? null })),
        wrap: edit.wrap !== false,
        instruction,
        ...(ask.from ? { from: ask.from.ref } : {}),
      },
      references: pictures.map((p, i) => ({
        image: i + 1,
        ref: p.ref,
        view: p.view,
        take: p.take,
        from: p.from,
        path: rel(sent[i].file),
        sha1: sent[i].sha1,
        width: sent[i].width,
        height: sent[i].height,
      })),
    },
  };
}

// ------------------------------------------------------------------------------------ keyframes on edit targets

export interface KeyframeRefs {
  files: string[];
  /** How the prompt introduces each picture sent. */
  intro: IntroRef[];
  references: JsonObject[];
  notes: string[];
}

/**
 * What an edit target is given to draw a keyframe: characters in script order, then props and vehicles, then the
 * plate, each only when its file exists, up to `max_refs`; a target reading one picture gets one composite (the
 * figures over the plate, or white) when there are several. The first picture goes at the frame's size to a
 * target whose first reference sets its output size.
 */
export async function keyframeRefs(
  services: Parameters<typeof listTakes>[0],
  place: RefsPlace,
  catalog: Catalog,
  c: CatalogRef,
  spec: TargetSpec,
  frame: { width: number; height: number },
): Promise<KeyframeRefs> {
  const found: FoundPicture[] = [];
  for (const want of c.keyframe?.edit_candidates ?? []) {
    const pic = await findPicture(services, place, catalog, { ...want, take: null });
    if (typeof pic !== "string") found.push(pic);
  }
  const out: KeyframeRefs = { files: [], intro: [], references: [], notes: [] };
  if (found.length === 0) return out;
  const rel = (file: string) => path.relative(place.ep, file).split(path.sep).join("/");
  const max = num(spec.capabilities.max_refs) ?? 1;
  if (max === 1 && found.length > 1) {
    const plate = found.find((p) => p.role === "plate") ?? null;
    const figures = found.filter((p) => p.role !== "plate").slice(0, MAX_FIGURES);
    const figureData = await Promise.all(figures.map((p) => panelData(p)));
    const plateData = plate ? (await readPicture(plate.fence, plate.file)).data : null;
    const png = await composeFigures(frame, plateData, figureData);
    const file = await keepComposite(place, c.ref, png);
    const names = figures.map((p) => p.name);
    out.files.push(file);
    out.intro.push({ role: "composite", name: joinList(names) });
    out.references.push({
      image: 1,
      ref: "composite",
      path: rel(file),
      sha1: sha1Of(png),
      width: frame.width,
      height: frame.height,
      figures: figures.map((p) => ({ ref: p.ref, view: p.view, take: p.take, from: p.from })),
      plate: plate ? plate.ref : null,
    });
    out.notes.push(
      `${spec.short} reads one picture: ${names.join(", ")}${plate ? " over the plate" : " on white"} sent as one composite`,
    );
    return out;
  }
  const sent = found.slice(0, max);
  if (found.length > max)
    out.notes.push(`${spec.short} reads at most ${max} pictures: ${found.length - max} left out`);
  const sizesFirst = isObject(spec.binding.references) && spec.binding.references.with !== undefined;
  for (const [i, pic] of sent.entries()) {
    const s = await pictureToSend(place, c.ref, pic, i === 0 && sizesFirst ? frame : null);
    out.files.push(s.file);
    out.intro.push({ role: pic.role, name: pic.name });
    out.references.push({
      image: i + 1,
      ref: pic.ref,
      view: pic.view,
      take: pic.take,
      from: pic.from,
      path: rel(s.file),
      sha1: s.sha1,
      width: s.width,
      height: s.height,
    });
  }
  return out;
}

/** A figure's picture: its file, or its panel cut from the live sheet. */
async function panelData(p: FoundPicture): Promise<Buffer> {
  const data = (await readPicture(p.fence, p.file)).data;
  return p.from === "sheet" && p.view ? sheetPanel(data, VIEWS.indexOf(p.view)) : data;
}
