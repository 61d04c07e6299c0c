// The LTX reference sheet of a take: the shot's subjects (the compile's panel order, a character sheet cut to the
// panel the shot size calls for) and, where the recipe takes one, the location's plate last, composed side by side
// at the render size on the recipe's background. Made when the job starts from the pictures there then; none → null
// (the shot renders from the prompt alone).
import path from "node:path";
import type { Entry } from "../compile/types.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { episodeFence, mkdirShow, readShowFile, showFence, writeShowFile } from "../paths/guarded.ts";
import type { PanelLayout } from "../targets/registry.ts";
import { jobFigures } from "./job-figures.ts";
import { composeVaceReference, type VacePicture, vaceLook } from "./vace-reference.ts";

export async function ltxSheetFor(
  vi: ViewInputs,
  layout: PanelLayout,
  job: {
    entry: Entry;
    refs: unknown;
    width: number;
    height: number;
    stem: string;
    workDir: string;
    ep: string;
  },
  plate: string | null,
): Promise<string | null> {
  const drawn = await jobFigures(vi, layout, job.entry, job.refs);
  const fence = showFence(vi.ep);
  const pictures: VacePicture[] = [];
  for (const f of drawn.figures) {
    const real = drawn.inputs[f.input];
    if (real) pictures.push({ data: await readShowFile(fence, real), panel: f.panel });
  }
  if (layout.plate === true && plate) pictures.push({ data: await readShowFile(fence, plate), panel: null });
  if (!pictures.length) return null;
  const { png } = await composeVaceReference(
    { width: job.width, height: job.height },
    pictures,
    vaceLook(layout),
  );
  const suffix = typeof layout.take_suffix === "string" ? layout.take_suffix : "_refsheet.png";
  const file = path.join(job.workDir, `${path.basename(job.stem)}${suffix}`);
  await mkdirShow(episodeFence(job.ep), job.workDir);
  await writeShowFile(episodeFence(job.ep), file, png);
  return file;
}
