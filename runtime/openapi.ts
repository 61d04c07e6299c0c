// The OpenAPI 3.1 document, built from the function modules' zod schemas (zod 4's own JSON Schema output).
import { z } from "zod";
import type { StudioFunction } from "../lib/fn.ts";

type Json = Record<string, unknown>;

export function buildOpenApi(functions: readonly StudioFunction[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const fn of functions) {
    const openPath = `${fn.root ? "" : "/studio"}${fn.path.replace(/:([A-Za-z_]\w*)/g, "{$1}")}`;
    const op: Json = {
      summary: fn.summary,
      operationId: `${fn.method.toLowerCase()}${fn.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string) => (ch ? ch.toUpperCase() : ""))}`,
      responses: {
        "200": { description: "OK" },
        "4XX": { description: "Bad input", content: { "application/json": { schema: errorSchema } } },
      },
    };
    const params = [...fn.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const schema = fn.input ? toSchema(fn.input) : undefined;
    if (fn.method === "GET" || fn.method === "DELETE") {
      const props = (schema?.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema?.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(props)) {
        if (params.some((p) => p.name === name)) continue;
        params.push({ name, in: "query", required: required.has(name), schema: s as { type: string } });
      }
    } else if (schema) {
      op.requestBody = { required: true, content: { "application/json": { schema } } };
    }
    if (params.length) op.parameters = params;
    paths[openPath] ??= {};
    paths[openPath][fn.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Episode Studio", version, description: "Every path also answers under /api/studio." },
    servers: [{ url: "/" }],
    paths,
  };
}

const errorSchema = {
  type: "object",
  properties: { error: { type: "string" } },
  required: ["error"],
};

function toSchema(schema: z.ZodType): Json | undefined {
  try {
    const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
    delete out.$schema;
    return out;
  } catch {
    return { type: "object" };
  }
}
