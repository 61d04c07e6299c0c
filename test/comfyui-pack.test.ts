// The ComfyUI pack (comfyui/) loaded by a stand-in ComfyUI server (Debian's python3 with aiohttp) that loads custom
// nodes as ComfyUI does, with the real service the pack starts: the page and API through ComfyUI's port, a render
// on the built-in engine, the service's guard judging the browser's Host and Origin, one ComfyUI socket carrying
// both servers' events, a restart after the service dies, STUDIO_URL, and the service stopped with ComfyUI.
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { EDITOR_CLIENT_PREFIX, newClientId } from "../web/src/socket.ts";
import { launchBrowser } from "./support/browser.ts";
import { until } from "./support/poll.ts";
import { outputMatch, type Watched, watch } from "./support/processes.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const STANDIN = path.join(root, "test", "support", "comfy-standin", "main.py");
const PYTHON = "/usr/bin/python3";
const PACK = "episode_studio";
const READY = /service ready at (http:\/\/\S+) \(pid (\d+)\)/g;

interface Standin extends Watched {
  url: string;
}

let dir: string;
let customNodes: string;
let frontEnd: string;
let shows: string;
let comfy: Standin;
const started: Standin[] = [];
const sockets: WebSocket[] = [];

const waitFor = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) =>
  until(what, probe, { ms, everyMs: 100, said: () => said() });

const said = (s: Standin | undefined = comfy) => (s ? `\n--- stand-in output ---\n${s.output()}\n---` : "");

/** Starts the stand-in ComfyUI on a free loopback port with the pack in its custom_nodes folder. */
async function startStandin(env: Record<string, string>, args: string[] = []): Promise<Standin> {
  const child = spawn(PYTHON, [STANDIN, "--custom-nodes", customNodes, "--port", "0", ...args], {
    cwd: dir,
    // No __pycache__ written into the repository's pack folder.
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const standin: Standin = { url: "", ...watch(child) };
  started.push(standin);
  const [, port] = await outputMatch(standin, /^port (\d+)$/m, {
    what: "the stand-in",
    before: "listening",
    ms: 20_000,
  });
  standin.url = `http://127.0.0.1:${port}`;
  return standin;
}

async function stopStandin(s: Standin): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill("SIGTERM");
  const ended = await Promise.race([
    s.exited.then(() => true),
    new Promise<false>((r) => setTimeout(r, 15_000, false)),
  ]);
  if (!ended) {
    s.child.kill("SIGKILL");
    await s.exited;
  }
}

/** Every "service ready" line the pack logged so far: the service's URL and pid. */
function readyLines(s: Standin): { url: string; pid: number }[] {
  return [...s.output().matchAll(READY)].map((m) => ({ url: m[1], pid: Number(m[2]) }));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function call(method: string, route: string, input: Any = {}, headers: Record<string, string> = {}) {
  let url = `${comfy.url}${route}`;
  const init: RequestInit = { method, headers: { ...headers }, redirect: "manual" };
  if (method === "GET") url += `?${new URLSearchParams(input)}`;
  else {
    init.body = JSON.stringify(input);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let body: Any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

async function ok(method: string, route: string, input: Any = {}): Promise<Any> {
  const answer = await call(method, route, input);
  expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}${said()}`).toBe(200);
  return answer.body;
}

/**
 * A socket on the stand-in's /ws, as ComfyUI's frontend opens it, keeping every text frame it receives and the
 * event number of each binary one; ready once the stand-in has said hello.
 */
async function openSocket(
  base: string,
  clientId: string,
): Promise<{ ws: WebSocket; frames: Any[]; binary: number[] }> {
  const frames: Any[] = [];
  const binary: number[] = [];
  const ws = new WebSocket(`${base.replace("http", "ws")}/ws?clientId=${clientId}`);
  sockets.push(ws);
  ws.on("message", (data, isBinary) => {
    if (isBinary) binary.push((data as Buffer).readUInt32BE(0));
    else frames.push(JSON.parse(data.toString()));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  // The status frame comes once the server has filed the socket under its id: frames for the id reach it from then on.
  await waitFor("the socket's status frame", async () => frames.some((f) => f.type === "status"), 10_000);
  return { ws, frames, binary };
}

/** The text events a socket received for one prompt, as `type node value` lines in the order they came. */
const eventsOf = (frames: Any[], promptId: string) =>
  frames
    .filter((f) => f.data?.prompt_id === promptId)
    .map((f) => [f.type, f.data.node ?? "", f.data.value ?? ""].join(" ").trim());

/** What the stand-in sends a prompt's client for a two-node graph, in order. */
const TWO_NODES = [
  "execution_start",
  "execution_cached",
  "executing 1",
  "progress 1 1",
  "progress 1 2",
  "executed 1",
  "executing 2",
  "progress 2 1",
  "progress 2 2",
  "executed 2",
  "executing",
  "execution_success",
];

/** A request sent exactly as written: the path unresolved and the Host header as given (fetch would change both). */
function rawRequest(
  base: string,
  method: string,
  rawPath: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: Any }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: rawPath, method, headers }, (res) => {
      let text = "";
      res.on("data", (c) => {
        text += c;
      });
      res.on("end", () => {
        let body: Any = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A frontend shell in place of ComfyUI's: the module extensions import (`app`, recording what they register; with
 * `?legacy`, no extensionManager, as on old frontends) and a page that imports every listed extension and runs its
 * setup, as ComfyUI's frontend does at start. window.open is recorded instead of opening tabs.
 */
const FRONTEND_APP = `export const app = {
  extensions: [],
  tabs: [],
  extensionManager: location.search.includes("legacy") ? undefined : { registerSidebarTab: (tab) => app.tabs.push(tab) },
  registerExtension(ext) { app.extensions.push(ext); },
};
window.app = app;
`;
const FRONTEND_PAGE = `<!doctype html>
<html><body><div class="comfy-menu"></div><div id="tab"></div>
<script type="module">
import { app } from "/scripts/app.js";
window.opened = [];
window.open = (url) => { window.opened.push(url); return null; };
for (const url of await (await fetch("/extensions")).json()) await import(url);
for (const ext of app.extensions) await ext.setup?.(app);
window.loaded = true;
</script></body></html>
`;

beforeAll(async () => {
  await promisify(execFile)(PYTHON, ["-c", "import aiohttp"]).catch(() => {
    throw new Error(`${PYTHON} cannot import aiohttp: apt-get install -y python3-aiohttp`);
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-comfy-pack-"));
  customNodes = path.join(dir, "custom_nodes");
  shows = path.join(dir, "shows");
  await mkdir(customNodes);
  await mkdir(path.join(shows, "gold_path"), { recursive: true });
  // Installed as the README says: the pack folder linked into custom_nodes (the service is found through the link).
  await symlink(path.join(root, "comfyui"), path.join(customNodes, PACK));
  frontEnd = path.join(dir, "front");
  await mkdir(path.join(frontEnd, "scripts"), { recursive: true });
  await writeFile(path.join(frontEnd, "scripts", "app.js"), FRONTEND_APP);
  await writeFile(path.join(frontEnd, "index.html"), FRONTEND_PAGE);
  // comfy.test: a name ComfyUI is opened by, that the service is told to serve (the stand-in never resolves it).
  const env = {
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_ALLOWED_HOSTS: "comfy.test",
  };
  comfy = await startStandin(env, ["--front-end-root", frontEnd]);
  await waitFor("the pack to start the service", async () => readyLines(comfy)[0], 60_000);
}, 90_000);

afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await Promise.all(started.map(stopStandin));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the pack inside a stand-in ComfyUI", () => {
  it("loads as a custom node pack: node mappings read, its frontend extension listed and served", async () => {
    expect(await ok("GET", "/standin/custom_nodes"), said()).toEqual({ [PACK]: true });
    expect(await ok("GET", "/object_info")).toEqual({});
    const extensions = await ok("GET", "/extensions");
    expect(extensions).toEqual([`/extensions/${PACK}/studio.js`]);
    const js = await fetch(`${comfy.url}${extensions[0]}`);
    expect(js.status).toBe(200);
    const text = await js.text();
    expect(text).toContain('from "../../scripts/app.js"');
    expect(text).toContain("registerExtension");
    expect(text).toContain("/studio/");
  });

  it("adds an Episode Studio sidebar tab and menu command opening /studio/, or a menu button on old frontends", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${comfy.url}/`);
      await page.waitForFunction("window.loaded === true");
      // Runs in the page (a string: this file is typed for Node, not the DOM).
      const registered = await page.evaluate(`(() => {
        const [ext] = app.extensions;
        const [tab] = app.tabs;
        tab.render(document.getElementById("tab"));
        document.querySelector("#tab button").click();
        ext.commands[0].function();
        return {
          count: app.extensions.length,
          command: { id: ext.commands[0].id, label: ext.commands[0].label },
          menu: ext.menuCommands,
          tab: { id: tab.id, title: tab.title, type: tab.type },
          opened: window.opened,
        };
      })()`);
      expect(registered).toEqual({
        count: 1,
        command: { id: "EpisodeStudio.Open", label: "Episode Studio" },
        menu: [{ path: ["Extensions"], commands: ["EpisodeStudio.Open"] }],
        tab: { id: "episode-studio", title: "Episode Studio", type: "custom" },
        opened: ["/studio/", "/studio/"],
      });
      // The tab shows the editor itself: the page lets ComfyUI's origin (its own) frame it.
      expect(await page.evaluate(`document.querySelector("#tab iframe").getAttribute("src")`)).toBe(
        "/studio/",
      );
      await page.waitForFunction(
        `document.querySelector("#tab iframe").contentDocument?.querySelector("#app") != null`,
        { timeout: 45_000 },
      );

      await page.goto(`${comfy.url}/?legacy`);
      await page.waitForFunction("window.loaded === true");
      await page.click(".comfy-menu #episode-studio-button");
      expect(await page.evaluate("[app.tabs.length, window.opened]")).toEqual([0, ["/studio/"]]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("serves the editor page and the API on ComfyUI's port, under /studio/ and /api/studio/", async () => {
    const bare = await call("GET", "/studio");
    expect(bare.status).toBe(302);
    expect(bare.headers.get("location")).toBe("/studio/");
    const page = await call("GET", "/studio/");
    expect(page.status, said()).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.body).toMatch(/<!doctype html>/i);
    // The service knows it is mounted and uses this ComfyUI as its local backend.
    for (const prefix of ["/studio", "/api/studio"]) {
      const config = await ok("GET", `${prefix}/config`);
      expect(config.mounted, JSON.stringify(config)).toEqual({ comfy: comfy.url });
      expect(config.roots).toEqual([shows]);
    }
    expect(await ok("GET", "/api/studio/jobs")).toHaveProperty("lanes");
  });

  it("renders on the built-in engine through the proxy; one ComfyUI socket carries both servers' events", async () => {
    const { frames } = await openSocket(comfy.url, "page1");
    await waitFor("the stand-in's status frame", async () => frames.find((f) => f.type === "status"));
    expect(frames[0]).toMatchObject({ type: "status", data: { sid: "page1", status: { exec_info: {} } } });

    const parent = path.join(shows, "gold_path");
    const created = await ok("POST", "/studio/episode/new", { parent, name: "ep01" });
    const ep = created.ep;
    expect(ep).toBe(path.join(parent, "ep01"));
    expect((await ok("POST", "/api/studio/build", { ep })).ok).toBe(true);
    const render = await ok("POST", "/studio/render", { ep, pass: "proxy", shots: ["sh010"] });
    expect(render.errors, JSON.stringify(render)).toEqual([]);
    const id = render.queued[0].prompt_id;
    const job = await waitFor(
      "the render job to end",
      async () => {
        const list = await ok("GET", "/studio/jobs");
        const j = list.jobs.find((x: Any) => x.id === id);
        return j && j.status !== "queued" && j.status !== "running" ? j : undefined;
      },
      60_000,
    );
    expect(job, JSON.stringify(job) + said()).toMatchObject({
      kind: "render",
      lane: "builtin",
      status: "succeeded",
    });

    // The take through the proxy: whole, and a range answered 206 with its Content-Range.
    const rel = "renders_proxy/sh010/sh010_t01.mp4";
    const size = (await stat(path.join(ep, ...rel.split("/")))).size;
    const fileUrl = `${comfy.url}/studio/file?${new URLSearchParams({ ep, path: rel })}`;
    const whole = await fetch(fileUrl);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(await readFile(path.join(ep, rel)))).toBe(true);
    const part = await fetch(fileUrl, { headers: { Range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${size}`);
    const bytes = Buffer.from(await part.arrayBuffer());
    expect(bytes.equals((await readFile(path.join(ep, rel))).subarray(100, 200))).toBe(true);

    // The studio's events arrived on ComfyUI's socket...
    await waitFor("studio.job succeeded", async () =>
      frames.find((f) => f.type === "studio.job" && f.data.id === id && f.data.status === "succeeded"),
    );
    expect(frames.some((f) => f.type === "studio.take" && f.data.ep === ep && f.data.shot === "sh010")).toBe(
      true,
    );
    expect(frames.some((f) => f.type === "studio.episode" && f.data.ep === ep)).toBe(true);
    // ...and so do ComfyUI's own, for a prompt queued with this socket's client id.
    const prompt = await ok("POST", "/prompt", {
      prompt: { "1": { class_type: "X", inputs: {} } },
      client_id: "page1",
    });
    const mine = (type: string) =>
      frames.find((f) => f.type === type && f.data.prompt_id === prompt.prompt_id);
    await waitFor("execution_success", async () => mine("execution_success"));
    expect(mine("execution_start")).toBeDefined();
    expect(mine("progress")).toMatchObject({ data: { value: 1, max: 2, node: "1" } });
  }, 90_000);

  it("copies ComfyUI's events for the studio's prompts to the editor's sockets once, not to graph tabs, never previews", async () => {
    // The client id the pack drew reached the service it started, whose ComfyUI engine queues under it.
    const { pid } = readyLines(comfy)[0];
    const environ = await readFile(`/proc/${pid}/environ`, "utf8");
    const id = /(?:^|\0)STUDIO_COMFY_CLIENT_ID=([^\0]*)/.exec(environ)?.[1];
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const graph = { "1": { class_type: "X", inputs: {} }, "2": { class_type: "X", inputs: {} } };
    const queue = async (client_id?: string) =>
      (await ok("POST", "/prompt", { prompt: graph, client_id })).prompt_id;
    const done = (frames: Any[], promptId: string) => async () =>
      frames.some((f) => f.type === "execution_success" && f.data.prompt_id === promptId);
    // The editor page's socket under the id the page draws, and a graph-editor tab as ComfyUI's frontend opens one.
    const editorId = newClientId();
    const editor = await openSocket(comfy.url, editorId);
    const tabId = "0123456789abcdef0123456789abcdef";
    const tab = await openSocket(comfy.url, tabId);

    // The studio's socket is not connected (no ComfyUI render has run): the editor still hears its prompts.
    const first = await queue(id);
    await waitFor("the first prompt's end on the editor's socket", done(editor.frames, first), 10_000);
    expect(eventsOf(editor.frames, first)).toEqual(TWO_NODES);

    // With the studio's socket connected: it hears each event once, and so does the editor's socket.
    const studio = await openSocket(comfy.url, id as string);
    const second = await queue(id);
    for (const s of [studio, editor])
      await waitFor("the second prompt's end", done(s.frames, second), 10_000);
    expect(eventsOf(studio.frames, second)).toEqual(TWO_NODES);
    expect(eventsOf(editor.frames, second)).toEqual(TWO_NODES);
    // Preview images (binary event 1, one per step) went to the studio's socket only.
    expect(studio.binary).toEqual([1, 1, 1, 1]);
    expect(editor.binary).toEqual([]);

    // The graph tab's own prompt stays its own (its previews too); a prompt with no client is ComfyUI's broadcast
    // progress and previews, not doubled.
    const tabs = await queue(tabId);
    await waitFor("the tab's own prompt's end", done(tab.frames, tabs), 10_000);
    const anonymous = await queue();
    await waitFor(
      "the anonymous prompt's previews",
      async () => studio.binary.length === 8 && tab.binary.length === 8 && editor.binary.length === 4,
      10_000,
    );
    expect(eventsOf(tab.frames, tabs)).toEqual(TWO_NODES);
    expect(eventsOf(editor.frames, tabs)).toEqual([]);
    expect(eventsOf(studio.frames, tabs)).toEqual([]);
    const progressOnly = TWO_NODES.filter((e) => e.startsWith("progress"));
    for (const s of [studio, editor, tab]) expect(eventsOf(s.frames, anonymous)).toEqual(progressOnly);
    // The graph tab heard none of the studio's prompts, though it was open all along.
    expect(eventsOf(tab.frames, first)).toEqual([]);
    expect(eventsOf(tab.frames, second)).toEqual([]);
    studio.ws.close();
  });

  it("forwards the browser's Host and Origin, so the service's guard refuses foreign pages and names", async () => {
    const ep = path.join(shows, "gold_path", "ep01");
    // A foreign origin on a write: refused (ComfyUI's own check already stops it on a loopback Host).
    const foreign = await call("POST", "/studio/build", { ep }, { Origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    // A cross-site write with no Origin passes ComfyUI's check; the service refuses it.
    const crossSite = await call("POST", "/studio/build", { ep }, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error).toMatch(/cross-site page are refused/);
    // A name that is not this machine's (DNS rebinding): the Host reached the service unchanged.
    const rebound = await rawRequest(comfy.url, "GET", "/studio/config", { Host: "10.1.2.3" });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error).toMatch(/host "10\.1\.2\.3" is not served here/);
    // Opened by a name ComfyUI does not check: the service judges the Origin against that Host, which it received.
    const named = `comfy.test:${new URL(comfy.url).port}`;
    const body = JSON.stringify({ ep });
    const json = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    const evil = await rawRequest(
      comfy.url,
      "POST",
      "/studio/build",
      { ...json, Host: named, Origin: "http://evil.example" },
      body,
    );
    expect(evil.status).toBe(403);
    expect(evil.body.error).toMatch(/requests from http:\/\/evil\.example are refused/);
    const fromNamed = await rawRequest(
      comfy.url,
      "POST",
      "/studio/build",
      { ...json, Host: named, Origin: `http://${named}` },
      body,
    );
    expect(fromNamed.status, JSON.stringify(fromNamed.body)).toBe(200);
    // The page's own origin may write.
    const own = await call("POST", "/studio/build", { ep }, { Origin: comfy.url });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // Dot segments are not passed on.
    const dots = await rawRequest(comfy.url, "GET", "/studio/%2e%2e/ws");
    expect(dots.status).toBe(400);
    expect(dots.body.error).toMatch(/`\.` or `\.\.`/);
  });

  it("refuses an upload declared over the service's 64 MB limit with the service's 413, before sending it", async () => {
    const ep = path.join(shows, "gold_path", "ep01");
    const form = new FormData();
    form.set("ep", ep);
    form.set("file", new Blob([Buffer.alloc(70_000_000)]), "big.wav");
    const res = await fetch(`${comfy.url}/studio/audio/import`, { method: "POST", body: form });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "upload: larger than 64 MB" });
  });

  it("restarts the service when it dies, answering 502/503 JSON meanwhile, and bridges its events again", async () => {
    const { frames } = await openSocket(comfy.url, "page2");
    const [first] = readyLines(comfy);
    process.kill(first.pid, "SIGKILL");
    const answers: { status: number; body: Any }[] = [];
    const next = await waitFor(
      "a new service",
      async () => {
        const a = await call("GET", "/studio/config");
        answers.push(a);
        const lines = readyLines(comfy);
        return a.status === 200 && lines.length > 1 ? lines[lines.length - 1] : undefined;
      },
      60_000,
    );
    expect(next.pid).not.toBe(first.pid);
    expect(alive(first.pid)).toBe(false);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([502, 503]).toContain(a.status);
      expect(typeof a.body.error).toBe("string");
    }
    expect(comfy.output()).toMatch(/the service exited .*; restarting it/);
    // The event bridge found the new service: its events reach ComfyUI's socket again.
    const ep = path.join(shows, "gold_path", "ep01");
    await waitFor(
      "studio.episode after the restart",
      async () => {
        await ok("POST", "/studio/build", { ep });
        return frames.find((f) => f.type === "studio.episode" && f.data.ep === ep);
      },
      20_000,
    );
  }, 90_000);

  it("stops the service when ComfyUI exits", async () => {
    const lines = readyLines(comfy);
    const { pid } = lines[lines.length - 1];
    expect(alive(pid)).toBe(true);
    for (const ws of sockets) ws.close();
    await stopStandin(comfy);
    expect(await comfy.exited, said()).toBe(0);
    await waitFor("the service to exit", async () => !alive(pid), 15_000);
  }, 30_000);
});

describe("STUDIO_URL: a service already running", () => {
  let service: Server;
  const seen: { host?: string; origin?: string; bytes?: number }[] = [];

  // A service stand-in for what the real one lacks on /studio/: a socket path, a chunked answer, an upload count.
  beforeAll(async () => {
    let wss: WebSocketServer | undefined;
    service = createServer((req, res) => {
      if (req.url === "/studio/hello") {
        seen.push({ host: req.headers.host, origin: req.headers.origin });
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ host: req.headers.host, origin: req.headers.origin ?? null }));
      } else if (req.url === "/studio/emit") {
        for (const ws of wss?.clients ?? [])
          ws.send(JSON.stringify({ type: "studio.episode", data: { ep: "/elsewhere" } }));
        res.end("{}");
      } else if (req.url === "/studio/upload") {
        let bytes = 0;
        req.on("data", (c: Buffer) => {
          bytes += c.length;
        });
        req.on("end", () => res.end(JSON.stringify({ bytes })));
      } else if (req.url === "/studio/chunks") {
        let n = 0;
        const tick = () => {
          if (n++ === 20) return res.end();
          res.write(Buffer.alloc(64 * 1024, n));
          setImmediate(tick);
        };
        tick();
      } else {
        res.statusCode = 404;
        res.end("{}");
      }
    });
    wss = new WebSocketServer({ server: service });
    wss.on("connection", (ws, req) => {
      if (!req.url?.startsWith("/ws")) ws.on("message", (m, binary) => ws.send(binary ? m : `echo:${m}`));
    });
    await new Promise<void>((r) => service.listen(0, "127.0.0.1", r));
    const port = (service.address() as AddressInfo).port;
    comfy = await startStandin({ STUDIO_URL: `http://127.0.0.1:${port}/studio/` });
    await waitFor("the pack to take STUDIO_URL", async () => comfy.output().includes("using the service at"));
  }, 30_000);

  afterAll(async () => {
    await stopStandin(comfy);
    await new Promise((r) => service.close(r));
  });

  it("uses it without starting one, passes Host and Origin, streams uploads and chunked answers", async () => {
    expect(comfy.output()).not.toMatch(/\[studio\]|service ready/);
    // That service queues under a client id of its own choosing: no copying of anyone's ComfyUI events is set up.
    expect(comfy.output()).not.toMatch(/events for the studio's prompts/);
    const own = new URL(comfy.url).host;
    const hello = await call("GET", "/studio/hello", {}, { Origin: comfy.url });
    expect(hello.body).toEqual({ host: own, origin: comfy.url });
    const upload = await fetch(`${comfy.url}/api/studio/upload`, {
      method: "POST",
      body: Buffer.alloc(3_000_001),
    });
    expect(await upload.json()).toEqual({ bytes: 3_000_001 });
    const chunks = await fetch(`${comfy.url}/studio/chunks`);
    expect(chunks.headers.get("transfer-encoding")).toBe("chunked");
    expect((await chunks.arrayBuffer()).byteLength).toBe(20 * 64 * 1024);
    expect(seen).toHaveLength(1);
  });

  it("bridges a websocket on a proxied path both ways, and the service's /ws events onto ComfyUI's socket", async () => {
    const { frames } = await openSocket(comfy.url, "page3");
    await waitFor("the service's event on ComfyUI's socket", async () => {
      await ok("GET", "/studio/emit");
      return frames.find((f) => f.type === "studio.episode" && f.data.ep === "/elsewhere");
    });
    const ws = new WebSocket(`${comfy.url.replace("http", "ws")}/studio/echo`);
    sockets.push(ws);
    const replies: string[] = [];
    ws.on("message", (m) => replies.push(m.toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.send("hello");
    await waitFor("the echo", async () => replies.includes("echo:hello"));
  });
});

describe("a pack that cannot reach a service", () => {
  it("answers 503 JSON saying why: a STUDIO_URL that is not http(s), a checkout without the service", async () => {
    comfy = await startStandin({ STUDIO_URL: "ftp://127.0.0.1:1" });
    const bad = await call("GET", "/studio/");
    expect(bad.status, said()).toBe(503);
    expect(bad.body.error).toMatch(/STUDIO_URL must look like http:\/\/host:port/);
    await stopStandin(comfy);

    const empty = path.join(dir, "not-a-checkout");
    await mkdir(empty);
    comfy = await startStandin({ STUDIO_DIR: empty });
    const missing = await waitFor("the pack to give up", async () => {
      const a = await call("GET", "/api/studio/config");
      return a.status === 503 && /cannot start/.test(a.body.error) ? a : undefined;
    });
    expect(missing.body.error).toContain(path.join(empty, "runtime", "serve.js"));
    expect(comfy.output()).not.toMatch(/service ready/);
    await stopStandin(comfy);
  }, 30_000);
});

describe("the pack's rules for addresses and paths", () => {
  /** Calls the pack's helpers in Python: each case is [module, function, args], answered in order. */
  async function pack(cases: [string, string, unknown[]][]): Promise<unknown[]> {
    const script = `
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import studio_proxy, studio_service
out = []
for module, name, args in json.loads(sys.stdin.read()):
    try:
        out.append(getattr({"proxy": studio_proxy, "service": studio_service}[module], name)(*args))
    except ValueError as e:
        out.append({"error": str(e)})
print(json.dumps(out))
`;
    const child = execFile(PYTHON, ["-c", script, path.join(root, "comfyui")]);
    child.stdin?.end(JSON.stringify(cases));
    let out = "";
    child.stdout?.on("data", (c) => {
      out += c;
    });
    let err = "";
    child.stderr?.on("data", (c) => {
      err += c;
    });
    const code = await new Promise((r) => child.once("exit", r));
    expect(code, err).toBe(0);
    return JSON.parse(out);
  }

  it("passes only clean paths, and keeps the service's same-machine routes to browsers on this machine", async () => {
    expect(
      await pack([
        ["proxy", "service_path", ["/api/studio/file?ep=/a&path=b%2Fc.mp4"]],
        ["proxy", "service_path", ["/studio/"]],
        ["proxy", "service_path", ["/studio/%2E%2e/ws"]],
        ["proxy", "service_path", ["/api/studio/refs/./x"]],
        ["proxy", "same_machine_only", ["/studio/server/stop"]],
        ["proxy", "same_machine_only", ["/studio//server%2Fstop/?restart=1"]],
        ["proxy", "same_machine_only", ["/studio/server/info"]],
        ["proxy", "is_loopback_address", ["127.0.0.1"]],
        ["proxy", "is_loopback_address", ["::ffff:127.0.0.1"]],
        ["proxy", "is_loopback_address", ["192.168.1.20"]],
        ["proxy", "is_loopback_address", [null]],
      ]),
    ).toEqual([
      "/studio/file?ep=/a&path=b%2Fc.mp4",
      "/studio/",
      null,
      null,
      true,
      true,
      false,
      true,
      true,
      false,
      false,
    ]);
  });

  it("wraps ComfyUI's send_sync once: a text event for the studio's id goes to each editor socket once, nothing else is copied", async () => {
    // A server with ComfyUI's send_sync signature recording what it is asked to send, wrapped twice; "tab-a" is a
    // graph-editor tab, the studio-page- ids are editor pages.
    const script = `
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import studio_prompt_events as events
class Server:
    def __init__(self):
        self.sockets = {"studio": 1, "tab-a": 2, "studio-page-b": 3, "xstudio-page-c": 4, "studio-page-d": 5}
        self.sent = []
    def send_sync(self, event, data, sid=None):
        self.sent.append([event, sid])
server = Server()
events.share_prompt_events(server, "studio")
events.share_prompt_events(server, "studio")
server.send_sync("progress", {"value": 1}, "studio")
server.send_sync(1, b"preview", "studio")
server.send_sync("progress_text", b"bytes", "studio")
server.send_sync("status", {}, None)
server.send_sync("progress", {}, "tab-a")
del server.sockets["studio"]
del server.sockets["studio-page-d"]
server.send_sync("executing", {}, "studio")
events.share_prompt_events(server, "tab-a")
server.send_sync("executed", {}, "studio")
server.send_sync("executed", {}, "tab-a")
print(json.dumps([events.EDITOR_CLIENT_PREFIX, server.sent]))
`;
    const { stdout } = await promisify(execFile)(PYTHON, ["-c", script, path.join(root, "comfyui")]);
    const [prefix, sent] = JSON.parse(stdout);
    // One text on both sides: the page's ids are the ones the pack copies to.
    expect(prefix).toBe(EDITOR_CLIENT_PREFIX);
    expect(sent).toEqual([
      ["progress", "studio"],
      ["progress", "studio-page-b"],
      ["progress", "studio-page-d"],
      [1, "studio"],
      ["progress_text", "studio"],
      ["status", null],
      ["progress", "tab-a"],
      // The studio's socket is gone: its events still reach the editor's.
      ["executing", "studio"],
      ["executing", "studio-page-b"],
      // A second call changed the id, and wrapped nothing again.
      ["executed", "studio"],
      ["executed", "tab-a"],
      ["executed", "studio-page-b"],
    ]);
  });

  it("reaches ComfyUI on loopback when it listens on every address, and takes STUDIO_URL with or without /studio/", async () => {
    expect(
      await pack([
        ["service", "comfy_base_url", ["0.0.0.0", 8188]],
        ["service", "comfy_base_url", ["::", 8188]],
        ["service", "comfy_base_url", ["0.0.0.0,::", 8188, true]],
        ["service", "comfy_base_url", ["192.168.1.20", 8000]],
        ["service", "service_url_from_env", ["http://127.0.0.1:8190/studio/"]],
        ["service", "service_url_from_env", [" https://studio.example:443 "]],
        ["service", "service_url_from_env", ["127.0.0.1:8190"]],
        ["service", "service_url_from_env", ["http://host/other/"]],
      ]),
    ).toEqual([
      "http://127.0.0.1:8188",
      "http://[::1]:8188",
      "https://127.0.0.1:8188",
      "http://192.168.1.20:8000",
      "http://127.0.0.1:8190",
      "https://studio.example:443",
      { error: "STUDIO_URL must look like http://host:port (got '127.0.0.1:8190')" },
      { error: "STUDIO_URL must look like http://host:port (got 'http://host/other/')" },
    ]);
  });
});
