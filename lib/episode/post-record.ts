// The post-process record `<stem>.post.json`: the fields every version of a take has (upscale-record.ts), read
// leniently like the upscale record (unknown fields kept in order, a wrong-typed field read as null), and how its
// motion blur was made.
import { z } from "zod";
import { type Lenient, recordKind } from "../store/record.ts";
import { VERSION_FIELDS } from "./upscale-record.ts";

export const POST_SHAPE = {
  ...VERSION_FIELDS,
  motion_blur_method: z.string(),
};

export type PostRecord = Lenient<typeof POST_SHAPE>;

export const postRecord = recordKind(POST_SHAPE);
