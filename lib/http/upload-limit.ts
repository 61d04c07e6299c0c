// The upload limit, with no Node imports: the runtime's router applies it to raw-body routes before anything is
// read, in every host the router runs in.
import { StudioError } from "../errors.ts";

/** Largest upload (a picture, a sound, a video): 64 MB. */
export const UPLOAD_LIMIT = 64 * 1024 * 1024;
/** A declared body past this (the upload plus 1 MiB for the form around it) is refused before it is read. */
export const UPLOAD_DECLARED_LIMIT = UPLOAD_LIMIT + 1024 * 1024;

export const uploadTooLarge = () => new StudioError(413, "upload: larger than 64 MB");

/** 413 before reading when the request declares a body over `limit`. */
export function checkDeclaredLength(headers: Headers, limit = UPLOAD_DECLARED_LIMIT): void {
  const declared = Number(headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit) throw uploadTooLarge();
}
