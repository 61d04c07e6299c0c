// Folder names the service creates (new episodes, imports): portable, not reserved, not a device.
import { badRequest, shown } from "../errors.ts";

/** Names the episode finder skips, so an episode with one of them would never be listed. */
export const RESERVED_FOLDER_NAMES: readonly string[] = [
  "refs",
  "renders",
  "renders_proxy",
  "shotlist",
  "views",
  "audio",
  "targets",
];

const DEVICE = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;
const SHAPE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Returns the name when it is acceptable, else throws 400 saying what is wrong with it. */
export function validateFolderName(name: unknown, field = "name"): string {
  if (typeof name !== "string" || name === "") throw badRequest(`${field} must be a folder name`);
  const show = shown(name);
  if (name.length > 64) throw badRequest(`${field}: ${show} is longer than 64 characters`);
  if (!SHAPE.test(name)) {
    throw badRequest(
      `${field}: ${show} may only hold letters, digits, ".", "_" and "-", and must start with a letter or digit`,
    );
  }
  if (name.endsWith(".")) throw badRequest(`${field}: ${show} must not end with "."`);
  if (RESERVED_FOLDER_NAMES.includes(name.toLowerCase())) {
    throw badRequest(`${field}: ${show} is a reserved folder name`);
  }
  // Windows treats "nul.txt" like "nul": the part before the first dot decides.
  if (DEVICE.test(name.split(".")[0])) throw badRequest(`${field}: ${show} is a Windows device name`);
  return name;
}
