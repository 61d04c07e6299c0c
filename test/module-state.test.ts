// No module-level mutable state outside runtime/: caches, locks and queues live in the services a process builds
// once, so a test's services start empty and nothing is shared by accident. The source is parsed (oxc, the parser
// vitest itself runs on) and every top-level declaration is judged:
// - `let` / `var` is refused;
// - `const x = new C(...)` is refused, except immutable values (RegExp, URL, TextDecoder, TextEncoder) and a Set or
//   Map that the module never changes (`.add`, `.set`, `.delete`, `.clear`) and that, when exported, is typed
//   ReadonlySet / ReadonlyMap so no importer can change it either;
// - `const x = [...]`, `{...}` or a typed array is refused when the module changes it (push, an assignment into
//   it, ...).
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseAst } from "rolldown/parseAst";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SCANNED = ["lib", "functions", "workers", "runtime"];
/** runtime/ may hold process-wide state; each allowance names the file and the declaration. */
const ALLOWED = new Set(["runtime/services.ts:versionText", "runtime/respond.ts:encodedByKey"]);

const IMMUTABLE_CLASSES = new Set(["RegExp", "URL", "TextDecoder", "TextEncoder"]);
/** Constant tables: allowed while the module never writes into them. */
const TYPED_ARRAYS = new Set(["Uint8Array", "Uint16Array", "Uint32Array", "Int32Array", "Float64Array"]);
const COLLECTION_WRITES = new Set(["add", "set", "delete", "clear"]);
const ARRAY_WRITES = new Set([
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
]);

// Loosely typed: only the handful of ESTree fields the judge reads.
type Node = { type: string; [key: string]: unknown };

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (d.name.endsWith(".ts") && !d.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function* walk(node: unknown): Generator<Node> {
  if (Array.isArray(node)) {
    for (const n of node) yield* walk(n);
    return;
  }
  if (!node || typeof node !== "object" || typeof (node as Node).type !== "string") return;
  yield node as Node;
  for (const [key, value] of Object.entries(node)) {
    if (key !== "parent" && value && typeof value === "object") yield* walk(value);
  }
}

const isName = (n: unknown, name: string) =>
  (n as Node | null)?.type === "Identifier" && (n as Node).name === name;

/** Calls `name.<method>(...)` for a method in `methods`, anywhere in the module. */
function callsOn(program: Node, name: string, methods: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const n of walk(program)) {
    if (n.type !== "CallExpression") continue;
    const callee = n.callee as Node;
    if (callee.type !== "MemberExpression" || !isName(callee.object, name)) continue;
    const prop = callee.property as Node;
    if (!callee.computed && prop.type === "Identifier" && methods.has(prop.name as string))
      found.push(`.${prop.name}()`);
  }
  return found;
}

/** Assignments into `name.x` / `name[k]` and `delete name.x`. */
function writesInto(program: Node, name: string): string[] {
  const found: string[] = [];
  for (const n of walk(program)) {
    const target =
      n.type === "AssignmentExpression"
        ? (n.left as Node)
        : n.type === "UnaryExpression" && n.operator === "delete"
          ? (n.argument as Node)
          : n.type === "UpdateExpression"
            ? (n.argument as Node)
            : null;
    if (target?.type === "MemberExpression" && isName(target.object, name))
      found.push("an assignment into it");
  }
  return found;
}

/** The expression under `as` / `satisfies` / `!` wrappers. */
function unwrap(e: Node | null): Node | null {
  let n = e;
  while (n && ["TSAsExpression", "TSSatisfiesExpression", "TSNonNullExpression"].includes(n.type)) {
    n = n.expression as Node;
  }
  return n;
}

function typeName(id: Node): string | null {
  const ann = (id.typeAnnotation as Node | null)?.typeAnnotation as Node | undefined;
  if (ann?.type !== "TSTypeReference") return null;
  const name = ann.typeName as Node;
  return name.type === "Identifier" ? (name.name as string) : null;
}

/** Every refused top-level declaration of one module, as `file:name: why`. */
function judge(rel: string, code: string): string[] {
  const program = parseAst(code, { lang: "ts" }) as unknown as Node;
  const problems: string[] = [];
  for (const stmt of program.body as Node[]) {
    const exported = stmt.type === "ExportNamedDeclaration";
    const decl = exported ? (stmt.declaration as Node | null) : stmt;
    if (decl?.type !== "VariableDeclaration") continue;
    for (const d of decl.declarations as Node[]) {
      const id = d.id as Node;
      const name = id.type === "Identifier" ? (id.name as string) : "(pattern)";
      const where = `${rel}:${name}`;
      if (ALLOWED.has(where)) continue;
      if (decl.kind !== "const") {
        problems.push(`${where}: a top-level ${decl.kind}`);
        continue;
      }
      const init = unwrap(d.init as Node | null);
      if (init?.type === "NewExpression") {
        const callee = init.callee as Node;
        const cls = callee.type === "Identifier" ? (callee.name as string) : "(expression)";
        if (IMMUTABLE_CLASSES.has(cls)) continue;
        if (cls === "Set" || cls === "Map") {
          const writes = callsOn(program, name, COLLECTION_WRITES);
          if (writes.length) problems.push(`${where}: a top-level ${cls} the module changes (${writes[0]})`);
          else if (exported && typeName(id) !== `Readonly${cls}`)
            problems.push(`${where}: an exported ${cls} must be typed Readonly${cls}`);
          continue;
        }
        if (TYPED_ARRAYS.has(cls)) {
          const writes = [...callsOn(program, name, ARRAY_WRITES), ...writesInto(program, name)];
          if (writes.length) problems.push(`${where}: a top-level ${cls} the module changes (${writes[0]})`);
          continue;
        }
        problems.push(`${where}: a top-level new ${cls}()`);
      } else if (init?.type === "ArrayExpression" || init?.type === "ObjectExpression") {
        const writes = [...callsOn(program, name, ARRAY_WRITES), ...writesInto(program, name)];
        if (writes.length) problems.push(`${where}: a top-level value the module changes (${writes[0]})`);
      }
    }
  }
  return problems;
}

describe("module-level state", () => {
  it("refuses mutable top-level state in lib/, functions/, workers/ and runtime/ (allowances aside)", async () => {
    const problems: string[] = [];
    for (const dir of SCANNED) {
      for (const file of await sourceFiles(path.join(ROOT, dir))) {
        const rel = path.relative(ROOT, file).split(path.sep).join("/");
        problems.push(...judge(rel, await readFile(file, "utf8")));
      }
    }
    expect(problems).toEqual([]);
  });

  it("catches each kind it refuses and lets frozen lookups through", () => {
    const code = [
      "let counter = 0;",
      "const cache = new Map<string, number>();",
      "const memo = new WeakMap<object, number>();",
      "const queue = new Semaphore(2);",
      "const seen = new Set<string>();",
      "const KNOWN = new Set(['a', 'b']);",
      "export const OPEN: ReadonlySet<string> = new Set(['x']);",
      "export const LOOSE = new Set(['y']);",
      "const ALIASES = new Map([['a', 1]]);",
      "const PATTERN = new RegExp('x');",
      "const list: string[] = [];",
      "const table = { a: 1 };",
      "const CONST_LIST = ['a'];",
      "const TABLE = new Uint32Array([1, 2]);",
      "const SCRATCH = new Uint8Array(4);",
      "export function f(k: string) { cache.set(k, 1); seen.add(k); list.push(k); table.b = 2; SCRATCH[0] = 1; return KNOWN.has(k); }",
    ].join("\n");
    expect(judge("lib/x.ts", code)).toEqual([
      "lib/x.ts:counter: a top-level let",
      "lib/x.ts:cache: a top-level Map the module changes (.set())",
      "lib/x.ts:memo: a top-level new WeakMap()",
      "lib/x.ts:queue: a top-level new Semaphore()",
      "lib/x.ts:seen: a top-level Set the module changes (.add())",
      "lib/x.ts:LOOSE: an exported Set must be typed ReadonlySet",
      "lib/x.ts:list: a top-level value the module changes (.push())",
      "lib/x.ts:table: a top-level value the module changes (an assignment into it)",
      "lib/x.ts:SCRATCH: a top-level Uint8Array the module changes (an assignment into it)",
    ]);
    expect(judge("runtime/services.ts", "let versionText: Promise<string> | undefined;")).toEqual([]);
  });
});
