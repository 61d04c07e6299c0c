// The editor page mounted in ComfyUI, in a real Chromium: a small ComfyUI stand-in (node, loopback) passes /studio/
// to a real `node runtime/serve.js` started with STUDIO_MOUNTED_COMFY, Host and Origin unchanged, and serves its own
// /ws that re-sends the service's events beside ComfyUI-style frames (binary previews, status, progress, errors).
// The page says where it is mounted, lists the workers, survives the binary frame and shows ComfyUI's progress and
// failure on the job whose prompt they name. Screenshots of the top bar and the Queue view go to test-results/.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { createJobStore, type StudioJobStore } from "../lib/jobs/store.ts";
import type { JobKind } from "../lib/jobs/types.ts";
import { launchBrowser, type OpenPage, openPage, SHOTS_DIR } from "./support/browser.ts";
import { poller, serverApi } from "./support/e2e.ts";
import type { PromptHoldPayload } from "./support/prompt-hold-handler.ts";
import { type ServerProcess, startServer } from "./support/server.ts";

const until = poller({ ms: 60_000 });
const HOLD_HANDLER = path.join(import.meta.dirname, "support", "prompt-hold-handler.ts");
const PROMPT = "5b0e2f6c-prompt-e2e";
const TITLE = "s01 take 1 on ComfyUI";

interface Standin {
  url: string;
  /** The /ws paths pages opened, query included. */
  opened: string[];
  /** Send one frame to every page socket. */
  send(frame: string | Buffer): void;
  /** Pass /studio/ to the service at `service` and re-send its /ws events to the pages. */
  connect(service: string): Promise<void>;
  close(): Promise<void>;
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A ComfyUI stand-in: /system_stats, /studio/* and /api/studio/* passed to the service, and its own /ws. */
async function startStandin(): Promise<Standin> {
  const pages = new Set<WebSocket>();
  const opened: string[] = [];
  let service: URL | null = null;
  let bridge: WebSocket | null = null;
  const server: Server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (/^\/(api\/)?system_stats$/.test(url)) return json(res, { system: { comfyui_version: "stand-in" } });
    const m = /^\/(?:api\/)?studio(\/.*)?$/s.exec(url);
    if (!m || !service) {
      res.writeHead(404);
      res.end();
      return;
    }
    // The browser's Host and Origin go through unchanged: the service's guard judges them.
    const up = request(
      {
        host: service.hostname,
        port: service.port,
        method: req.method,
        path: `/studio${m[1] ?? ""}`,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(up);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (!req.url?.startsWith("/ws")) return socket.destroy();
    opened.push(req.url);
    wss.handleUpgrade(req, socket, head, (ws) => {
      pages.add(ws);
      ws.on("close", () => pages.delete(ws));
      // ComfyUI greets every socket with the queue's state and the socket's id.
      ws.send(
        JSON.stringify({
          type: "status",
          data: { status: { exec_info: { queue_remaining: 0 } }, sid: "s1" },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = (frame: string | Buffer) => {
    for (const ws of pages) ws.send(frame, { binary: typeof frame !== "string" });
  };
  return {
    url,
    opened,
    send,
    async connect(to) {
      service = new URL(to);
      // The service's own /ws takes the clientId ComfyUI's clients send, and ignores it.
      const ws = new WebSocket(`${to.replace(/^http/, "ws")}/ws?clientId=studio-bridge`);
      ws.on("message", (data, isBinary) => send(isBinary ? (data as Buffer) : String(data)));
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      bridge = ws;
    },
    async close() {
      bridge?.close();
      for (const ws of pages) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let dir: string;
let comfy: Standin;
let server: ServerProcess;
let store: StudioJobStore;
let browser: Browser;
let view: OpenPage;
let page: Page;
const api = serverApi(() => comfy.url);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-mounted-"));
  const shows = path.join(dir, "shows");
  await mkdir(shows, { recursive: true });
  const dbUrl = pathToFileURL(path.join(dir, "jobs.db")).href;
  comfy = await startStandin();
  server = await startServer({
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
    STUDIO_DB_URL: dbUrl,
    STUDIO_MOUNTED_COMFY: comfy.url,
    STUDIO_WORKER_EXTRA_HANDLERS: HOLD_HANDLER,
  });
  await comfy.connect(server.url);
  store = await createJobStore(dbUrl);
  browser = await launchBrowser();
  view = await openPage(browser, `${comfy.url}/studio/?view=queue`);
  page = view.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await store?.close();
  server?.child.kill("SIGTERM");
  await server?.exited;
  await comfy?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the page mounted in ComfyUI", () => {
  it("comes through ComfyUI's port and says, quietly, which ComfyUI it runs in", async () => {
    const where = comfy.url.replace("http://", "");
    const mounted = page.getByRole("link", { name: `in ComfyUI at ${where}` });
    await until("the mounted indicator", () => mounted.isVisible());
    expect(await mounted.getAttribute("href")).toBe(comfy.url);
    expect(await api<{ mounted: unknown; engine: string }>("GET", "config")).toMatchObject({
      mounted: { comfy: comfy.url },
      engine: comfy.url,
    });
    await until("the socket live", async () =>
      (await page.getByRole("status").allTextContents()).includes("live"),
    );
    // The page opened ComfyUI's socket with a client id, as ComfyUI's own page does, marked as the editor's.
    expect(comfy.opened.some((p) => /^\/ws\?clientId=studio-page-[0-9a-f]{32}$/.test(p))).toBe(true);
    await page.locator("header.topbar").screenshot({ path: path.join(SHOTS_DIR, "mounted-topbar.png") });
  }, 60_000);

  it("shows in Settings that a blank local address means this ComfyUI", async () => {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const engine = page.getByRole("region", { name: "Engine and folders" });
    await until("the mounted address in Settings", async () =>
      (await engine.textContent())?.includes(`Runs inside ComfyUI${comfy.url}`),
    );
    const local = page.getByLabel("Local ComfyUI");
    await until("the local address field", () => local.isVisible());
    expect(await local.getAttribute("placeholder")).toBe(comfy.url);
    expect(await local.inputValue()).toBe("");
    await view.shot("mounted-settings");
    await page.getByRole("button", { name: "Queue", exact: true }).click();
  }, 60_000);

  it("lists the worker: its machine, the lanes it runs", async () => {
    const workers = page.getByRole("list", { name: "Workers" });
    await until("the worker listed", async () =>
      (await workers.textContent())?.includes(`${os.hostname()} · pid ${server.child.pid}`),
    );
    expect(await workers.textContent()).toContain("builtin");
  }, 60_000);

  it("shows ComfyUI's progress and failure on the job whose prompt they name, past binary and unknown frames", async () => {
    const job = await store.add({
      kind: "prompt-hold" as JobKind,
      lane: "builtin",
      title: TITLE,
      info: {},
      payload: { prompt: PROMPT } satisfies PromptHoldPayload,
    });
    const running = page.getByRole("list", { name: "Running on builtin" });
    await until("the job running on the page", async () => (await running.textContent())?.includes(TITLE));
    await until("its prompt id known", async () => (await store.get(job.id))?.backend_prompt_id === PROMPT);
    // A preview image (4-byte event type, 4-byte format, the picture), a frame of another extension, a broken one.
    comfy.send(Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 2]), Buffer.alloc(256, 0x7f)]));
    comfy.send(JSON.stringify({ type: "crystools.monitor", data: { cpu_utilization: 3 } }));
    comfy.send("not json");
    comfy.send(
      JSON.stringify({ type: "progress", data: { value: 3, max: 8, prompt_id: "another", node: "3" } }),
    );
    comfy.send(
      JSON.stringify({ type: "executing", data: { node: "3", display_node: "3", prompt_id: PROMPT } }),
    );
    comfy.send(
      JSON.stringify({ type: "progress", data: { value: 3, max: 8, prompt_id: PROMPT, node: "3" } }),
    );
    await until("ComfyUI's step on the job", async () =>
      (await running.textContent())?.includes("ComfyUI node 3: step 3 of 8"),
    );
    await view.shot("mounted-queue-progress");
    comfy.send(
      JSON.stringify({
        type: "execution_error",
        data: {
          prompt_id: PROMPT,
          node_id: "3",
          node_type: "KSampler",
          exception_message: "CUDA out of memory",
          exception_type: "torch.OutOfMemoryError",
          traceback: [],
          executed: [],
          current_inputs: {},
          current_outputs: {},
          timestamp: Date.now(),
        },
      }),
    );
    await until("ComfyUI's failure on the job", async () =>
      (await running.textContent())?.includes(`${TITLE} failed in ComfyUI: KSampler: CUDA out of memory`),
    );
    expect(await page.getByRole("status").allTextContents()).toContain("live");
    await view.shot("mounted-queue-failure");
    await running.getByRole("button", { name: `Cancel ${TITLE}` }).click();
    await until("the job canceled", async () => (await store.get(job.id))?.status === "canceled");
    expect(view.problems).toEqual([]);
  }, 90_000);
});
