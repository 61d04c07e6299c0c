// The types of build-web.js, for the TypeScript that imports it (the benches).
export interface WebAsset {
  name: string;
  type: string;
  bytes: Buffer;
}

export interface WebBuild {
  html: string;
  assets: WebAsset[];
  /** The whole page over the wire, each file gzipped, in bytes. */
  gzipped: number;
  /** What a first visit loads before opening a view other than Shots, gzipped, in bytes. */
  initial: number;
  /** The repository's own modules outside web/ the page bundles, relative to the repository. */
  inputs: string[];
}

export const WEB_SOURCES: string;
export const WEB_DIST: string;
export const MANIFEST: string;
export function bundleWeb(options?: { minify?: boolean }): Promise<WebBuild>;
export function newestSource(dir?: string, also?: string[]): Promise<number>;
export function buildWeb(): Promise<{
  started: number;
  assets: { name: string; type: string; sha1: string }[];
  gzipped: number;
  initial: number;
  inputs: string[];
}>;
