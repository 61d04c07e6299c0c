// The node schemas of a current ComfyUI (test/fixtures/comfy-node-schemas.json, read from ComfyUI's source) and a
// check of an API-format graph against them: what ComfyUI's own validation would refuse, one line per problem; and
// the shipped video targets' workflows with small ways to find nodes in them.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { type ApiGraph, isLink, nodesOf } from "../../lib/targets/graph.ts";
import { shippedRegistry, type TargetSpec } from "../../lib/targets/registry.ts";

interface InputSchema {
  type: string;
  options?: string[] | "samplers" | "schedulers";
  files?: string;
  min?: number;
  max?: number;
}
interface NodeSchema {
  required: Record<string, InputSchema>;
  optional?: Record<string, InputSchema>;
  outputs: string[];
}
interface Schemas {
  samplers: string[];
  schedulers: string[];
  nodes: Record<string, NodeSchema>;
}

export const schemas: Schemas = JSON.parse(
  await readFile(path.join(import.meta.dirname, "..", "fixtures", "comfy-node-schemas.json"), "utf8"),
);

const VIDEO_TARGETS = path.join(import.meta.dirname, "..", "..", "lib", "targets", "video");

/** A shipped video target's spec and its workflow as shipped. */
export async function shippedTarget(id: string): Promise<{ spec: TargetSpec; graph: ApiGraph }> {
  const spec = shippedRegistry().get(id);
  if (!spec) throw new Error(`no shipped target ${id}`);
  const graph = JSON.parse(await readFile(path.join(VIDEO_TARGETS, id, "workflow.json"), "utf8")) as ApiGraph;
  return { spec, graph };
}

/** The one node of a class (and title, when given) in a graph. */
export function oneNode(g: ApiGraph, cls: string, title?: string): ApiGraph[string] {
  const ids = nodesOf(g, cls).filter((id) => title === undefined || g[id]._meta?.title === title);
  expect(ids, `${cls}${title ? ` "${title}"` : ""}`).toHaveLength(1);
  return g[ids[0]];
}

/** The node a link input reads. */
export function linkSource(g: ApiGraph, node: ApiGraph[string], input: string): ApiGraph[string] {
  const v = node.inputs[input];
  if (!isLink(v)) throw new Error(`${node.class_type}.${input} is not a link`);
  return g[v[0]];
}

/** Every way a graph breaks the schemas, one line each (empty when it validates). */
export function schemaErrors(g: ApiGraph): string[] {
  const errors: string[] = [];
  for (const [id, node] of Object.entries(g)) {
    const where = `node ${id} (${node.class_type})`;
    const schema = schemas.nodes[node.class_type];
    if (!schema) {
      errors.push(`${where}: class unknown to ComfyUI`);
      continue;
    }
    const known = { ...schema.required, ...schema.optional };
    for (const name of Object.keys(schema.required)) {
      if (!(name in node.inputs)) errors.push(`${where}: required input ${name} missing`);
    }
    for (const [name, value] of Object.entries(node.inputs)) {
      const input = known[name];
      if (!input) {
        errors.push(`${where}: unknown input ${name}`);
        continue;
      }
      const problem = isLink(value) ? linkProblem(g, value, input) : literalProblem(value, input);
      if (problem) errors.push(`${where}.${name}: ${problem}`);
    }
  }
  return errors;
}

function linkProblem(g: ApiGraph, [from, slot]: [string, number], input: InputSchema): string | null {
  const source = g[from];
  if (!source) return `reads node ${from}, which does not exist`;
  const outputs = schemas.nodes[source.class_type]?.outputs;
  if (!outputs) return null; // the source's own class is reported where it stands
  if (slot < 0 || slot >= outputs.length)
    return `reads output ${slot} of ${source.class_type}, which has ${outputs.length}`;
  const type = outputs[slot];
  if (input.type === "*" || type === "*") return null;
  if (["INT", "FLOAT", "STRING", "BOOLEAN", "COMBO"].includes(input.type)) {
    return type === input.type ? null : `a ${input.type} widget linked to a ${type} output`;
  }
  return type === input.type
    ? null
    : `wants ${input.type}, linked to ${source.class_type} output ${slot} (${type})`;
}

function literalProblem(value: unknown, input: InputSchema): string | null {
  switch (input.type) {
    case "INT":
      // A bigint is a seed past 2^53, written into the prompt as a bare JSON number.
      if (typeof value === "bigint") {
        if (input.max !== undefined && value > BigInt(input.max)) return `${value} is above ${input.max}`;
        return value < 0n ? `${value} is below 0` : null;
      }
      if (typeof value !== "number" || !Number.isInteger(value))
        return `wants a whole number, got ${JSON.stringify(value)}`;
      break;
    case "FLOAT":
      if (typeof value !== "number") return `wants a number, got ${JSON.stringify(value)}`;
      break;
    case "STRING":
      return typeof value === "string" ? null : `wants text, got ${JSON.stringify(value)}`;
    case "BOOLEAN":
      return typeof value === "boolean" ? null : `wants true or false, got ${JSON.stringify(value)}`;
    case "COMBO": {
      if (typeof value !== "string") return `wants a choice, got ${JSON.stringify(value)}`;
      if (input.files) return value ? null : "wants a file name";
      const options =
        input.options === "samplers"
          ? schemas.samplers
          : input.options === "schedulers"
            ? schemas.schedulers
            : (input.options ?? []);
      return options.includes(value) ? null : `${JSON.stringify(value)} is not one of ${options.join(", ")}`;
    }
    default:
      return `a ${input.type} input needs a link, got ${JSON.stringify(value)}`;
  }
  const n = value as number;
  if (input.min !== undefined && n < input.min) return `${n} is below ${input.min}`;
  if (input.max !== undefined && n > input.max) return `${n} is above ${input.max}`;
  return null;
}
