// Editor page benchmark: the page's weight over the wire (all of it, and what a first visit to the Shots view loads),
// and its first render of the 300-shot synthetic episode (from navigation to the first shot rows on screen) in
// Debian's Chromium on a real server process, against a bare page served by a bare Node HTTP server in the same run,
// with the server's share: when the episode's answer had arrived, as the page's resource timing tells it. Figures and
// ratios, never pass/fail.

import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { launchBrowser } from "../test/support/browser.ts";
import { syntheticEpisode } from "./episode-status.ts";
import { startListening } from "./process.ts";
import { line, type Timing } from "./stats.ts";

const RUNS = 7;
const GOAL_MS = 1000;

function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], runs: s.length };
}

export async function run(): Promise<void> {
  const { bundleWeb } = await import("../scripts/build-web.js");
  const built = await bundleWeb();
  const { dir, root, ep } = await syntheticEpisode("page");
  const server = await startListening(["runtime/serve.js", "--port", "0"], {
    STUDIO_HOME: `${dir}/home`,
    STUDIO_ROOTS: root,
    STUDIO_LOG: "warn",
    STUDIO_HOST: "127.0.0.1",
  });
  // The baseline: a page with one heading, from a bare Node server.
  const bare = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>bare</title><h1 id=ready>ready</h1>");
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const browser = await launchBrowser();
  try {
    const episodeAt: number[] = [];
    const open = async (url: string, ready: string) => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const t0 = performance.now();
      await page.goto(url);
      await page.waitForSelector(ready, { state: "visible", timeout: 30_000 });
      const ms = performance.now() - t0;
      // When the episode's answer was in, from the navigation's start; none on the bare page.
      const at = await page.evaluate(() => {
        for (const r of performance.getEntriesByType("resource")) {
          if (new URL(r.name).pathname === "/studio/episode" && "responseEnd" in r)
            return Number(r.responseEnd);
        }
        return null;
      });
      if (at !== null) episodeAt.push(at);
      await page.close();
      return ms;
    };
    const editor = `${server.url}/studio/?ep=${encodeURIComponent(ep)}`;
    // The first shot's row on screen: the list has read the 300-shot episode and drawn its window.
    const firstRow = "text=sh0010";
    const first = await open(editor, firstRow);
    episodeAt.length = 0;
    const bareSamples: number[] = [];
    const pageSamples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bareSamples.push(await open(bareUrl, "#ready"));
      pageSamples.push(await open(editor, firstRow));
    }
    const base = summarize(bareSamples);
    const warm = summarize(pageSamples);
    console.log(
      `editor page: ${(built.gzipped / 1024).toFixed(1)} KB gzipped in all (goal under 250 KB), ${built.assets.length} assets; ${(built.initial / 1024).toFixed(1)} KB before a view other than Shots is opened`,
    );
    console.log(`  first render, 300 shots x 10 takes (first visit, server cold): ${first.toFixed(0)} ms`);
    console.log(line("  first render, 300 shots x 10 takes", warm, GOAL_MS));
    console.log(line("  the episode's answer in, from navigation", summarize(episodeAt)));
    console.log(line("  bare page from a bare Node server", base));
    console.log(`  ratio: ${(warm.median / base.median).toFixed(1)}x the bare page`);
  } finally {
    await browser.close();
    bare.close();
    server.child.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  }
}
