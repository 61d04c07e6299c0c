// Prompt validation as ComfyUI's execution.validate_prompt does it: the first-pass class checks, output
// selection, recursive per-node input checks (links, conversions, min/max, combos incl. model files, custom
// file checks), and the node_errors / dependent_outputs bookkeeping with its quirks (upstream faults leave
// `details` empty; every failing node validated so far is charged to each failing output).
import { type CatalogueContext, type InputDef, type NodeDef, wireSpec } from "./catalogue.ts";
import { pyBool, pyFloat, pyInt, pyNumber, pyRepr, pyStr } from "./py.ts";
import type { Graph, Profile } from "./types.ts";

export interface ErrorRecord {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}
export interface NodeErrors {
  [nodeId: string]: { errors: ErrorRecord[]; dependent_outputs: string[]; class_type: string };
}
export type Validation =
  | { ok: true; outputs: string[]; nodeErrors: NodeErrors }
  | { ok: false; error: ErrorRecord; nodeErrors: NodeErrors };

export interface ValidateEnv {
  profile: Profile;
  def: (classType: string) => NodeDef | undefined;
  ctx: CatalogueContext;
  /** `folder_paths.exists_annotated_filepath` for LoadImage/LoadAudio values. */
  fileExists: (annotated: string) => boolean;
  /** Injected validation faults for this node. */
  injected: (nodeId: string, classType: string) => ErrorRecord[];
}

class PyError extends Error {
  readonly pyType: string;
  constructor(pyType: string, message: string) {
    super(message);
    this.pyType = pyType;
  }
}

const TRACEBACK = [
  '  File "/ComfyUI/execution.py", line 1083, in validate_prompt\n    m = await validate_inputs(prompt_id, prompt, o, validated)\n',
  "  File \"/ComfyUI/execution.py\", line 774, in validate_inputs\n    o_class_type = prompt[o_id]['class_type']\n",
];

function titleOf(graph: Graph, id: string, fallback: unknown): unknown {
  const meta = graph[id]?._meta;
  return meta && typeof meta === "object" && typeof meta.title === "string" ? meta.title : fallback;
}

function inputType(def: InputDef): string {
  switch (def.t) {
    case "scalar":
      return def.type;
    case "link":
      return def.type;
    default:
      return "COMBO";
  }
}

function typesMatch(received: string, wanted: string): boolean {
  if (received === wanted || received === "*" || wanted === "*") return true;
  const a = new Set(received.split(",").map((s) => s.trim()));
  return wanted.split(",").some((s) => a.has(s.trim()));
}

/** Python tuple indexing of RETURN_TYPES by a link's slot. */
function outputAt(types: string[], slot: unknown): string {
  if (typeof slot === "boolean") slot = slot ? 1 : 0;
  if (typeof slot !== "number" || !Number.isInteger(slot)) {
    throw new PyError("TypeError", `tuple indices must be integers or slices, not ${pyTypeName(slot)}`);
  }
  const i = slot < 0 ? types.length + slot : slot;
  if (i < 0 || i >= types.length) throw new PyError("IndexError", "tuple index out of range");
  return types[i];
}

function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return typeof v === "object" ? "dict" : typeof v;
}

export function validatePrompt(graph: Graph, partial: unknown, env: ValidateEnv): Validation {
  const outputs: string[] = [];
  const partialList = Array.isArray(partial) ? partial.map(String) : null;
  for (const id of Object.keys(graph)) {
    const node = graph[id];
    const hasClass = node !== null && typeof node === "object" && "class_type" in node;
    const classType = hasClass ? node.class_type : undefined;
    const def = typeof classType === "string" ? env.def(classType) : undefined;
    if (!hasClass || !def) {
      if (env.profile === "old") {
        return {
          ok: false,
          error: {
            type: "invalid_prompt",
            message: hasClass
              ? `Cannot execute because node ${pyStr(classType)} does not exist.`
              : "Cannot execute because a node is missing the class_type property.",
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          nodeErrors: {},
        };
      }
      const title = titleOf(graph, id, hasClass ? classType : id);
      return {
        ok: false,
        error: {
          type: "missing_node_type",
          message: hasClass
            ? `Node '${pyStr(title)}' not found. The custom node may not be installed.`
            : `Node '${pyStr(title)}' has no class_type. The workflow may be corrupted or a custom node is missing.`,
          details: `Node ID '#${id}'`,
          extra_info: { node_id: id, class_type: hasClass ? classType : null, node_title: title },
        },
        nodeErrors: {},
      };
    }
    if (def.outputNode && (partialList === null || partialList.includes(id))) outputs.push(id);
  }
  if (outputs.length === 0) {
    return {
      ok: false,
      error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
      nodeErrors: {},
    };
  }

  type Result = [boolean, ErrorRecord[]];
  const validated = new Map<string, Result>();
  const visiting = new Set<string>();

  const validateInputs = (id: string): Result => {
    const done = validated.get(id);
    if (done) return done;
    if (visiting.has(id)) {
      if (env.profile === "new") {
        const r: Result = [
          false,
          [
            {
              type: "dependency_cycle",
              message: "Dependency cycle detected",
              details: `Node ${id} is part of a dependency cycle`,
              extra_info: { node_id: id },
            },
          ],
        ];
        validated.set(id, r);
        return r;
      }
      throw new PyError("RecursionError", "maximum recursion depth exceeded");
    }
    visiting.add(id);
    try {
      return validateNode(id);
    } finally {
      visiting.delete(id);
    }
  };

  const validateNode = (id: string): Result => {
    const node = graph[id];
    const classType = node.class_type as string;
    const def = env.def(classType)!;
    if (!node.inputs || typeof node.inputs !== "object") node.inputs = {};
    const inputs = node.inputs;
    const errors: ErrorRecord[] = [];
    let valid = true;
    const sections: [string, Record<string, InputDef> | undefined][] = [
      ["required", def.required],
      ["optional", def.optional],
    ];
    for (const [category, defs] of sections) {
      for (const [x, spec] of Object.entries(defs ?? {})) {
        const wire = wireSpec(spec, env.ctx);
        const extra = (wire[1] as Record<string, unknown> | undefined) ?? {};
        const info = [wire[0], extra];
        const type = inputType(spec);
        if (!(x in inputs)) {
          if (category === "required") {
            errors.push({
              type: "required_input_missing",
              message: "Required input is missing",
              details: x,
              extra_info: { input_name: x },
            });
          }
          continue;
        }
        let val = inputs[x];
        if (Array.isArray(val)) {
          if (val.length !== 2) {
            errors.push({
              type: "bad_linked_input",
              message: "Bad linked input, must be a length-2 list of [node_id, slot_index]",
              details: x,
              extra_info: { input_name: x, input_config: info, received_value: val },
            });
            continue;
          }
          const [oid, slot] = val;
          if (typeof oid !== "string" || !(oid in graph)) throw new PyError("KeyError", pyRepr(oid));
          const srcClass = graph[oid].class_type as string;
          const received = outputAt(env.def(srcClass)?.output ?? [], slot);
          if (!typesMatch(received, type)) {
            errors.push({
              type: "return_type_mismatch",
              message: "Return type mismatch between linked nodes",
              details: `${x}, received_type(${received}) mismatch input_type(${type})`,
              extra_info: { input_name: x, input_config: info, received_type: received, linked_node: val },
            });
            continue;
          }
          try {
            const r = validateInputs(oid);
            if (!r[0]) valid = false;
          } catch (err) {
            const e = err as PyError;
            valid = false;
            validated.set(oid, [
              false,
              [
                {
                  type: "exception_during_inner_validation",
                  message: "Exception when validating inner node",
                  details: e.message,
                  extra_info: {
                    input_name: x,
                    input_config: info,
                    exception_message: e.message,
                    exception_type: e.pyType ?? "Exception",
                    traceback: TRACEBACK,
                    linked_node: val,
                  },
                },
              ],
            ]);
          }
          continue;
        }
        if (val !== null && typeof val === "object" && "__value__" in (val as object)) {
          val = (val as { __value__: unknown }).__value__;
          inputs[x] = val;
        }
        try {
          if (type === "INT") val = pyInt(val);
          else if (type === "FLOAT") val = pyFloat(val);
          else if (type === "STRING") val = pyStr(val);
          else if (type === "BOOLEAN") val = pyBool(val);
          if (type === "INT" || type === "FLOAT" || type === "STRING" || type === "BOOLEAN") inputs[x] = val;
        } catch (err) {
          errors.push({
            type: "invalid_input_type",
            message: `Failed to convert an input value to a ${type} value`,
            details: `${x}, ${pyStr(val)}, ${(err as Error).message}`,
            extra_info: {
              input_name: x,
              input_config: info,
              received_value: val,
              exception_message: (err as Error).message,
            },
          });
          continue;
        }
        if (def.customValidate?.includes(x)) continue;
        const isFloat = type === "FLOAT";
        const shown = (n: unknown) => (typeof n === "number" ? pyNumber(n, isFloat) : pyStr(n));
        if (typeof extra.min === "number" && typeof val === "number" && val < extra.min) {
          errors.push({
            type: "value_smaller_than_min",
            message: `Value ${shown(val)} smaller than min of ${shown(extra.min)}`,
            details: x,
            extra_info: { input_name: x, input_config: info, received_value: val },
          });
          continue;
        }
        if (typeof extra.max === "number" && typeof val === "number" && val > extra.max) {
          errors.push({
            type: "value_bigger_than_max",
            message: `Value ${shown(val)} bigger than max of ${shown(extra.max)}`,
            details: x,
            extra_info: { input_name: x, input_config: info, received_value: val },
          });
          continue;
        }
        if (type === "COMBO") {
          const options = (Array.isArray(wire[0]) ? wire[0] : (extra.options as unknown[] | undefined)) ?? [];
          if (!options.includes(val)) {
            const long = options.length > 20;
            errors.push({
              type: "value_not_in_list",
              message: "Value not in list",
              details: `${x}: '${pyStr(val)}' not in ${long ? `(list of length ${options.length})` : pyRepr(options)}`,
              extra_info: { input_name: x, input_config: long ? null : info, received_value: val },
            });
          }
        }
      }
    }
    for (const x of def.customValidate ?? []) {
      if (!(x in inputs) || Array.isArray(inputs[x])) continue;
      const value = pyStr(inputs[x]);
      if (!env.fileExists(value)) {
        const spec = def.required?.[x];
        const what = spec?.t === "files" && spec.kind !== "image" ? spec.kind : "image";
        errors.push({
          type: "custom_validation_failed",
          message: "Custom validation failed for node",
          details: `${x} - Invalid ${what} file: ${value}`,
          extra_info: { input_name: x },
        });
      }
    }
    errors.push(...env.injected(id, classType));
    const result: Result = errors.length > 0 || !valid ? [false, errors] : [true, []];
    validated.set(id, result);
    return result;
  };

  const good: string[] = [];
  const failed: [string, ErrorRecord[]][] = [];
  const nodeErrors: NodeErrors = {};
  for (const o of outputs) {
    let result: Result;
    try {
      result = validateInputs(o);
    } catch (err) {
      const e = err as PyError;
      result = [
        false,
        [
          {
            type: "exception_during_validation",
            message: "Exception when validating node",
            details: e.message,
            extra_info: { exception_type: e.pyType ?? "Exception", traceback: TRACEBACK },
          },
        ],
      ];
      validated.set(o, result);
    }
    if (result[0]) {
      good.push(o);
      continue;
    }
    if (result[1].length > 0) failed.push([o, result[1]]);
    for (const [nodeId, [ok, reasons]] of validated) {
      if (ok || reasons.length === 0) continue;
      if (!nodeErrors[nodeId]) {
        nodeErrors[nodeId] = {
          errors: reasons,
          dependent_outputs: [],
          class_type: graph[nodeId].class_type as string,
        };
      }
      nodeErrors[nodeId].dependent_outputs.push(o);
    }
  }
  if (good.length === 0) {
    const details = failed.flatMap(([, errs]) => errs.map((e) => `${e.message}: ${e.details}`)).join("\n");
    return {
      ok: false,
      error: {
        type: "prompt_outputs_failed_validation",
        message: "Prompt outputs failed validation",
        details,
        extra_info: {},
      },
      nodeErrors,
    };
  }
  return { ok: true, outputs: good, nodeErrors };
}
