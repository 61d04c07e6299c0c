// A preset's sample picture: any picture sharp can decode, kept as a PNG no larger than 1024 px on its long side,
// written under the presets lock so a delete meanwhile never leaves a picture without its preset.
import sharp from "sharp";
import type { Services } from "../context.ts";
import { badRequest, notFound, shown } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { changeOwnPresets, type OwnPreset, writePicture } from "./store.ts";

export const MAX_PICTURE_SIDE = 1024;

/** The picture at `file` as PNG bytes at most MAX_PICTURE_SIDE a side; 400 when it is not a picture. */
export async function pictureBytes(file: string, name: string): Promise<Buffer> {
  try {
    return await sharp(file, { limitInputPixels: 268_402_689 })
      .rotate()
      .resize(MAX_PICTURE_SIDE, MAX_PICTURE_SIDE, { fit: "inside", withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch (err) {
    throw badRequest(`${shown(name)} is not a picture that can be read (${errorMessage(err)})`);
  }
}

/** Make `png` the picture of own preset `id`; 404 when there is no such preset (any more). */
export function setPicture(
  services: Pick<Services, "home" | "caches" | "locks" | "now">,
  id: string,
  png: Uint8Array,
): Promise<OwnPreset> {
  return changeOwnPresets(services, async (presets) => {
    const i = presets.findIndex((p) => p.id === id);
    if (i < 0) throw notFound(`no own preset ${shown(id)}`);
    await writePicture(services.home, id, png);
    const next = [...presets];
    next[i] = { ...presets[i], picture: services.now().getTime(), updated: services.now().toISOString() };
    return { next, out: next[i] };
  });
}
