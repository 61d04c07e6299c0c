// What the service tells a person: STUDIO_LOG levels, and one line per request with its status and time.
import { describe, expect, it } from "vitest";
import { routes } from "../functions/index.ts";
import type { Logger } from "../lib/context.ts";
import { createApp } from "../runtime/app.ts";
import { consoleLogger, logLevel } from "../runtime/log.ts";
import { makeTestEnv } from "./support/ctx.ts";

function captured(level: Parameters<typeof consoleLogger>[0]) {
  const lines: string[] = [];
  const log = consoleLogger(level, (line) => lines.push(line));
  return { log, lines };
}

describe("STUDIO_LOG", () => {
  it("reads warn, info and debug, defaults to info, and refuses anything else", () => {
    expect(logLevel(undefined)).toBe("info");
    expect(logLevel(" Debug ")).toBe("debug");
    expect(logLevel("warn")).toBe("warn");
    expect(() => logLevel("loud")).toThrow(/STUDIO_LOG: "loud" is not a level \(use debug, info, warn\)/);
  });

  it("writes only lines at or above the level, with extra fields as JSON", () => {
    const warn = captured("warn");
    warn.log.info("hidden");
    warn.log.warn("shown", { shot: "sh010" });
    expect(warn.lines).toHaveLength(1);
    expect(warn.lines[0]).toMatch(/ warn shown \{"shot":"sh010"\}\n$/);
    const info = captured("info");
    info.log.debug("hidden");
    info.log.info("shown");
    expect(info.lines.map((l) => l.split(" ").slice(1).join(" "))).toEqual(["info shown\n"]);
    const debug = captured("debug");
    debug.log.debug("detail");
    expect(debug.lines[0]).toMatch(/ debug detail\n$/);
  });
});

describe("request log", () => {
  it("logs one info line per request: method, path, status, milliseconds", async () => {
    const env = await makeTestEnv();
    try {
      const lines: string[] = [];
      const log: Logger = { ...env.services.log, info: (m) => lines.push(m) };
      const app = createApp({ ...env.services, log }, routes);
      await app.request("http://127.0.0.1/studio/config");
      await app.request("http://127.0.0.1/studio/nope");
      await app.request("http://evil.example/studio/config");
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^GET \/studio\/config 200 \d+\.\d ms$/);
      expect(lines[1]).toMatch(/^GET \/studio\/nope 404 /);
      expect(lines[2]).toMatch(/^GET \/studio\/config 403 /);
    } finally {
      await env.cleanup();
    }
  });
});
