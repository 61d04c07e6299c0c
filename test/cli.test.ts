// The `studio` command line as a user runs it: a real `node bin/studio.js` process on a temp settings folder and
// root, read by its stdout, stderr and exit code; in this process with no server, and through a running server.
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { videoOf } from "./support/media.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const starter = path.join(repo, "lib", "episode", "starter");
const COMMANDS = [
  "build",
  "check",
  "render",
  "assemble",
  "refs missing",
  "timeline",
  "jobs",
  "serve",
  "worker",
];

let dir: string;
let home: string;
let root: string;
let ep: string;
let broken: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("STUDIO_") && k !== "PORT") base[k] = v;
  }
  return { ...base, STUDIO_HOME: home, STUDIO_ROOTS: root, ...extra };
}

/** `studio <args>` as a process; never throws on a non-zero exit. */
function studio(args: string[], extra: Record<string, string> = {}) {
  return execa(process.execPath, [path.join(repo, "bin", "studio.js"), ...args], {
    cwd: dir,
    env: env(extra),
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
}

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "studio-cli-")));
  home = path.join(dir, "home");
  root = path.join(dir, "shows");
  ep = path.join(root, "gold", "ep01");
  broken = path.join(root, "gold", "ep02");
  await mkdir(ep, { recursive: true });
  await mkdir(broken, { recursive: true });
  // The starter's series config sits in its episode folder (its reference paths lead two folders up).
  await copyFile(path.join(starter, "series.json"), path.join(ep, "series.json"));
  await copyFile(path.join(starter, "series.json"), path.join(broken, "series.json"));
  await copyFile(path.join(starter, "starter.md"), path.join(ep, "ep01.md"));
  const script = await readFile(path.join(starter, "starter.md"), "utf8");
  await writeFile(path.join(broken, "ep02.md"), script.replace("dur: 3.04", "dur: banana"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("studio: usage", () => {
  it("--help lists every command; a command's --help or -h shows its options", async () => {
    const [top, one] = await Promise.all([studio(["--help"]), studio(["render", "-h"])]);
    expect(top.exitCode).toBe(0);
    for (const name of COMMANDS) expect(top.stdout).toContain(name);
    expect(one.exitCode).toBe(0);
    expect(one.stdout).toContain("usage: studio render <ep> [options]");
    expect(one.stdout).toContain("--shots");
  }, 60_000);

  it("bad usage exits 2 with a message saying what was expected; a server named by STUDIO_URL must answer", async () => {
    const cases: [string[], RegExp][] = [
      [[], /usage: studio <command>/],
      [["frob"], /unknown command "frob" \(commands: build, check/],
      [["render", ep, "--pass", "rough"], /--pass must be one of proxy, final; got "rough"/],
      // The route's own refusal (403 for a folder outside the roots) is bad usage too.
      [
        ["build", path.join(os.tmpdir(), "elsewhere")],
        /^studio build: ep: .* is outside the configured roots$/m,
      ],
    ];
    const [nowhere, ...runs] = await Promise.all([
      studio(["jobs"], { STUDIO_URL: "http://127.0.0.1:9" }),
      ...cases.map(([args]) => studio(args)),
    ]);
    runs.forEach((r, i) => {
      expect(r.exitCode, `${cases[i][0].join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(cases[i][1]);
      expect(r.stdout).toBe("");
    });
    expect(nowhere.exitCode).toBe(1);
    expect(nowhere.stderr).toContain("STUDIO_URL: no server answers at http://127.0.0.1:9");
  }, 60_000);
});

describe("studio: the main job in this process", () => {
  it("check: 0 for a good script, 1 with every error at its line for a bad one", async () => {
    const [good, bad] = await Promise.all([studio(["check", ep]), studio(["check", broken])]);
    expect(good.exitCode, good.stderr).toBe(0);
    expect(good.stdout).toContain("ok: 4 shots");
    expect(good.stderr).toContain("working in this process: no server is running");
    expect(bad.exitCode, bad.stderr).toBe(1);
    expect(bad.stdout).toMatch(/^script:10:\d+: error: `dur: banana` is not a number/m);
    expect(bad.stdout).toContain("the script does not build");
  }, 60_000);

  it("build writes both passes' shot lists; a script that does not build exits 1", async () => {
    // A relative folder is taken from the working folder, as a shell user types it.
    const r = await studio(["build", path.relative(dir, ep)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("final: 4 shots on animatic");
    expect(r.stdout).toContain("proxy: 4 shots on animatic");
    await stat(path.join(ep, "shotlist"));
    const bad = await studio(["build", broken, "--json"]);
    expect(bad.exitCode).toBe(1);
    expect(JSON.parse(bad.stdout).ok).toBe(false);
  });

  it("refs missing lists what the pass lacks and writes nothing", async () => {
    const r = await studio(["refs", "missing", ep, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    const refs = answer.queued.map((q: { ref: string }) => q.ref);
    expect(refs).toContain("subject:riley");
    expect(refs).toContain("location:kitchen");
    expect(answer.queued.every((q: { take: unknown }) => q.take === null)).toBe(true);
  }, 60_000);

  let rendered: string[] = [];
  it("render makes a take of every shot on the built-in engine and waits for them", async () => {
    const r = await studio(["render", ep, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.queued.map((q: { shot: string }) => q.shot)).toEqual(["sh010", "sh020", "sh030", "sh040"]);
    expect(answer.jobs.map((j: { status: string }) => j.status)).toEqual(Array(4).fill("succeeded"));
    rendered = answer.queued.map((q: { prompt_id: string }) => q.prompt_id);
    const listing = await studio(["jobs"]);
    expect(listing.exitCode, listing.stderr).toBe(0);
    rendered.forEach((id, i) => {
      const line = new RegExp(`^${id}\\s+builtin\\s+succeeded\\s+sh0${i + 1}0 t01 \\(proxy\\)$`, "m");
      expect(listing.stdout).toMatch(line);
    });
  }, 120_000);

  it("a render whose job fails exits 1 and says why", async () => {
    const r = await studio(["render", ep, "--shots", "sh010", "--redo", "--backend", "local"], {
      STUDIO_LOCAL_URL: "http://127.0.0.1:9",
    });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/sh010 take 2: failed: /);
    expect(r.stdout).toContain("0 of 1 takes made");
  }, 60_000);

  it("assemble prints the mp4's path, which ffprobe reads", async () => {
    const r = await studio(["assemble", ep]);
    expect(r.exitCode, r.stderr).toBe(0);
    const file = r.stdout.trim();
    expect(file).toBe(path.join(ep, "renders_proxy", "ep01_proxy.mp4"));
    const video = await videoOf("ffmpeg", file);
    expect(Number(video.duration)).toBeGreaterThan(5);
  }, 60_000);

  it("timeline --format otio prints or writes an OpenTimelineIO document", async () => {
    const out = path.join(dir, "cut.otio");
    const [printed, written] = await Promise.all([
      studio(["timeline", ep, "--format", "otio"]),
      studio(["timeline", ep, "--format", "otio", "--out", out, "--json"]),
    ]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout).OTIO_SCHEMA).toBe("Timeline.1");
    expect(written.exitCode, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toEqual({ output: out, format: "otio" });
    const doc = JSON.parse(await readFile(out, "utf8"));
    expect(doc.OTIO_SCHEMA).toBe("Timeline.1");
    expect(JSON.stringify(doc)).toContain("sh010");
  });
});

describe("studio: through a running server", () => {
  let server: ServerProcess | null = null;
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  });

  it("sends the render to the server's queue while it runs, and works here again once it stops", async () => {
    // A server that needs a token: the command line sends STUDIO_TOKEN when it is set.
    const token = "cli-test-token";
    server = await startServer({
      STUDIO_HOME: home,
      STUDIO_ROOTS: root,
      STUDIO_LOG: "warn",
      STUDIO_TOKEN: token,
    });
    const record = path.join(home, "server.json");
    const until = Date.now() + 20_000;
    while (!(await stat(record).catch(() => null))) {
      if (Date.now() > until) throw new Error("no server.json");
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(JSON.parse(await readFile(record, "utf8"))).toMatchObject({
      url: server.url,
      pid: server.child.pid,
    });
    const [r, tokenless] = await Promise.all([
      studio(["render", ep, "--shots", "sh020", "--redo"], { STUDIO_TOKEN: token }),
      studio(["jobs"]),
    ]);
    expect(tokenless.exitCode, tokenless.stderr).toBe(2);
    expect(tokenless.stderr).toContain("studio jobs: this server needs its token (STUDIO_TOKEN)");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`working through the server at ${server.url}`);
    const take = Number(/^sh020 take (\d+) \(animatic\): succeeded$/m.exec(r.stdout)?.[1]);
    const listing = await fetch(`${server.url}/studio/jobs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const seen = (await listing.json()) as {
      jobs: { id: string; status: string; info: { shot?: string; take?: number } }[];
    };
    const job = seen.jobs.find((j) => j.info.shot === "sh020" && j.info.take === take);
    expect(job?.status).toBe("succeeded");
    const id = job?.id ?? "";

    server.child.kill("SIGTERM");
    await server.exited;
    await expect(stat(record)).rejects.toThrow();
    // A record left by a server that is gone (its pid ended) is not trusted.
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    await writeFile(
      record,
      JSON.stringify({ url: server.url, pid: gone.pid, started: new Date().toISOString() }),
    );
    const after = await studio(["jobs"]);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(after.stderr).toContain("working in this process");
    expect(after.stdout).toMatch(new RegExp(`^${id}\\s+builtin\\s+succeeded`, "m"));
  }, 60_000);
});
