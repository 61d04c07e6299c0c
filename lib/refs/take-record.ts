// The reference take sidecar `<key>[_<view>]_tNN.json`: one lenient schema for every field a reference take may
// record (queue time, the saver's result, and what each source adds: frame cuts, voice clips, uploads, copies,
// edits, tour holds). Unknown fields survive a read and a write-back.
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";
import { PSEUDO_VIEWS, VIEWS } from "./ids.ts";

const txt = z.string();
const count = z.number().int();
const amount = z.number();
const loose = z.looseObject({});

export const REF_SOURCES = ["generated", "imported", "edited", "frame", "pano", "tour", "from_take"] as const;
export type RefSource = (typeof REF_SOURCES)[number];

export const REF_TAKE_STATUSES = ["queued", "ok", "failed"] as const;
export type RefTakeStatus = (typeof REF_TAKE_STATUSES)[number];

export const REF_TAKE_SHAPE = {
  version: count,
  ref: txt,
  view: z.enum([...VIEWS, ...PSEUDO_VIEWS]),
  take: count,
  ep: txt,
  status: z.enum(REF_TAKE_STATUSES),
  queued: txt,
  finished: txt,
  error: txt,
  job: txt,
  backend: txt,
  comfy_prompt_id: txt,
  backend_prompt_id: txt,
  source: z.enum(REF_SOURCES),
  target: txt,
  seed: z.union([z.bigint(), z.number(), z.string()]),
  seed_source: txt,
  prompt: txt,
  model: txt,
  loras: z.array(z.looseObject({ name: txt, strength: amount })),
  steps: amount,
  cfg: amount,
  params: loose,
  negative: txt,
  width: amount,
  height: amount,
  overrides: z.array(txt),
  note: txt,
  /** The picture's file name, beside the sidecar. */
  image: txt,
  /** The sound's file name (voices), beside the sidecar. */
  audio: txt,
  save_notes: z.array(txt),
  // Frame cuts (keyframes, frames of takes).
  source_shot: txt,
  source_take: count,
  source_pass: z.enum(["final", "proxy"]),
  source_frame: count,
  source_frames: count,
  source_mp4: txt,
  source_sha1: txt,
  // Voice clips.
  source_start: amount,
  source_end: amount,
  source_file: txt,
  seconds: amount,
  // Uploads, copies, edits.
  original_name: txt,
  copied_from: loose,
  edit: loose,
  references: z.array(z.unknown()),
  from: loose,
  // Tour holds.
  tour: count,
  hold: count,
  start: amount,
  end: amount,
  frame: count,
};

export type RefTakeRecord = Lenient<typeof REF_TAKE_SHAPE>;
export const refTakeRecord = recordKind(REF_TAKE_SHAPE);

/** Extensions a reference take may carry, by what it holds. */
export const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "webp"] as const;
export const AUDIO_EXTENSIONS = ["wav", "mp3", "flac", "ogg", "m4a"] as const;

export function mediaKindOf(fileName: string): "image" | "audio" | null {
  const ext = fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();
  if ((IMAGE_EXTENSIONS as readonly string[]).includes(ext)) return "image";
  if ((AUDIO_EXTENSIONS as readonly string[]).includes(ext)) return "audio";
  return null;
}
