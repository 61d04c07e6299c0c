// The PUT /studio/settings body: every field optional, null clears it, an unknown field is a 400.
import { z } from "zod";
import { boundedJson, isTargetId, TARGET_ID_RULE } from "../schema/fields.ts";
import {
  API_KEY_RULE,
  HF_TOKEN_RULE,
  isApiKey,
  isHfToken,
  LOCAL_VIA,
  PAID_LIMIT_RULE,
  PATH_RULE,
  URL_RULE,
  urlProblem,
} from "./settings-values.ts";

// A blank address clears the field like null does (a cleared text box sends "").
const address = z
  .string({ error: URL_RULE })
  .superRefine((value, ctx) => {
    const problem = value.trim() ? urlProblem(value) : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .nullable()
  .optional();

const deploymentUrl = z
  .string({ error: "must be an http:// or https:// address" })
  .superRefine((value, ctx) => {
    const problem = urlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem.replace(/, or null$/, "") });
  });

const targetId = z.string({ error: TARGET_ID_RULE }).refine(isTargetId, TARGET_ID_RULE);
const onlyType = (message: string) => (issue: { code?: string }) =>
  issue.code === "invalid_type" ? message : undefined;

const targetMap = <T extends z.ZodType>(value: T, shape: string) =>
  z
    .record(z.string(), value, { error: onlyType(`must be an object ${shape}, or null`) })
    .superRefine((map, ctx) => {
      for (const key of Object.keys(map)) {
        if (!isTargetId(key)) ctx.addIssue({ code: "custom", path: [key], message: `key ${TARGET_ID_RULE}` });
      }
    });

const choice = z
  .strictObject(
    {
      video: targetId.nullable().optional().describe("The video target id"),
      image: targetId.nullable().optional().describe("The image target id"),
      audio: targetId.nullable().optional().describe("The audio target id"),
    },
    { error: onlyType("must be an object {video, image, audio: target id}, or null") },
  )
  .nullable()
  .optional();

export const settingsUpdateSchema = z.strictObject(
  {
    local_url: address.describe("The local ComfyUI server's address, like http://127.0.0.1:8188"),
    engine_url: address.describe("The address of a separate engine server; null: the local one"),
    cloud_url: address.describe("The Comfy Cloud address"),
    api_key: z
      .string({ error: API_KEY_RULE })
      .refine(isApiKey, API_KEY_RULE)
      .nullable()
      .optional()
      .describe("The Comfy Cloud API key; null removes it (answers only say whether one is set)"),
    hf_token: z
      .string({ error: HF_TOKEN_RULE })
      .refine(isHfToken, HF_TOKEN_RULE)
      .nullable()
      .optional()
      .describe(
        "The Hugging Face token model downloads send; null removes it (answers only say whether one is set)",
      ),
    deployments: targetMap(deploymentUrl, "{target: address}")
      .nullable()
      .optional()
      .describe("A deployment address per target id, rendering that target through the Comfy API v2"),
    path: z
      .string({ error: PATH_RULE })
      .refine((p) => !p.includes("\0"), "must not contain a NUL byte")
      .nullable()
      .optional()
      .describe("The local ComfyUI install folder, where model files are looked for"),
    paid_limit: z
      .number({ error: PAID_LIMIT_RULE })
      .int(PAID_LIMIT_RULE)
      .min(0, PAID_LIMIT_RULE)
      .max(Number.MAX_SAFE_INTEGER, PAID_LIMIT_RULE)
      .nullable()
      .optional()
      .describe("How many paid runs may start before the queue holds them; null: no cap"),
    enabled_drafts: z
      .array(targetId, { error: "must be a list of target ids, or null" })
      .nullable()
      .optional()
      .describe("The draft-capable targets turned on"),
    target_limits: targetMap(
      z.record(z.string(), boundedJson, { error: "must be an object of limits" }),
      "{target: {limit: value}}",
    )
      .nullable()
      .optional()
      .describe("Per target id, limits that replace the target's own"),
    local_via: z
      .enum(LOCAL_VIA, { error: `must be ${LOCAL_VIA.join(" or ")}, or null (straight to the engine)` })
      .nullable()
      .optional()
      .describe(`How the local engine is reached: ${LOCAL_VIA.join(" or ")}; null: straight to the engine`),
    default_targets: choice.describe("The machine's default target per kind (video, image, audio)"),
    detected_targets: choice.describe("The targets found ready on this machine, per kind"),
  },
  { error: onlyType("must be a JSON object of settings") },
);

export type SettingsUpdate = z.output<typeof settingsUpdateSchema>;
