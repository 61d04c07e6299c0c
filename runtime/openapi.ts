// The OpenAPI 3.1 document, built from the function modules' zod schemas (zod 4's own JSON Schema output).
import { z } from "zod";
import type { StudioFunction } from "../functions/fn.ts";

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
    const schema = fn.input ? toSchema(fn.input) : undefined;
    const params: Json[] = [...fn.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      description: pathParamDescription(schema, m[1]),
      schema: { type: "string" },
    }));
    if (fn.method === "GET" || fn.method === "DELETE") {
      const props = (schema?.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema?.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(props)) {
        if (params.some((p) => p.name === name)) continue;
        params.push({
          name,
          in: "query",
          required: required.has(name),
          description: s.description,
          schema: s,
        });
      }
    } else if (schema || fn.form) {
      const content: Json = {};
      if (schema) content["application/json"] = { schema };
      if (fn.form) content["multipart/form-data"] = { schema: toSchema(fn.form) };
      op.requestBody = { required: true, content };
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

/**
 * A path parameter's description, from the input schema's field of that name: its own description, or, when the
 * schema is a union whose branches each fix the field to one value (POST /jobs/:action), the values it takes.
 */
function pathParamDescription(schema: Json | undefined, name: string): string | undefined {
  const fields = [schema, ...((schema?.anyOf ?? schema?.oneOf ?? []) as Json[])]
    .map((s) => (s?.properties as Record<string, Json> | undefined)?.[name])
    .filter((f): f is Json => f !== undefined);
  const values = fields.map((f) => f.const).filter((v) => v !== undefined);
  if (values.length > 1) return `The ${name}: ${values.join(", ")}`;
  const described = fields.find((f) => typeof f.description === "string");
  return described ? String(described.description) : undefined;
}

function toSchema(schema: z.ZodType): Json | undefined {
  try {
    const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
    delete out.$schema;
    return out;
  } catch {
    return { type: "object" };
  }
}
