// One request's reads of an episode pass: its build and its shot folders' takes, each read once however many
// parts of the answer ask (GET /studio/episode's sweep of dead takes, then its status).
import type { Pass } from "../compile/types.ts";
import type { WithCaches } from "../store/caches.ts";
import { folderTakes } from "./cut-view.ts";
import { type Build, readBuild } from "./shotlists.ts";
import type { TakeRecord } from "./takes.ts";

export interface PassReads {
  /** The pass's build, or null when it has none. */
  build(): Promise<Build | null>;
  /** A shot folder's takes of either pass (a placeholder or a sound source may name the other). */
  takes(pass: Pass, shot: string): Promise<readonly TakeRecord[]>;
}

/** Reads made on first ask and shared after; make new ones once something was written. */
export function passReads(services: WithCaches, ep: string, pass: Pass): PassReads {
  let build: Promise<Build | null> | undefined;
  const lists = new Map<string, Promise<readonly TakeRecord[]>>();
  return {
    build() {
      build ??= readBuild(services, ep, pass);
      return build;
    },
    takes(p, shot) {
      const key = `${p}\0${shot}`;
      let list = lists.get(key);
      if (!list) {
        list = folderTakes(services, ep, p, shot);
        lists.set(key, list);
      }
      return list;
    },
  };
}
