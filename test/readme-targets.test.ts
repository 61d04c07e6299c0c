// README's targets table lists every shipped target with what it needs, as written from the target files: a target
// folder added or a target file changed without writing the table again fails here.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TABLE_END, TABLE_START, targetsTable, withTable } from "../lib/targets/readme-table.ts";
import { shippedRegistry, type TargetSpec } from "../lib/targets/registry.ts";

const ROOT = path.join(import.meta.dirname, "..");
const TARGETS = path.join(ROOT, "lib", "targets");
const REGENERATE = "write it again with `node --import tsx scripts/targets-table.ts`";

async function readmeTable(): Promise<string> {
  const text = await readFile(path.join(ROOT, "README.md"), "utf8");
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  expect(start, "README.md has no targets table").toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return text.slice(start, end + TABLE_END.length);
}

/** Every target folder on disk (lib/targets/<kind>/<id>/target.json), read as its file says. */
async function targetFiles(): Promise<{ kind: string; id: string; raw: Record<string, unknown> }[]> {
  const out: { kind: string; id: string; raw: Record<string, unknown> }[] = [];
  for (const kind of ["video", "image", "audio"]) {
    for (const d of await readdir(path.join(TARGETS, kind), { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      const file = path.join(TARGETS, kind, d.name, "target.json");
      const text = await readFile(file, "utf8").catch(() => null);
      if (text !== null) out.push({ kind, id: d.name, raw: JSON.parse(text) });
    }
  }
  return out;
}

const rowOf = (table: string, id: string) => table.split("\n").find((l) => l.startsWith(`| \`${id}\`: `));

describe("README targets table", () => {
  it("has a row for every shipped target folder, of its kind", async () => {
    const table = await readmeTable();
    const files = await targetFiles();
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const { kind, id } of files) {
      const row = rowOf(table, id);
      expect(row, `README's targets table has no row for ${id}: ${REGENERATE}`).toBeDefined();
      expect(row?.split(" | ")[1]).toBe(kind);
    }
    const rows = table.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows).toHaveLength(files.length);
  });

  it("says what the target files say now", async () => {
    const registry = shippedRegistry();
    const specs = registry.ids().map((id) => registry.get(id) as TargetSpec);
    expect(await readmeTable(), `README's targets table is stale: ${REGENERATE}`).toBe(targetsTable(specs));
  });

  it("names each target's model families, node packs and required keyframes from its file", async () => {
    const table = targetsTable(
      shippedRegistry()
        .ids()
        .map((id) => shippedRegistry().get(id) as TargetSpec),
    );
    for (const { id, raw } of await targetFiles()) {
      const row = rowOf(table, id) ?? "";
      const models = (raw.models ?? {}) as Record<string, { family?: string; tier?: string }>;
      for (const [param, m] of Object.entries(models)) {
        if (param.startsWith("_") || !m.family) continue;
        expect(row).toContain(`\`${m.family}\` (${param})`);
      }
      const nodes = (raw.nodes ?? {}) as Record<string, { pack?: string }>;
      for (const [cls, n] of Object.entries(Array.isArray(nodes) ? {} : nodes)) {
        if (!n?.pack) continue;
        expect(row).toContain(`\`${n.pack}\`: `);
        expect(row).toContain(cls);
      }
      const recipe = (raw.recipe ?? {}) as { keyframe_required?: Record<string, string> };
      for (const k of Object.keys(recipe.keyframe_required ?? {})) expect(row).toContain(`${k} (required)`);
    }
    // The pack is optional: without it Ref2VA renders on core nodes.
    expect(rowOf(table, "minimax_h3_ref2va")).toContain(
      "`h3pipe`: H3ShotListLoader (optional), H3SaveShot (optional)",
    );
    expect(rowOf(table, "wan22_i2v")).toContain("keyframes: first (required), last (optional)");
    expect(rowOf(table, "animatic")).toContain("built-in (no GPU) | — | none");
  });

  it("is put between its markers, or added once when a README has none", () => {
    const table = `${TABLE_START}\n| x |\n${TABLE_END}`;
    expect(withTable(`a\n${TABLE_START}\nold\n${TABLE_END}\nb\n`, table)).toBe(`a\n${table}\nb\n`);
    expect(withTable("a\n", table)).toBe(`a\n\n${table}\n`);
  });
});
