// A real Chromium (Debian's, driven by playwright-core; nothing downloaded) for the page's end-to-end tests, with
// the page's console errors collected so a test can fail on them, and screenshots written under test-results/.
import { access, mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SHOTS_DIR = path.join(root, "test-results");

/** Where Chromium is: CHROMIUM_PATH, else Debian's. */
export async function chromiumPath(): Promise<string> {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
    (p): p is string => Boolean(p),
  );
  for (const p of candidates) {
    if (
      await access(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  throw new Error("Chromium is not installed: apt-get install -y chromium (or set CHROMIUM_PATH)");
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    // No sandbox as root in CI; no background traffic: this machine's network is closed and tests stay on loopback.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
}

export interface OpenPage {
  page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  problems: string[];
  /** Write `test-results/<name>.png` and answer its path. */
  shot(name: string): Promise<string>;
}

export async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page: ${e.message}`));
  await page.goto(url);
  return {
    page,
    problems,
    async shot(name) {
      await mkdir(SHOTS_DIR, { recursive: true });
      const file = path.join(SHOTS_DIR, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
  };
}
