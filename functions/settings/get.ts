// GET /studio/settings: every setting in force (the API key only as "set"), the file, and which the environment sets.
import { settingsAnswer } from "../../lib/config/settings-store.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/settings",
  queue: true,
  summary:
    "The settings in force: backend addresses, key and download token (set or not), limits, default targets; file; from_env",
  handler(_input, ctx) {
    return settingsAnswer(ctx);
  },
});
