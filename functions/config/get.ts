// GET /studio/config: the roots, engine address and review_copy in force.
import { readConfig } from "../../lib/config/config.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/config",
  summary: "The service config: roots, engine address, review_copy, version",
  handler(_input, ctx) {
    return readConfig(ctx);
  },
});
