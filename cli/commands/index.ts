// The table of commands, in the order `studio --help` lists them.
import type { Command } from "../command.ts";
import { assemble } from "./assemble.ts";
import { build } from "./build.ts";
import { check } from "./check.ts";
import { jobs } from "./jobs.ts";
import { refsMissing } from "./refs-missing.ts";
import { render } from "./render.ts";
import { serve } from "./serve.ts";
import { timeline } from "./timeline.ts";
import { worker } from "./worker.ts";

export const COMMANDS: readonly Command[] = [
  build,
  check,
  render,
  assemble,
  refsMissing,
  timeline,
  jobs,
  serve,
  worker,
];
