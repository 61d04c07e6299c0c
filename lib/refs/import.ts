// Importing a picture or a sound as a new reference take (`source: imported`): the type is judged by the file's
// name (voices take sound, every other reference a picture; the take keeps its extension), the take is added
// through the take store, and an asked-for pick follows. Events: the new take's status, `picked` when it was
// picked, then `studio.episode` — also when the pick failed, which answers 400 with the take kept.
import path from "node:path";
import sharp from "sharp";
import type { Services } from "../context.ts";
import { badRequest, StudioError, shown } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { isCharacterView, type RefView } from "./ids.ts";
import { type LiveRef, pickTake } from "./live.ts";
import type { RefsPlace } from "./place.ts";
import { AUDIO_EXTENSIONS, IMAGE_EXTENSIONS, mediaKindOf } from "./take-record.ts";
import { addTake, type RefTake } from "./takes.ts";

export const PICK_RULE = 'pick must be true or false (a form sends "1" or "0")';
/** Longest note a take may carry, as an issue note. */
export const MAX_NOTE = 4000;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["", "0", "false", "no", "off"]);

/** `pick` as JSON (a boolean) or a form sends it (`1`/`true`/`yes`/`on`, `0`/`false`/`no`/`off`/empty); absent: false. */
export function readPickFlag(value: unknown): boolean {
  if (value === undefined || value === null || typeof value === "boolean") return value === true;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
  }
  throw badRequest(PICK_RULE);
}

export interface ImportSource {
  /** The name that judges the type (an upload's own name, the last part of a source path). */
  name: string;
  /** The bytes as they are now (a checked source file, an upload's temporary). */
  file: string;
  /** Puts the bytes at the take's temporary path (a copy of the checked file, the move of an upload). */
  fill(tmp: string): Promise<void>;
  /** Uploads record the name they came with. */
  originalName?: string;
}

export interface ImportRequest {
  view: RefView | null;
  pick: boolean;
  note?: string | null;
}

const PICTURES = IMAGE_EXTENSIONS.join(", ");
const SOUNDS = AUDIO_EXTENSIONS.join(", ");

/** 400 for a view the reference cannot hold an imported file in. */
function checkView(live: LiveRef, view: RefView | null): void {
  const id = live.ref.id;
  if (live.kind === "character") {
    if (view === null || !(isCharacterView(view) || view === "sheet")) {
      throw badRequest(
        `${id} is a character: import into one of its views (01_threequarter, 02_side, 03_back, 04_face) or sheet${view ? ` (got ${view})` : ""}`,
      );
    }
    return;
  }
  if (view !== null) throw badRequest(`${id} has no views; leave view out (got ${view})`);
}

/** The extension the take keeps, or 400 when the name is not a type this reference takes. */
export function importExtension(live: LiveRef, name: string): string {
  const kind = mediaKindOf(name);
  const ext = path.extname(name).slice(1).toLowerCase();
  if (kind === null) {
    throw badRequest(
      `${shown(name)} is not a file type a reference takes: pictures ${PICTURES}, sound ${SOUNDS} (judged by the file name)`,
    );
  }
  if (live.kind === "voice" && kind !== "audio") {
    throw badRequest(`${live.ref.id} is a voice: it takes sound (${SOUNDS}), not ${shown(name)}`);
  }
  if (live.kind !== "voice" && kind !== "image") {
    throw badRequest(`${live.ref.id} takes a picture (${PICTURES}), not ${shown(name)}`);
  }
  return ext;
}

function checkNote(note: string | null | undefined): string | null {
  const text = note?.trim() ?? "";
  if (text.length > MAX_NOTE) throw badRequest(`note is ${text.length} characters; at most ${MAX_NOTE}`);
  return text || null;
}

type ImportServices = Pick<Services, "caches" | "locks" | "now" | "events" | "media">;

/** Adds the take, then picks it when asked. Answers the new take. */
export async function importRefTake(
  services: ImportServices,
  place: RefsPlace,
  live: LiveRef,
  source: ImportSource,
  request: ImportRequest,
): Promise<RefTake> {
  checkView(live, request.view);
  const ext = importExtension(live, source.name);
  const note = checkNote(request.note);
  const fields: Record<string, unknown> = { source: "imported" };
  if (source.originalName !== undefined) fields.original_name = source.originalName;
  if (note) fields.note = note;
  if (mediaKindOf(source.name) === "image") {
    // A picture's size, when its header says (a file that is no picture still imports: its name decided).
    const meta = await sharp(source.file)
      .metadata()
      .catch(() => null);
    if (meta?.width && meta.height) Object.assign(fields, { width: meta.width, height: meta.height });
  }
  const made = await addTake(services, place, live.ref, {
    view: request.view,
    ext,
    write: source.fill,
    fields,
  });
  const ep = place.ep;
  services.events.emit("studio.ref", {
    ep,
    ref: live.ref.id,
    view: made.view,
    take: made.take,
    status: made.status,
  });
  if (!request.pick) {
    services.events.emit("studio.episode", { ep });
    return made;
  }
  // pickTake tells the page itself (`picked`, then the episode), also when a stitch fails after the copy.
  let episodeSent = false;
  const watched: ImportServices = {
    ...services,
    events: {
      emit(kind, data) {
        if (kind === "studio.episode") episodeSent = true;
        services.events.emit(kind, data);
      },
    },
  };
  try {
    await pickTake(watched, place, live, made.view, made.take);
  } catch (err) {
    if (!episodeSent) services.events.emit("studio.episode", { ep });
    const why = err instanceof StudioError ? err.message : errorMessage(err);
    throw badRequest(`imported as take ${made.take}, but not picked: ${why}`);
  }
  return made;
}
