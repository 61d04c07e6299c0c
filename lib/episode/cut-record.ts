// The `cut.json` record: the file, each entry and an entry's audio source have one lenient schema
// (unknown fields kept in their order, a wrong-typed field read as null); cut.ts reads and writes the file.
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";

const txt = z.string();
const frames = z.number().int();
const pass = z.enum(["final", "proxy"]);

/** The audio an entry plays when not the clip's own: another take, or a file. */
export const CUT_AUDIO_SHAPE = {
  source: txt,
  shot: txt,
  take: frames,
  pass,
  path: txt,
  start: z.number(),
  offset: z.number(),
  gain: z.number(),
};
export const cutAudioRecord = recordKind(CUT_AUDIO_SHAPE);
export type CutAudio = Lenient<typeof CUT_AUDIO_SHAPE>;

/** The fields a cut entry may carry, in the order they are written. */
export const CUT_ENTRY_SHAPE = {
  shot: txt,
  take: frames,
  pass,
  trim_in: frames,
  trim_out: frames,
  locked: z.boolean(),
  out: z.boolean(),
  flag: z.boolean(),
  note: txt,
  audio: z.looseObject({}),
};
export const cutEntryRecord = recordKind(CUT_ENTRY_SHAPE);

type EntryField = keyof typeof CUT_ENTRY_SHAPE;

/**
 * A cut entry in its compact form: `shot` always, the other known fields only when they say something (never
 * null), hand-edited keys kept after them (refused by PUT /cut).
 */
export type CutEntry = { shot: string } & {
  [K in Exclude<EntryField, "shot" | "audio">]?: z.output<(typeof CUT_ENTRY_SHAPE)[K]>;
} & { audio?: CutAudio } & { [other: string]: unknown };

/** cut.json: the episode's name, then each pass's list as stored (entries are read one by one). */
export const cutRecord = recordKind({
  episode: txt,
  final: z.array(z.unknown()),
  proxy: z.array(z.unknown()),
});
export type CutFile = Lenient<typeof cutRecord.shape>;

/** Whether `key` is a field the service knows on a cut entry. */
export const isEntryField = (key: string): key is EntryField => Object.hasOwn(CUT_ENTRY_SHAPE, key);
