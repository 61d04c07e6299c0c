// The LTX reference sheet of a take: the shot's subjects (the compile's panel order, a character sheet cut to the
// panel the shot size calls for) and, where the recipe takes one, the location's plate last, composed side by side
// at the render size on the recipe's background. Made when the job starts from the pictures there then; none → null
// (the shot renders from the prompt alone).
import type { ViewInputs } from "../episode/view-inputs.ts";
import type { PanelLayout } from "../targets/registry.ts";
import { composeTakeReference, type ReferenceJob } from "./vace-reference.ts";

export async function ltxSheetFor(
  vi: ViewInputs,
  layout: PanelLayout,
  job: ReferenceJob,
  plate: string | null,
): Promise<string | null> {
  const suffix = typeof layout.take_suffix === "string" ? layout.take_suffix : "_refsheet.png";
  const made = await composeTakeReference(vi, layout, job, layout.plate === true ? plate : null, suffix);
  return made ? made.file : null;
}
