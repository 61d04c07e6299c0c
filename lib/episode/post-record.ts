// The post-process record `<stem>.post.json`: one schema for the queuer's and the saver's fields, read leniently
// like the upscale record (unknown fields kept in order, a wrong-typed field read as null).
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";

const txt = z.string();
const amount = z.number();
const stampNumber = z.union([z.number(), z.bigint(), z.string()]);

export const POST_SHAPE = {
  shot: txt,
  take: z.number().int(),
  status: z.enum(["queued", "ok", "failed"]),
  queued: txt,
  comfy_prompt_id: txt,
  backend_prompt_id: txt,
  recipe: z.looseObject({}),
  recipe_hash: txt,
  encoder_asked: txt,
  quality: z.enum(["review", "master"]),
  width: amount,
  height: amount,
  source_size: stampNumber,
  source_mtime_ns: stampNumber,
  source_sha1: txt,
  finished: txt,
  frames: amount,
  mp4: txt,
  audio: z.enum(["copied", "none"]),
  encoder: txt,
  motion_blur_method: txt,
  save_ms: z.record(z.string(), amount),
  save_notes: txt,
};

export type PostRecord = Lenient<typeof POST_SHAPE>;

export const postRecord = recordKind(POST_SHAPE);
