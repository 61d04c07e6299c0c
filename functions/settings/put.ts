// PUT /studio/settings: change any settings (null clears one), checked field by field; answers as GET.
import { settingsUpdateSchema } from "../../lib/config/settings-schema.ts";
import { writeSettings } from "../../lib/config/settings-store.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/settings",
  queue: true,
  summary: "Change settings (any subset; null clears a field, api_key null removes the key); answers as GET",
  input: settingsUpdateSchema,
  handler(input, ctx) {
    return writeSettings(ctx, input);
  },
});
