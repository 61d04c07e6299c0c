// The PUT /studio/settings body: every field optional, null clears it, an unknown field is a 400.
import { z } from "zod";
import { boundedJson, isTargetId, TARGET_ID_RULE } from "../schema/fields.ts";
import {
  API_KEY_RULE,
  isApiKey,
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
      video: targetId.nullable().optional(),
      image: targetId.nullable().optional(),
      audio: targetId.nullable().optional(),
    },
    { error: onlyType("must be an object {video, image, audio: target id}, or null") },
  )
  .nullable()
  .optional();

export const settingsUpdateSchema = z.strictObject(
  {
    local_url: address,
    engine_url: address,
    cloud_url: address,
    api_key: z.string({ error: API_KEY_RULE }).refine(isApiKey, API_KEY_RULE).nullable().optional(),
    deployments: targetMap(deploymentUrl, "{target: address}").nullable().optional(),
    path: z
      .string({ error: PATH_RULE })
      .refine((p) => !p.includes("\0"), "must not contain a NUL byte")
      .nullable()
      .optional(),
    paid_limit: z
      .number({ error: PAID_LIMIT_RULE })
      .int(PAID_LIMIT_RULE)
      .min(0, PAID_LIMIT_RULE)
      .max(Number.MAX_SAFE_INTEGER, PAID_LIMIT_RULE)
      .nullable()
      .optional(),
    enabled_drafts: z
      .array(targetId, { error: "must be a list of target ids, or null" })
      .nullable()
      .optional(),
    target_limits: targetMap(
      z.record(z.string(), boundedJson, { error: "must be an object of limits" }),
      "{target: {limit: value}}",
    )
      .nullable()
      .optional(),
    local_via: z
      .enum(LOCAL_VIA, { error: `must be ${LOCAL_VIA.join(" or ")}, or null (straight to the engine)` })
      .nullable()
      .optional(),
    default_targets: choice,
    detected_targets: choice,
  },
  { error: onlyType("must be a JSON object of settings") },
);

export type SettingsUpdate = z.output<typeof settingsUpdateSchema>;
