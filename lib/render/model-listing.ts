// The local ComfyUI's files in each model folder a target reads, asked once per folder for a whole request (a
// render of many shots or a generate of many candidates shares the answers through `memo`).
import { errorMessage } from "../store/json-guards.ts";
import { modelFolder, modelSpecs } from "../targets/models.ts";
import type { TargetSpec } from "../targets/registry.ts";

export type FolderListings = Map<string, Promise<readonly string[] | null>>;

export async function listTargetModels(
  lookups: { models(url: string, folder: string): Promise<readonly string[] | null> },
  url: string,
  spec: TargetSpec,
  memo: FolderListings,
): Promise<{ listing: Record<string, readonly string[] | null> } | { error: string }> {
  const folders = new Set<string>();
  for (const param of Object.keys(modelSpecs(spec))) {
    const folder = modelFolder(spec, param);
    if (folder) folders.add(folder);
  }
  const listing: Record<string, readonly string[] | null> = {};
  try {
    await Promise.all(
      [...folders].map(async (folder) => {
        let files = memo.get(folder);
        if (!files) {
          files = lookups.models(url, folder);
          memo.set(folder, files);
        }
        listing[folder] = await files;
      }),
    );
  } catch (err) {
    return { error: `the local backend at ${url} did not list its models: ${errorMessage(err)}` };
  }
  return { listing };
}
