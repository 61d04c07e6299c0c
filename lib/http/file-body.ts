// Routes that take a file either by path (a JSON body's `source_path`) or as an upload (a multipart form's `file`)
// share these pieces: the JSON body's fields, its refusals, and reading the form with its text fields checked and
// its temporary file removed whatever the route does with it.
import { z } from "zod";
import { badRequest } from "../errors.ts";
import { parseInput } from "../validate.ts";
import { type Form, readUploadForm } from "./multipart.ts";

/** The JSON body's `source_path`, described with what the file is (e.g. "The recording"). */
export const sourcePathField = (what: string) =>
  z
    .string()
    .nullish()
    .describe(`${what}: an absolute path inside a root, or a path relative to the episode folder`);

/** The JSON body's `file` key, declared so that it can be refused clearly (`refuseJsonFile`). */
export const jsonFileField = z
  .unknown()
  .optional()
  .describe("Not in JSON: a file is sent as multipart/form-data");

/** 400 for a JSON body carrying a `file`: files come only as multipart/form-data. */
export function refuseJsonFile(input: { file?: unknown }): void {
  if (input.file !== undefined) throw badRequest("file must be sent as multipart/form-data");
}

/**
 * The JSON body's source path: 400 for a `file` key, and for no path (`instead` says how else to send the file).
 */
export function jsonSourcePath(
  input: { file?: unknown; source_path?: string | null },
  instead = "send the file as multipart/form-data",
): string {
  refuseJsonFile(input);
  if (input.source_path == null || input.source_path === "")
    throw badRequest(`source_path is required (or ${instead})`);
  return input.source_path;
}

/**
 * Reads the request's multipart form, checks its text fields against `fields`, and hands both to `use`; the
 * form's temporary file is removed once `use` is done, whether it kept (moved) the file or failed.
 */
export async function withUploadForm<S extends z.ZodType, T>(
  ctx: { request: Request; home: string },
  fields: S,
  use: (fields: z.output<S>, form: Form) => Promise<T>,
): Promise<T> {
  const form = await readUploadForm(ctx.request, ctx.home);
  try {
    return await use(parseInput(fields, { ...form.fields }, "form"), form);
  } finally {
    await form.discard();
  }
}
