// GET /studio/config: the roots, engine address and review_copy in force, and the ComfyUI the service is mounted in.
import { readConfig } from "../../lib/config/config.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/config",
  summary:
    "The service config: roots, engine address, review_copy, version; mounted ({comfy: ComfyUI's base address} when the service runs inside ComfyUI, else null)",
  handler(_input, ctx) {
    return readConfig(ctx);
  },
});
