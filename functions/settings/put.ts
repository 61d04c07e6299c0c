// PUT /studio/settings: change any settings (null clears one), checked field by field; answers as GET.
import { settingsUpdateSchema } from "../../lib/config/settings-schema.ts";
import { writeSettings } from "../../lib/config/settings-store.ts";
import { checkSettingsTargets } from "../../lib/targets/settings-check.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/settings",
  queue: true,
  summary:
    "Change settings (any subset; null clears a field, api_key or hf_token null removes it); answers as GET",
  input: settingsUpdateSchema,
  async handler(input, ctx) {
    checkSettingsTargets(input, ctx.targets);
    return writeSettings(ctx, input);
  },
});
