// POST /studio/sdk/install: the Comfy API v2 client is built into the service, so it is always ready.
import { sdkState } from "../../lib/config/settings-store.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/sdk/install",
  queue: true,
  summary: "The cloud client's state; it is built in, so there is nothing to install",
  handler() {
    return { sdk: sdkState() };
  },
});
