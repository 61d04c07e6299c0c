// POST /studio/refs/from-frame: an exact frame of a shot's video take (or of a video kept in refs/_videos/, at a
// time) becomes a candidate of a reference (`source: frame`); answers {frame, edits, step}.
import { z } from "zod";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { editTargetOf } from "../../lib/refs/edit.ts";
import { readRefSettings } from "../../lib/refs/effective.ts";
import { queueFrameEdit } from "../../lib/refs/frame-step.ts";
import { frameCandidate, listedFrame } from "../../lib/refs/from-frame.ts";
import { refField, VIEWS, viewField } from "../../lib/refs/ids.ts";
import { MAX_NOTE } from "../../lib/refs/import.ts";
import { FRAME_RULE } from "../../lib/refs/keyframe-cut.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep, passName, shotId, take, targetIdOrBlank } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const frame = z
  .union([z.int().min(-1_000_000).max(1_000_000), z.enum(["first", "last"])], { error: FRAME_RULE })
  .nullish()
  .describe(
    'With a take: the 0-based decode index (negative counts from the end), "first" or "last" (default first)',
  );

export default defineFunction({
  method: "POST",
  path: "/refs/from-frame",
  summary:
    "Make an exact frame of a video a reference candidate (source: frame; a character's three-quarter view unless view names another): from a shot's take ({pass, shot, take, frame}) or a kept video ({video, time}). Answers {frame: the take as listed, edits: [job ids], step: id|null, errors: [{view, error}] (extra: why an instruction's edit was not queued)}. With an instruction the frame take is edited on an edit target (the instruction wrapped with the reference introduction); for a character a step job then turns the made view into the other views, picking each as it finishes when pick is true (left out: only where nothing is live). 400 a video outside refs/_videos/, both or neither source, a frame or time outside the video; 404 no such shot, take or kept video; 409 a take with no finished video",
  input: z.object({
    ep,
    pass: passName
      .nullish()
      .describe('With a take: the pass of the take, "final" or "proxy" (default proxy)'),
    shot: shotId.nullish().describe("With a take: the shot whose video take the frame comes from"),
    take: take.nullish().describe("With a take: the take number"),
    frame,
    video: z
      .string()
      .max(1024)
      .nullish()
      .describe(
        "Instead of a take: a video kept in the show's refs/_videos/, episode-relative as GET /studio/refs/videos lists it",
      ),
    time: z.number().min(0).max(86_400).nullish().describe("With a video: the time of the frame in seconds"),
    ref: refField.describe(
      "The reference the frame becomes a candidate of: subject:<id>, location:<id> or shot:<shot>:first|last",
    ),
    view: viewField.describe("A character's view the frame becomes; default 01_threequarter"),
    instruction: z
      .string()
      .max(4000)
      .nullish()
      .describe(
        "An edit instruction: an edit model makes the reference from the frame (a character's other views follow)",
      ),
    target: targetIdOrBlank.nullish().describe("The edit target for the instruction"),
    views: z
      .array(z.enum(VIEWS))
      .max(4)
      .nullish()
      .describe(
        "With an instruction, for a character: the other views to draw from the made one (default the other three)",
      ),
    pick: z
      .boolean()
      .nullish()
      .describe(
        "true: pick the frame (with an instruction: each made view as it finishes); false: never; left out: only when nothing is live",
      ),
    note: z.string().max(MAX_NOTE).nullish().describe(`A note on the take, at most ${MAX_NOTE} characters`),
  }),
  async handler(input, ctx) {
    const byTake = input.shot != null || input.take != null || input.frame != null;
    const byVideo = input.video != null || input.time != null;
    if (byTake && byVideo)
      throw badRequest("give a take (shot, take, frame) or a video (video, time), not both");
    if (!byTake && !byVideo)
      throw badRequest("give a take (pass, shot, take, frame) or a kept video (video, time)");
    if (byTake && (input.shot == null || input.take == null))
      throw badRequest("a frame of a take needs shot and take (and frame, default first)");
    if (byVideo && (input.video == null || input.time == null))
      throw badRequest("a frame of a kept video needs video and time (seconds)");
    const epReal = await resolveEpisode(input.ep, ctx);
    const instruction = input.instruction?.trim() || null;
    if (instruction) {
      // A target that cannot edit refuses before the frame is cut.
      const settings = await readRefSettings(ctx, await refsPlace(ctx, epReal));
      editTargetOf(input.target || null, settings.defaults, settings.registry);
    }
    const made = await frameCandidate(ctx, epReal, {
      source:
        input.video != null && input.time != null
          ? { kind: "video", video: input.video, time: input.time }
          : {
              kind: "take",
              pass: input.pass ?? "proxy",
              shot: input.shot as string,
              take: input.take as number,
              frame: input.frame ?? "first",
            },
      ref: input.ref,
      view: input.view ?? null,
      // With an instruction the edit is what gets picked (by the step), not the frame.
      pick: instruction ? false : (input.pick ?? null),
      note: input.note ?? null,
    });
    if (!instruction) return { frame: listedFrame(made), edits: [], step: null, errors: [] };
    const store = await ctx.jobs();
    const edit = await queueFrameEdit(
      ctx,
      made,
      { instruction, target: input.target || null, views: input.views ?? null, pick: input.pick ?? null },
      { store, wake: ctx.jobSignals.jobAdded },
    );
    return { frame: listedFrame(made), ...edit };
  },
});
