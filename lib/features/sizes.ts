// GET /studio/features/sizes: the size of every recorded download, asked of its server once per process (HEAD,
// a few at a time) and kept, so the page can show what an install will cost before it starts.
import type { Services } from "../context.ts";
import { cacheSlot } from "../store/caches.ts";
import { buildCatalog } from "./catalog.ts";
import { downloadAddress, remoteSize } from "./download.ts";
import { hfToken } from "./token.ts";

const SIZES = cacheSlot("features.sizes", () => new Map<string, Promise<number | null>>());
const AT_ONCE = 6;
const ASK_MS = 15_000;

/** Recorded download addresses of the catalog, each once. */
export function recordedUrls(services: Pick<Services, "targets">): string[] {
  const urls = new Set<string>();
  for (const f of buildCatalog(services.targets))
    for (const i of f.items) if (i.kind === "model" && i.url) urls.add(i.url);
  return [...urls].sort();
}

export async function downloadSizes(
  services: Pick<Services, "targets" | "caches" | "env" | "home">,
): Promise<{ sizes: Record<string, number | null> }> {
  const kept = services.caches.of(SIZES);
  const urls = recordedUrls(services);
  const unasked = urls.filter((u) => !kept.has(u));
  if (unasked.length) {
    const token = await hfToken(services);
    let next = 0;
    const ask = async () => {
      while (next < unasked.length) {
        const url = unasked[next++];
        const size = remoteSize(downloadAddress(url, services.env), {
          env: services.env,
          token,
          signal: AbortSignal.timeout(ASK_MS),
        });
        kept.set(url, size);
        await size;
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, unasked.length) }, ask));
  }
  const sizes: Record<string, number | null> = {};
  for (const url of urls) sizes[url] = (await kept.get(url)) ?? null;
  return { sizes };
}
