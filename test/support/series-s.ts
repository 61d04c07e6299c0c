// The series config "S" of the script format's test cases, shared by the parser, loader and compiler tests.

/** A fresh deep copy each call, so a test may mutate it freely. */
// biome-ignore lint/suspicious/noExplicitAny: tests reshape the config freely (add, delete, retype keys).
export function seriesS(): Record<string, any> {
  return structuredClone(SERIES_S);
}

export const SERIES_S = {
  series: { id: "t", title: "T", fps: 24, width: 1344, height: 768 },
  style: { look: "a flat 2D cartoon" },
  audio: { mode: "generate" },
  subjects: {
    ada: {
      name: "Ada",
      design: "a tall woman in a green raincoat",
      sheet: "refs/ada/ada_sheet_4panel.png",
      voice: "dry",
    },
    bo: { name: "Bo", design: "a stocky bearded man", sheet: "refs/bo/bo_sheet_4panel.png", voice: "warm" },
    cy: { name: "Cy", design: "a boy in a red cap", sheet: "refs/cy/cy_sheet_4panel.png", voice: "high" },
    mom: { name: "Mom", voice: "warm, from another room" },
    gina: {
      name: "Gina",
      design: "a woman in grey coveralls",
      sheet: "refs/gina/gina_sheet_4panel.png",
      voice: "low",
    },
    gina_towel: { of: "gina", design: "a woman wrapped in a white towel" },
    kettle: {
      kind: "prop",
      name: "the kettle",
      design: "a dented steel kettle",
      sheet: "refs/props/kettle.png",
    },
  },
  locations: {
    kitchen: { description: "a cramped kitchen at night", plate: "refs/_bg/kitchen.png" },
    kitchen_rev: {
      of: "kitchen",
      description: "the kitchen from the sink",
      plate: "refs/_bg/kitchen_rev.png",
    },
    street: { description: "a wet street at night", plate: "refs/_bg/street.png" },
  },
} as const;
