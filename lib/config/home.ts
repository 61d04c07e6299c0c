// Where the service keeps its settings: STUDIO_HOME, else a per-user folder that survives reinstalls.
import os from "node:os";
import path from "node:path";

export type Env = Record<string, string | undefined>;

/** The settings folder for this environment (absolute). */
export function studioHome(
  env: Env,
  platform: NodeJS.Platform = process.platform,
  homedir: string = os.homedir(),
): string {
  const explicit = env.STUDIO_HOME?.trim();
  if (explicit) return path.resolve(explicit);
  const home = env.HOME?.trim() || env.USERPROFILE?.trim() || homedir;
  if (platform === "win32") {
    const appData = env.APPDATA?.trim() || path.win32.join(home, "AppData", "Roaming");
    return path.win32.join(appData, "episode-studio");
  }
  const xdg = env.XDG_CONFIG_HOME?.trim();
  // XDG says a relative value is invalid and must be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config");
  return path.join(base, "episode-studio");
}

/** `<home>/default/studio`: where config.json and settings.json live. */
export function studioDataDir(home: string): string {
  return path.join(home, "default", "studio");
}
