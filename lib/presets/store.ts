// A user's own presets: one JSON file of records in the studio's settings folder (beside settings.json), their
// sample pictures beside it in `presets/<id>.png`; every change is a read-modify-write under one lock, written
// atomically, so two requests never lose each other's records.
import { rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { studioDataDir } from "../config/home.ts";
import type { Services } from "../context.ts";
import { badRequest, StudioError, shown } from "../errors.ts";
import { validateFolderName } from "../paths/folder-name.ts";
import { writeFileAtomic, writeJsonAtomic } from "../store/atomic.ts";
import { forgetJsonFile, readJsonFile } from "../store/json-file.ts";
import { withLock } from "../store/lock.ts";

export const PRESET_ID_RULE =
  "letters, digits, _ and -, starting with a letter or digit, at most 64 characters";
const ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export const MAX_LABEL = 120;
export const MAX_NOTE = 2000;

const lora = z.object({ name: z.string().min(1), strength: z.number() });

/** One own preset as stored. */
export const ownPreset = z.object({
  id: z.string().regex(ID_SHAPE),
  label: z.string().min(1).max(MAX_LABEL),
  kind: z.enum(["video", "image"]),
  target: z.string().min(1),
  model: z.string().nullable(),
  loras: z.array(lora).nullable(),
  steps: z.number().int().min(1).nullable(),
  size: z.object({ width: z.number().int().min(1), height: z.number().int().min(1) }).nullable(),
  note: z.string().max(MAX_NOTE).nullable(),
  /** When the sample picture was last written (ms since 1970), null without one. */
  picture: z.number().nullable(),
  created: z.string(),
  updated: z.string(),
});

export type OwnPreset = z.infer<typeof ownPreset>;

const presetsRecord = z.object({ version: z.literal(1), presets: z.array(ownPreset) });

type StoreServices = Pick<Services, "home" | "caches">;

/** `<data>/presets.json`, beside settings.json. */
export const presetsFile = (home: string) => path.join(studioDataDir(home), "presets.json");
/** The folder of the sample pictures (and of a sample render's work folder). */
export const picturesDir = (home: string) => path.join(studioDataDir(home), "presets");
export const picturePath = (home: string, id: string) => path.join(picturesDir(home), `${id}.png`);

/** The `studio.presets` event: which own preset changed and how. */
export const presetEvent = (id: string, change: "saved" | "picture" | "deleted") => ({ id, change });

/** The id as given when it is a safe file name of the preset shape, else 400 naming the rule. */
export function checkPresetId(value: unknown, field = "id"): string {
  const name = validateFolderName(value, field);
  if (!ID_SHAPE.test(name)) throw badRequest(`${field}: ${shown(name)} must be ${PRESET_ID_RULE}`);
  return name;
}

/** The own presets in file order; none when the file is absent, 500 when it is not a presets file. */
export async function readOwnPresets(services: StoreServices): Promise<OwnPreset[]> {
  const file = presetsFile(services.home);
  const raw = await readJsonFile(services, file, "presets.json");
  if (raw === undefined) return [];
  const parsed = presetsRecord.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StudioError(
      500,
      `presets.json at ${file} is not a presets file (${issue.path.join(".") || "file"}: ${issue.message})`,
    );
  }
  return parsed.data.presets;
}

/**
 * Change the own presets under the file's lock: `change` gets a fresh read and answers the new list (or null to
 * leave the file) plus what the caller wants back.
 */
export function changeOwnPresets<T>(
  services: StoreServices & Pick<Services, "locks">,
  change: (
    presets: OwnPreset[],
  ) => Promise<{ next: OwnPreset[] | null; out: T }> | { next: OwnPreset[] | null; out: T },
): Promise<T> {
  const file = presetsFile(services.home);
  return withLock(services, file, async () => {
    const { next, out } = await change(await readOwnPresets(services));
    if (next !== null) {
      await writeJsonAtomic(file, { version: 1, presets: next });
      forgetJsonFile(services, file);
    }
    return out;
  });
}

/** Write a preset's picture (PNG bytes) atomically. */
export async function writePicture(home: string, id: string, png: Uint8Array): Promise<void> {
  await writeFileAtomic(picturePath(home, id), png);
}

export async function removePicture(home: string, id: string): Promise<void> {
  await rm(picturePath(home, id), { force: true });
}
