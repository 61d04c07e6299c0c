// What a command talks to: the routes' handlers, called in this process or through a running server over HTTP. Both
// answer a route call as the route would ({status, body}), so each command is written once over this interface.
import type { Method } from "../functions/fn.ts";
import { CliError } from "./args.ts";

export interface Answer {
  status: number;
  /** The JSON body, or the text of any other reply. */
  body: unknown;
}

export interface Client {
  /** Where the work runs, for the one line that says so ("in this process", "the server at <url>"). */
  readonly where: string;
  /** Call `method /studio<path>`: GET and DELETE send `input` as the query, POST and PUT as a JSON body. */
  call(method: Method, path: string, input?: Record<string, unknown>): Promise<Answer>;
  /** What becomes of the command's jobs when it is interrupted (Ctrl-C), said to the user as it stops. */
  readonly leftBehind: string;
  /** Let go of what the client holds (in this process: finish the worker pool, close the services). */
  close(): Promise<void>;
}

/**
 * The body of a 2xx answer; a refusal becomes the command's failure (a 4xx is bad usage, 2; anything else 1), its
 * message led by `what` when the call is not the command's own.
 */
export function answered<T>(answer: Answer, what?: string): T {
  if (answer.status >= 200 && answer.status < 300) return answer.body as T;
  const body = answer.body as { error?: unknown } | string;
  const message =
    typeof body === "object" && body !== null && typeof body.error === "string"
      ? body.error
      : String(body).slice(0, 500);
  throw new CliError(
    answer.status >= 400 && answer.status < 500 ? 2 : 1,
    what ? `${what}: ${message}` : message,
  );
}

/** The query string of a GET input (values as text, undefined left out). */
export function queryOf(input: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined && v !== null) q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : "";
}

/** The Answer of a web Response: JSON parsed when it says it is JSON, else its text. */
export async function answerOf(res: {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}): Promise<Answer> {
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("application/json");
  if (!json) return { status: res.status, body: text };
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}
