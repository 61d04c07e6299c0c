// Which engine runs a backend: the built-in one always, `local` the ComfyUI engine at the settings' address, every
// other backend a clear error until it is wired in.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { BUILTIN_TARGETS } from "../lib/engines/builtin/index.ts";
import { createEngines, type Engines, laneUnready, localAddress } from "../lib/engines/registry.ts";
import { createCaches } from "../lib/store/caches.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { hostMedia } from "./support/ctx.ts";

describe("the engine registry", () => {
  const services = {
    env: { PATH: process.env.PATH },
    home: path.join(os.tmpdir(), "studio-registry-none"),
    caches: createCaches(),
    media: hostMedia,
  };
  const homes: string[] = [];
  const made: Engines[] = [];
  /** A registry as a process's services hold one. */
  const registry = (at: Parameters<typeof createEngines>[0]) => {
    const engines = createEngines(at);
    made.push(engines);
    return engines;
  };
  const engines = registry(services);
  afterAll(async () => {
    for (const e of made) await e.close();
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it("resolves the built-in engine, one instance per environment", () => {
    const engine = engines.get("builtin");
    expect(engine.backend).toBe("builtin");
    expect(engines.get("builtin")).toBe(engine);
    expect(registry({ ...services, env: { ...services.env } }).get("builtin")).not.toBe(engine);
    for (const step of ["prepare", "submit", "collect", "cancel"] as const) {
      expect(typeof engine[step]).toBe("function");
    }
  });

  it("resolves the local lane, one per environment and settings folder", () => {
    const engine = engines.get("local");
    expect(engine.backend).toBe("local");
    expect(engines.get("local")).toBe(engine);
    expect(registry({ ...services, home: `${services.home}-2` }).get("local")).not.toBe(engine);
    for (const step of ["prepare", "submit", "collect", "cancel"] as const) {
      expect(typeof engine[step]).toBe("function");
    }
  });

  it("reads the local address from settings: local_url, else engine_url, else the default", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "studio-registry-"));
    homes.push(home);
    const at = { home, env: {}, caches: createCaches() };
    expect(await localAddress(at)).toBe("http://127.0.0.1:8188");
    const file = settingsFile(at);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ engine_url: "http://127.0.0.1:9001" }));
    const second = { home: `${home}/.`, env: {}, caches: createCaches() };
    expect(await localAddress(second)).toBe("http://127.0.0.1:9001");
    await writeFile(
      file,
      JSON.stringify({ engine_url: "http://127.0.0.1:9001", local_url: "http://127.0.0.1:9002" }),
    );
    expect(await localAddress({ home: `${home}/./.`, env: {}, caches: createCaches() })).toBe(
      "http://127.0.0.1:9002",
    );
    expect(engines.comfyAt("http://127.0.0.1:9002")).toBe(engines.comfyAt("http://127.0.0.1:9002"));
    expect(engines.comfyAt("http://127.0.0.1:9002").url).toMatch(/^http:\/\/127\.0\.0\.1:9002/);
  });

  it.each(["", "nope"])("refuses backend '%s'", (backend) => {
    expect(() => engines.get(backend)).toThrow(
      `backend '${backend}' is not configured: the engines are builtin, local (ComfyUI), cloud, router and deployment:<target>`,
    );
  });

  it("gives cloud and deployments a Comfy API v2 lane that says what the settings lack", async () => {
    for (const backend of ["cloud", "deployment:ltx2"]) {
      expect(engines.get(backend).backend).toBe(backend);
      expect(engines.get(backend)).toBe(engines.get(backend));
    }
    expect(await laneUnready("cloud", services)).toMatch(/^backend 'cloud' needs an API key/);
    expect(engines.get("router").backend).toBe("router");
    expect(await laneUnready("router", services)).toMatch(/^the router backend needs an API key/);
    expect(await laneUnready("builtin", services)).toBeNull();
  });
});

describe("built-in targets", () => {
  it("ships one target per kind for the built-in engine", async () => {
    const view = shippedRegistry();
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
