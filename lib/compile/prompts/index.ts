// Picks the prompt writer a target declares; the prompt text is target-specific (targets 3.5).
import { promptWriter } from "../../targets/registry.ts";
import { fields } from "./fields.ts";
import { prose, proseSilent, sheetProse } from "./prose.ts";
import { sections } from "./sections.ts";
import type { PromptInput } from "./text.ts";

export type { PromptInput } from "./text.ts";

/** A list of section strings for `sections` (H3 Ref2VA), one string for every other writer. */
export function writePrompt(p: PromptInput): string | string[] {
  switch (promptWriter(p.spec)) {
    case "sections":
      return sections(p);
    case "fields":
      return fields(p);
    case "prose_silent":
      return proseSilent(p);
    case "reference sheet + prose":
      return sheetProse(p);
    default:
      return p.spec.capabilities.audio === "none" ? proseSilent(p) : prose(p);
  }
}
