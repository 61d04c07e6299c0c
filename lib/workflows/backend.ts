// The engine's saved workflows (ComfyUI's user data under `workflows/`): read, save, delete and list, each call
// bounded in time, a refusal worded for the person who asked (502 with what the engine said).
import { StudioError } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";

/** How long one user-data call may take (ms). */
const CALL_MS = 10_000;
/** A saved workflow's name: one file in the workflows folder, ending in .json, no folders, no `..`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9 _().-]{0,99}\.json$/;

/** The name when it can name a saved workflow, else a 400 saying what a name must be. */
export function checkWorkflowName(name: string, field = "name"): string {
  if (!NAME.test(name) || name.includes("..")) {
    throw new StudioError(
      400,
      `${field} must be a workflow file name ending in .json (letters, digits, space, _ . ( ) -; no folders, no "..")`,
    );
  }
  return name;
}

/** The user-data route of one saved workflow (the slash inside the file path is encoded, as ComfyUI wants). */
export const workflowRoute = (name: string) => `/api/userdata/${encodeURIComponent(`workflows/${name}`)}`;

async function call(address: string, method: string, route: string, body?: Buffer): Promise<Response> {
  try {
    return await fetch(address.replace(/\/+$/, "") + route, {
      method,
      ...(body ? { body, headers: { "Content-Type": "application/json" } } : {}),
      signal: AbortSignal.timeout(CALL_MS),
    });
  } catch (err) {
    throw new StudioError(502, `the backend at ${address} does not answer: ${errorMessage(err)}`);
  }
}

async function refusal(address: string, what: string, res: Response): Promise<StudioError> {
  const said = (await res.text().catch(() => "")).trim().slice(0, 200);
  return new StudioError(
    502,
    `the backend at ${address} refused to ${what}: ${res.status}${said ? ` ${said}` : ""}`,
  );
}

/** The saved workflow's bytes, or null when the engine has none of that name. */
export async function readSavedWorkflow(address: string, name: string): Promise<Buffer | null> {
  const res = await call(address, "GET", workflowRoute(name));
  if (res.status === 404) return null;
  if (!res.ok) throw await refusal(address, `read workflows/${name}`, res);
  return Buffer.from(await res.arrayBuffer());
}

/** `method` on `workflows/<name>`, the answer's body unread: false when nothing is saved under that name. */
async function onSavedWorkflow(
  address: string,
  method: "GET" | "DELETE",
  verb: string,
  name: string,
): Promise<boolean> {
  const res = await call(address, method, workflowRoute(name));
  await res.body?.cancel();
  if (res.status === 404) return false;
  if (!res.ok) throw await refusal(address, `${verb} workflows/${name}`, res);
  return true;
}

/** Whether the engine has a saved workflow of that name. */
export function hasSavedWorkflow(address: string, name: string): Promise<boolean> {
  return onSavedWorkflow(address, "GET", "read", name);
}

/** Save `bytes` as `workflows/<name>`; 409 when it exists and `overwrite` is false. */
export async function saveWorkflow(
  address: string,
  name: string,
  bytes: Buffer,
  overwrite: boolean,
): Promise<void> {
  const res = await call(address, "POST", `${workflowRoute(name)}?overwrite=${overwrite}`, bytes);
  if (res.status === 409) {
    await res.body?.cancel();
    throw new StudioError(
      409,
      `workflows/${name} is already saved in the backend; pass overwrite: true to replace it`,
    );
  }
  if (!res.ok) throw await refusal(address, `save workflows/${name}`, res);
  await res.body?.cancel();
}

/** Delete `workflows/<name>`; false when nothing was saved under that name. */
export function deleteSavedWorkflow(address: string, name: string): Promise<boolean> {
  return onSavedWorkflow(address, "DELETE", "delete", name);
}

/** The names saved in the engine's workflows folder (sub-folders included, as relative paths), sorted. */
export async function listSavedWorkflows(address: string): Promise<string[]> {
  const res = await call(address, "GET", "/api/userdata?dir=workflows&recurse=true");
  // A user who never saved a workflow has no folder yet: nothing is saved.
  if (res.status === 404) {
    await res.body?.cancel();
    return [];
  }
  if (!res.ok) throw await refusal(address, "list its saved workflows", res);
  const body: unknown = await res.json().catch(() => null);
  if (!Array.isArray(body))
    throw new StudioError(502, `the backend at ${address} listed its workflows in an unknown form`);
  return body.filter((n): n is string => typeof n === "string" && n.endsWith(".json")).sort();
}
