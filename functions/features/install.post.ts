// POST /studio/features/install: queue an `install` job for the asked features, files or node classes.
import { z } from "zod";
import { installFeatures } from "../../lib/features/install.ts";
import { defineFunction } from "../fn.ts";

const names = (what: string) =>
  z
    .array(
      z
        .string({ error: `must be a list of ${what}` })
        .min(1, `must not hold an empty ${what.replace(/s$/, "")}`)
        .max(255, `a ${what.replace(/s$/, "")} is at most 255 characters`),
      { error: `must be a list of ${what}` },
    )
    .max(500, `at most 500 ${what}`)
    .optional();

export default defineFunction({
  method: "POST",
  path: "/features/install",
  queue: true,
  summary:
    "Queue an install job for features (ids), model files (by name: only addresses the service records are fetched) or node classes; installed, already queued and uninstallable items are left out and said why in skipped; 409 with place when a file has nowhere to go",
  input: z.strictObject(
    {
      features: names("feature ids").describe("Feature ids from GET /studio/features"),
      files: names("file names").describe("Model file names, as the features listing names them"),
      classes: names("node classes").describe("ComfyUI node classes whose pack is wanted"),
    },
    { error: "must be a JSON object {features?, files?, classes?}" },
  ),
  handler(input, ctx) {
    return installFeatures(ctx, input);
  },
});
