// POST /studio/sdk/install: the Comfy API v2 client is to be built into the service, not installed; until it
// exists this answers 501 saying so.
import { SDK_MISSING } from "../lib/config/settings-store.ts";
import { notImplemented } from "../lib/errors.ts";
import { defineFunction } from "../lib/fn.ts";

export default defineFunction({
  method: "POST",
  path: "/sdk/install",
  summary: "The cloud client: built into the service (501 until it exists), so there is nothing to install",
  handler() {
    throw notImplemented(`sdk/install: ${SDK_MISSING}`);
  },
});
