// Writes the README's targets table from the shipped target specs: `node --import tsx scripts/targets-table.ts`
// (`--check` only says whether README.md is current, exiting 1 when it is not).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { targetsTable, withTable } from "../lib/targets/readme-table.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";

const file = path.join(import.meta.dirname, "..", "README.md");
const registry = shippedRegistry();
const specs = registry.ids().map((id) => registry.get(id)!);
const before = await readFile(file, "utf8");
const after = withTable(before, targetsTable(specs));
if (process.argv.includes("--check")) {
  console.log(after === before ? "README.md targets table is current" : "README.md targets table is stale");
  process.exitCode = after === before ? 0 : 1;
} else if (after !== before) {
  await writeFile(file, after);
  console.log(`wrote the targets table (${specs.length} targets) into README.md`);
}
