// Reference introduction for edit targets: how the prompt names and uses each reference image (targets 3.5.8).
import { joinSentences, sentence } from "../../compile/prompts/text.ts";

/** `character`, `prop`/`vehicle`/`object`, `group` (with `members`), `plate`, or `composite` (one collage picture). */
export type RefRole = "character" | "prop" | "vehicle" | "object" | "group" | "plate" | "composite";

export interface IntroRef {
  role: RefRole | string;
  /** The subject's display name; for a composite, the names of the figures it shows ("Ada and Bo"). */
  name: string;
  /** Group size, for `group` references. */
  members?: number;
}

/** `image 1`, `image 2`, … with several references; `the image` with one (the word is `recipe.ref_word`). */
export function refName(word: string, index: number, count: number): string {
  const w = word.trim() || "image";
  return count === 1 ? `the ${w}` : `${w} ${index + 1}`;
}

/** One sentence per reference, in the order given (callers pass characters, then props/vehicles, then the plate). */
export function editIntroduction(refs: readonly IntroRef[], refWord = "image"): string {
  const n = refs.length;
  return joinSentences(
    refs.map((r, i) => {
      const img = refName(refWord, i, n);
      switch (r.role) {
        case "plate":
          return sentence(`Use the setting, layout, colours and light of ${img}`);
        case "character":
          return sentence(
            `Draw ${r.name} exactly as in ${img}: the same face, body, clothes and colours, posed for this shot`,
          );
        case "group": {
          const m = typeof r.members === "number" ? `${r.members} ` : "";
          return sentence(
            `${r.name} are a group of ${m}different people, each drawn once exactly as in ${img}, posed for this shot`,
          );
        }
        case "composite":
          return sentence(
            `${img} shows ${r.name} in front of the background: draw them as shown and use the background's setting and light; treat ${img} as a collage only, and pose and frame them for this shot`,
          );
        default:
          return sentence(
            `Draw ${r.name} exactly as in ${img}: the same shape and colours, posed for this shot`,
          );
      }
    }),
  );
}
