// The synthetic series config the benchmarks build against (four subjects, two plated locations), and the
// services they run with.

import { silentLogger } from "../lib/context.ts";
import { type OwnedServices, withServices } from "../runtime/services.ts";

export function benchSeries(overrides: { target?: string; proxy?: { width: number; height: number } } = {}) {
  return {
    series: {
      id: "bench",
      title: "Bench",
      fps: 24,
      width: 1344,
      height: 768,
      ...(overrides.target ? { target: overrides.target } : {}),
    },
    proxy: { ...(overrides.proxy ?? { width: 448, height: 256 }), audio_mode: "generate" },
    style: { look: "a flat 2D cartoon" },
    audio: { mode: "generate" },
    subjects: {
      ada: { name: "Ada", design: "a tall woman in a green raincoat", sheet: "refs/ada.png", voice: "dry" },
      bo: { name: "Bo", design: "a stocky bearded man", sheet: "refs/bo.png", voice: "warm" },
      mom: { name: "Mom", voice: "warm, from another room" },
      kettle: { kind: "prop", name: "the kettle", design: "a dented steel kettle", sheet: "refs/kettle.png" },
    },
    locations: {
      kitchen: { description: "a cramped kitchen at night", plate: "refs/_bg/kitchen.png" },
      street: { description: "a wet street at night", plate: "refs/_bg/street.png" },
    },
  };
}

/** Services for a benchmark: a settings folder, quiet logs, events dropped. */
export function benchServices(
  home: string,
  env: Record<string, string | undefined> = {},
  roles: string[] = ["api"],
): OwnedServices {
  return withServices({
    home,
    env,
    roles,
    version: "bench",
    log: silentLogger,
    events: { emit() {} },
    now: () => new Date(),
  });
}
