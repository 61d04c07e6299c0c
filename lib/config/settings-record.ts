// The settings.json record: one lenient schema for every field the settings routes store (unknown fields kept in
// their order, a wrong-typed field read as null), and the one writer of the file.
import { z } from "zod";
import { writeJsonAtomic } from "../store/atomic.ts";
import type { WithCaches } from "../store/caches.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { type Lenient, recordKind } from "../store/record.ts";

const txt = z.string();
const map = z.record(z.string(), z.unknown());
/** The per-kind target choice; each entry is checked again for a usable id where it is read. */
const choice = z.looseObject({
  video: z.unknown().optional(),
  image: z.unknown().optional(),
  audio: z.unknown().optional(),
});

export const SETTINGS_SHAPE = {
  local_url: txt,
  engine_url: txt,
  cloud_url: txt,
  api_key: txt,
  hf_token: txt,
  deployments: map,
  path: txt,
  paid_limit: z.number(),
  enabled_drafts: z.array(z.unknown()),
  target_limits: map,
  local_via: txt,
  default_targets: choice,
  detected_targets: choice,
};

/** settings.json as read: each field absent, null (wrong type on disk) or typed; fields it does not know kept. */
export type SettingsRecord = Lenient<typeof SETTINGS_SHAPE>;

export const settingsRecord = recordKind(SETTINGS_SHAPE);

/** Write the whole file atomically (the caller merged its change into the record it read, keeping the rest). */
export async function writeSettingsRecord(
  services: WithCaches,
  file: string,
  record: SettingsRecord,
): Promise<void> {
  await writeJsonAtomic(file, record);
  forgetJsonFile(services, file);
}
