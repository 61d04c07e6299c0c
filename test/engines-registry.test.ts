// Which engine runs a backend: the built-in one always, `local` the ComfyUI engine at the settings' address, every
// other backend a clear error until it is wired in.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { BUILTIN_TARGETS } from "../lib/engines/builtin/index.ts";
import {
  closeComfyEngines,
  comfyEngineAt,
  engineFor,
  laneUnready,
  localAddress,
} from "../lib/engines/registry.ts";
import { shippedTargets } from "../lib/targets/registry.ts";

describe("engineFor", () => {
  const services = { env: { PATH: process.env.PATH }, home: path.join(os.tmpdir(), "studio-registry-none") };
  const homes: string[] = [];
  afterAll(async () => {
    await closeComfyEngines();
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it("resolves the built-in engine, one instance per environment", () => {
    const engine = engineFor("builtin", services);
    expect(engine.backend).toBe("builtin");
    expect(engineFor("builtin", services)).toBe(engine);
    expect(engineFor("builtin", { ...services, env: { ...services.env } })).not.toBe(engine);
    for (const step of ["prepare", "submit", "collect", "cancel"] as const) {
      expect(typeof engine[step]).toBe("function");
    }
  });

  it("resolves the local lane, one per environment and settings folder", () => {
    const engine = engineFor("local", services);
    expect(engine.backend).toBe("local");
    expect(engineFor("local", services)).toBe(engine);
    expect(engineFor("local", { ...services, home: `${services.home}-2` })).not.toBe(engine);
    for (const step of ["prepare", "submit", "collect", "cancel"] as const) {
      expect(typeof engine[step]).toBe("function");
    }
  });

  it("reads the local address from settings: local_url, else engine_url, else the default", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "studio-registry-"));
    homes.push(home);
    const at = { home, env: {} };
    expect(await localAddress(at)).toBe("http://127.0.0.1:8188");
    const file = settingsFile(at);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ engine_url: "http://127.0.0.1:9001" }));
    const second = { home: `${home}/.`, env: {} };
    expect(await localAddress(second)).toBe("http://127.0.0.1:9001");
    await writeFile(
      file,
      JSON.stringify({ engine_url: "http://127.0.0.1:9001", local_url: "http://127.0.0.1:9002" }),
    );
    expect(await localAddress({ home: `${home}/./.`, env: {} })).toBe("http://127.0.0.1:9002");
    expect(comfyEngineAt("http://127.0.0.1:9002")).toBe(comfyEngineAt("http://127.0.0.1:9002"));
    expect(comfyEngineAt("http://127.0.0.1:9002").url).toMatch(/^http:\/\/127\.0\.0\.1:9002/);
  });

  it.each(["router", "", "nope"])("refuses backend '%s'", (backend) => {
    expect(() => engineFor(backend, services)).toThrow(
      `backend '${backend}' is not configured: the engines are builtin, local (ComfyUI), cloud and deployment:<target>`,
    );
  });

  it("gives cloud and deployments a Comfy API v2 lane that says what the settings lack", async () => {
    for (const backend of ["cloud", "deployment:ltx2"]) {
      expect(engineFor(backend, services).backend).toBe(backend);
      expect(engineFor(backend, services)).toBe(engineFor(backend, services));
    }
    expect(await laneUnready("cloud", services)).toMatch(/^backend 'cloud' needs an API key/);
    expect(await laneUnready("builtin", services)).toBeNull();
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
