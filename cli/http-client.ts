// The client of a running server: each route call is an HTTP request to it, so the work lands in its queue.
import type * as Undici from "undici";
import type { Method } from "../functions/fn.ts";
import { CliError } from "./args.ts";
import { type Answer, answerOf, type Client, queryOf } from "./client.ts";

export function httpClient(base: string, token: string | undefined): Client {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  // A route that answers when its work is done (assemble) may take many minutes: no time limit on the answer.
  let loaded: Promise<{ u: typeof Undici; agent: Undici.Agent }> | undefined;
  const undici = () =>
    (loaded ??= import("undici").then((u) => ({
      u,
      agent: new u.Agent({ headersTimeout: 0, bodyTimeout: 0, connect: { timeout: 10_000 } }),
    })));
  return {
    where: `working through the server at ${base}`,
    leftBehind: "its jobs go on in the server's queue (studio jobs shows them)",
    async call(method: Method, path: string, input?: Record<string, unknown>): Promise<Answer> {
      const body = method === "GET" || method === "DELETE" ? undefined : JSON.stringify(input ?? {});
      const url = `${base}/studio${path}${body === undefined ? queryOf(input) : ""}`;
      const { u, agent } = await undici();
      let res: Undici.Response;
      try {
        res = await u.fetch(url, {
          method,
          headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
          body,
          dispatcher: agent,
        });
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
        throw new CliError(1, `cannot reach the server at ${base}${cause}`);
      }
      return answerOf(res);
    },
    async close() {
      if (loaded) await (await loaded).agent.close();
    },
  };
}

/**
 * Whether a server answers at `base` (any HTTP answer counts: a refusal still says it is there). A busy server may
 * take seconds over its first request; a closed port fails at once.
 */
export async function answers(base: string, token: string | undefined): Promise<boolean> {
  try {
    const res = await fetch(`${base}/studio/info`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
