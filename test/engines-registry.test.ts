// Which engine runs a backend: the built-in one always, every other backend a clear error until it is wired in.
import { describe, expect, it } from "vitest";
import { BUILTIN_TARGETS } from "../lib/engines/builtin/index.ts";
import { engineFor } from "../lib/engines/registry.ts";
import { shippedTargets } from "../lib/targets/registry.ts";

describe("engineFor", () => {
  const services = { env: { PATH: process.env.PATH } };

  it("resolves the built-in engine, one instance per environment", () => {
    const engine = engineFor("builtin", services);
    expect(engine.backend).toBe("builtin");
    expect(engineFor("builtin", services)).toBe(engine);
    expect(engineFor("builtin", { env: { ...services.env } })).not.toBe(engine);
    for (const step of ["prepare", "submit", "collect", "cancel"] as const) {
      expect(typeof engine[step]).toBe("function");
    }
  });

  it.each(["local", "cloud", "deployment:ltx2", "router", ""])("refuses backend '%s'", (backend) => {
    expect(() => engineFor(backend, services)).toThrow(
      `backend '${backend}' is not configured: only the built-in engine exists until the ComfyUI engine lands`,
    );
  });
});

describe("built-in targets", () => {
  it("ships one target per kind for the built-in engine", async () => {
    const view = await shippedTargets();
    for (const [kind, id] of Object.entries(BUILTIN_TARGETS)) {
      const spec = view.get(id)!;
      expect(spec).toMatchObject({ id, kind, backend: "builtin" });
      expect(view.ids(spec.kind)).toContain(id);
    }
    expect(view.get("card")!.label).toBe("Card (labelled picture, no model)");
    expect(view.get("card")!.presets.final).toMatchObject({ width: 1024, height: 1024 });
    expect(view.get("silence")!.label).toBe("Silence (voice placeholder, no model)");
    expect(view.get("silence")!.presets.final).toMatchObject({ seconds: 3 });
  });
});
