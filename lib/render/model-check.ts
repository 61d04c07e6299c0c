// Model mismatch: before a take is reserved, each model file the shot will load is compared with the family
// its param wants (contract rendering rule 4). The same file as the target's own: silent. Another name whose
// header says the same family, whose header is unknown (not a readable safetensors file, or the models folder
// is not on this machine) or which is not found: a note. A header (or, with no header, a name) of another
// family: a blocking check.
import path from "node:path";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { globMatch, identify, readSafetensorsHeader, relation } from "../targets/modelid.ts";
import { baseName, type ModelsResolution, modelSpecs, type Pass, wantedFiles } from "../targets/models.ts";
import { TARGET_KINDS, type TargetRegistryView, type TargetSpec } from "../targets/registry.ts";

export interface ModelMismatch {
  param: string;
  file: string;
  family: string;
  label: string;
  patterns: string[];
  match: false;
  found: string;
  message: string;
  block: true;
}

export interface MismatchCheck {
  mismatches: ModelMismatch[];
  notes: string[];
}

/** The engine's models folder on this machine: settings `path`, else `COMFYUI_PATH`; null when neither is set. */
export async function localComfyPath(
  services: Pick<Services, "home" | "caches"> & { env?: Services["env"] },
): Promise<string | null> {
  const env = services.env ?? {};
  const s = await effectiveSettings({ home: services.home, env, caches: services.caches });
  const fromEnv = env.COMFYUI_PATH?.trim();
  return s.path ?? (fromEnv ? fromEnv : null);
}

/** The family a file's header says, or null when it cannot be read or tells no family. */
async function headerFamily(
  comfyPath: string | null,
  folder: string | null,
  file: string,
): Promise<string | null> {
  if (!comfyPath || !folder) return null;
  try {
    const header = await readSafetensorsHeader(path.join(comfyPath, "models", folder, file));
    return identify(header, baseName(file).toLowerCase()).family;
  } catch {
    return null; // not found or unreadable: no evidence either way
  }
}

/** Another family whose name patterns (any target's) the file's name matches, or null. */
function familyByName(registry: TargetRegistryView, own: string, file: string): string | null {
  const name = baseName(file).toLowerCase();
  for (const kind of TARGET_KINDS) {
    for (const id of registry.ids(kind)) {
      const spec = registry.get(id);
      if (!spec) continue;
      for (const m of Object.values(modelSpecs(spec))) {
        if (m.family === own || !m.patterns?.length) continue;
        if (relation(m.family, own) === "variant" || relation(own, m.family) === "variant") continue;
        if (m.patterns.some((g) => globMatch(g, name))) return m.family;
      }
    }
  }
  return null;
}

/** Rule 4 for the files a resolution picked (model params only; LoRAs are not family-checked here). */
export async function checkModelFamilies(
  spec: TargetSpec,
  pass: Pass,
  models: ModelsResolution,
  comfyPath: string | null,
  registry: TargetRegistryView,
): Promise<MismatchCheck> {
  const specs = modelSpecs(spec);
  const own = wantedFiles(spec, pass).files;
  const out: MismatchCheck = { mismatches: [], notes: [] };
  for (const [param, r] of Object.entries(models.params)) {
    const m = specs[param];
    if (!m || param === "loras" || r.using === null) continue;
    const using = r.using;
    const sameAs = (f: string | null | undefined) =>
      !!f && baseName(f).toLowerCase() === baseName(using).toLowerCase();
    // The target's own file for this pass, or the base preset's own file: same name, silent.
    if (sameAs(own[param]) || (r.how === "base" && sameAs(r.want))) continue;
    const patterns = m.patterns ?? [];
    const byHeader = await headerFamily(comfyPath, r.folder, using);
    let found: string | null = null;
    let how = "";
    if (byHeader) {
      const rel = relation(byHeader, m.family);
      if (rel === "different") {
        found = byHeader;
        how = "by its header";
      } else {
        out.notes.push(`${param}: ${using} is not ${r.want}; its header says ${byHeader}`);
        continue;
      }
    } else if (!patterns.some((g) => globMatch(g, baseName(using).toLowerCase()))) {
      found = familyByName(registry, m.family, using);
      how = "by its name";
    }
    if (!found) {
      out.notes.push(
        `${param}: ${using} is not ${r.want}; its family could not be read from its header, so it is not checked`,
      );
      continue;
    }
    const message = `${param}: ${using} is ${found} (${how}), not ${m.family}`;
    out.mismatches.push({
      param,
      file: using,
      family: found,
      label: `${param}: ${using}${r.folder ? ` (models/${r.folder})` : ""}`,
      patterns,
      match: false,
      found,
      message,
      block: true,
    });
  }
  return out;
}
