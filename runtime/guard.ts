// The browser guard: the service runs on a machine that browses the web, so a request is served only when its
// Host names this server (no DNS rebinding), its Origin is this server's own page (no cross-site writes or
// sockets), and, when STUDIO_TOKEN is set, it carries the token. Pure: a request in, a refusal or null out.
import { sha256 } from "../lib/text/digest.ts";

export interface GuardOptions {
  /** Host names (lowercase, IPv6 in brackets, no port) a request may name; `*` serves any. */
  hosts: ReadonlySet<string>;
  /** Extra origins allowed to write and open /ws (`scheme://host[:port]`, lowercase). */
  origins: ReadonlySet<string>;
  /** When set, every request must carry it. */
  token: string | undefined;
}

export interface Refusal {
  status: 401 | 403;
  error: string;
  headers?: Record<string, string>;
}

export const TOKEN_COOKIE = "studio_token";
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** True for an address or name that stays on this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Bracket a bare IPv6 address as it appears in a Host header. */
export function hostName(address: string): string {
  const a = address.toLowerCase();
  return a.includes(":") && !a.startsWith("[") ? `[${a}]` : a;
}

function list(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * The guard from the environment: loopback names always, `names` (a listener's own beyond loopback), and what
 * STUDIO_ALLOWED_HOSTS and STUDIO_ALLOWED_ORIGINS add.
 */
export function guardFromEnv(
  env: Record<string, string | undefined>,
  names: readonly string[] = [],
): GuardOptions {
  const hosts = new Set<string>([...LOOPBACK_NAMES, ...names]);
  for (const h of list(env.STUDIO_ALLOWED_HOSTS))
    hosts.add(h === "*" ? "*" : hostName(h.replace(/:\d+$/, "")));
  const origins = new Set(list(env.STUDIO_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, "")));
  const token = env.STUDIO_TOKEN?.trim() || undefined;
  return { hosts, origins, token };
}

/** `host[:port]` split into a lowercase name (IPv6 bracketed) and the port text, or null when malformed. */
function splitHost(value: string): { name: string; port: string } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  return m ? { name: m[1].toLowerCase(), port: m[2] ?? "" } : null;
}

function hostAllowed(opts: GuardOptions, name: string): boolean {
  return opts.hosts.has("*") || opts.hosts.has(name) || isLoopbackHost(name);
}

/** The Host a request names: the header when present (Node builds the URL from it), else the URL's. */
function requestHost(req: Request, url: URL): string {
  return req.headers.get("host") ?? url.host;
}

// Compares digests of equal length in full, so the time taken says nothing about where the texts differ.
function sameDigest(a: string, b: string): boolean {
  const da = sha256(a);
  const db = sha256(b);
  let diff = 0;
  for (let i = 0; i < da.length; i++) diff |= da[i] ^ db[i];
  return diff === 0;
}

function cookieToken(req: Request): string | undefined {
  const cookies = req.headers.get("cookie") ?? "";
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE)
      return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** How a request proves the token: the header, the cookie, or `?token=` (which then sets the cookie). */
export function presentedToken(req: Request, url: URL): { token: string | undefined; fromQuery: boolean } {
  const auth = req.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (bearer) return { token: bearer, fromQuery: false };
  const query = url.searchParams.get("token");
  if (query) return { token: query, fromQuery: true };
  return { token: cookieToken(req), fromQuery: false };
}

// Methods a page can send cross-site without a preflight are writes here only when they are not GET or HEAD.
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuse or pass a request. `socket` marks a websocket upgrade, which is checked like a write. Order: a foreign
 * Host (403), a missing token (401), a foreign origin on a write or socket (403).
 */
export function checkRequest(req: Request, opts: GuardOptions, socket = false): Refusal | null {
  const url = new URL(req.url);
  const hostText = requestHost(req, url);
  const host = splitHost(hostText);
  const urlHost = splitHost(url.host);
  if (!host || !hostAllowed(opts, host.name) || !urlHost || !hostAllowed(opts, urlHost.name)) {
    const shown = (host?.name ?? hostText).slice(0, 100);
    return {
      status: 403,
      error: `host "${shown}" is not served here: only this machine's own names are, to keep web pages from reaching the service through their own domain names; to serve it on purpose set STUDIO_ALLOWED_HOSTS=${host?.name ?? "<name>"}`,
    };
  }

  if (opts.token !== undefined) {
    const { token } = presentedToken(req, url);
    if (token === undefined || !sameDigest(token, opts.token)) {
      return {
        status: 401,
        error: `this server needs its token (STUDIO_TOKEN): send "Authorization: Bearer <token>", or open /studio/?token=<token> once in the browser`,
        headers: { "www-authenticate": 'Bearer realm="episode-studio"' },
      };
    }
  }

  const origin = req.headers.get("origin");
  const crossSite = req.headers.get("sec-fetch-site") === "cross-site";
  if ((socket || !READS.has(req.method)) && (origin !== null || crossSite)) {
    if (!originAllowed(opts, origin, hostText)) {
      const shown = (origin ?? "a cross-site page").slice(0, 100);
      return {
        status: 403,
        error: `requests from ${shown} are refused: only the page this server serves may write or open /ws; to allow another origin set STUDIO_ALLOWED_ORIGINS=${origin ?? "<origin>"}`,
      };
    }
  }
  return null;
}

/** The page's own origin (its host and port equal the request's Host) or one listed. */
function originAllowed(opts: GuardOptions, origin: string | null, hostText: string): boolean {
  if (origin === null || origin === "null") return false;
  const o = origin.toLowerCase().replace(/\/+$/, "");
  if (opts.origins.has(o) || opts.origins.has("*")) return true;
  let parsed: URL;
  try {
    parsed = new URL(o);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  let own: URL;
  try {
    own = new URL(`${parsed.protocol}//${hostText.toLowerCase()}`);
  } catch {
    return false;
  }
  return parsed.host === own.host;
}

/** The cookie that lets a browser that opened `?token=` once carry on without it. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`;
}
