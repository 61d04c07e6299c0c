// Promote's candidates: each override the authored files can say (a shot's script line, the episode's series
// block), with the edit that says it and how to drop the override; the rest is left with the reason.
import { isObject } from "../../store/json-guards.ts";
import { type ShotOverrides, type TargetOverride, targetBlock } from "../overrides-file.ts";
import { refCandidates } from "./ref-candidates.ts";
import { loraLine, sameJson, showValue } from "./render-view.ts";
import {
  type Candidate,
  type Inputs,
  type LeftEntry,
  LINE_KEY,
  PASSES,
  SETTINGS,
  type View,
} from "./types.ts";

const PASS_LEFT: Record<string, string> = {
  prompt: "a compiled prompt is not promoted: edit the shot's action and lines instead",
  negative: "a negative prompt has no script line",
  model_low: "model_low has no script line",
  size: "a render size has no script line",
};

export function gather(
  inputs: Inputs,
  before: View,
  onlyShot?: string,
): { candidates: Candidate[]; left: LeftEntry[] } {
  const candidates: Candidate[] = [];
  const left: LeftEntry[] = [];
  for (const [shot, shotBlock] of Object.entries(inputs.overrides.shots ?? {})) {
    if (onlyShot !== undefined && shot !== onlyShot) continue;
    if (!isObject(shotBlock)) continue;
    shotCandidates(shot, shotBlock, before, candidates, left);
  }
  if (onlyShot === undefined) {
    episodeCandidates(inputs, before, candidates, left);
    refCandidates(inputs, before, candidates, left);
  }
  return { candidates, left };
}

function shotCandidates(
  shot: string,
  shotBlock: ShotOverrides,
  before: View,
  candidates: Candidate[],
  left: LeftEntry[],
): void {
  const render = before.shots.get(shot);
  const leaveAll = (reason: string) => {
    for (const [key, block] of Object.entries(shotBlock)) {
      if (key === "target") left.push({ scope: "shot", shot, field: "target", reason });
      else if (isTargetBlock(block)) leaveBlock(shot, block, reason, left);
    }
  };
  if (!render) {
    leaveAll(`${shot} is not in the script`);
    return;
  }
  const retarget = shotBlock.target;
  if (typeof retarget === "string" && retarget !== "") {
    candidates.push({
      item: {
        id: `shot:${shot}:target`,
        scope: "shot",
        shot,
        field: "target",
        value: retarget,
        dest: "script",
        summary: `${shot}: target: ${retarget}`,
      },
      edit: { kind: "script", shot, key: "target", text: retarget },
      remove(o) {
        const b = o.shots?.[shot];
        if (b) delete b.target;
      },
    });
  }
  for (const [key, raw] of Object.entries(shotBlock)) {
    if (key === "target" || !isTargetBlock(raw)) continue;
    const block = raw;
    if (key !== render.target) {
      leaveBlock(shot, block, `written for ${key}; the shot renders on ${render.target} now`, left);
      continue;
    }
    if (block.seed !== undefined) {
      left.push({
        scope: "shot",
        shot,
        field: "seed",
        reason: "a seed stays in the overrides (the script has no seed line)",
      });
    }
    if (block.note !== undefined) {
      left.push({
        scope: "shot",
        shot,
        field: "note",
        reason: "a note stays in the overrides (the script has no note line)",
      });
    }
    for (const pass of PASSES) {
      for (const field of Object.keys(block[pass] ?? {})) {
        if (PASS_LEFT[field]) left.push({ scope: "shot", shot, pass, field, reason: PASS_LEFT[field] });
      }
    }
    const failing = PASSES.map((p) => render[p].error).find(Boolean);
    for (const field of SETTINGS) {
      const passes = PASSES.filter((p) => block[p]?.[field] !== undefined);
      if (passes.length === 0) continue;
      const leave = (reason: string) => {
        for (const pass of passes) left.push({ scope: "shot", shot, pass, field, reason });
      };
      if (failing) {
        leave(`the shot does not compile on ${render.target}: ${failing}`);
        continue;
      }
      const finalValue = render.final[field];
      const proxyValue = render.proxy[field];
      if (!sameJson(finalValue, proxyValue)) {
        leave(
          `the final pass renders ${showValue(finalValue)} and the proxy pass ${showValue(proxyValue)}: ` +
            "a script line would set both",
        );
        continue;
      }
      let text: string;
      if (Array.isArray(finalValue)) {
        const line = loraLine(finalValue);
        if (line === null) {
          leave("two or more LoRAs cannot be one script line (put them in a profile)");
          continue;
        }
        text = line;
      } else if (finalValue === null) {
        leave(`no ${field} to write`);
        continue;
      } else {
        text = String(finalValue);
      }
      const lineKey = LINE_KEY[field];
      candidates.push({
        item: {
          id: `shot:${shot}:${field}`,
          scope: "shot",
          shot,
          field,
          value: finalValue,
          dest: "script",
          summary: `${shot}: ${lineKey}: ${text}`,
        },
        edit: { kind: "script", shot, key: lineKey, text },
        remove(o) {
          const b = targetBlock(o, shot, key);
          for (const pass of PASSES) if (b?.[pass]) delete b[pass][field];
        },
      });
    }
  }
}

function leaveBlock(shot: string, block: TargetOverride, reason: string, left: LeftEntry[]): void {
  if (block.seed !== undefined) left.push({ scope: "shot", shot, field: "seed", reason });
  if (block.note !== undefined) left.push({ scope: "shot", shot, field: "note", reason });
  for (const pass of PASSES) {
    for (const field of Object.keys(block[pass] ?? {})) {
      if (field !== "base_hash") left.push({ scope: "shot", shot, pass, field, reason });
    }
  }
}

const EPISODE_DEST: Record<string, string[]> = {
  target: ["series", "target"],
  refs_target: ["refs", "target"],
  keyframe_target: ["refs", "keyframe_target"],
};

function episodeCandidates(inputs: Inputs, before: View, candidates: Candidate[], left: LeftEntry[]): void {
  const episode = inputs.overrides.episode;
  if (!isObject(episode)) return;
  const raw = before.series.raw;
  for (const [field, value] of Object.entries(episode)) {
    if (field === "id" || value === undefined || value === null || value === "") continue;
    const dest = EPISODE_DEST[field];
    if (!dest || typeof value !== "string") {
      left.push({
        scope: "episode",
        field,
        reason: `the episode's ${field} has no place in the series config`,
      });
      continue;
    }
    if (field === "target") {
      const set = (["series", "proxy"] as const).flatMap((block) =>
        ["model", "lora", "steps"]
          .filter((k) => isObject(raw[block]) && raw[block][k] !== undefined)
          .map((k) => `${block}.${k}`),
      );
      if (set.length) {
        left.push({
          scope: "episode",
          field,
          reason: `the series config sets ${set.join(", ")}: as series.target they would apply to ${value} too`,
        });
        continue;
      }
    }
    if (raw[dest[0]] !== undefined && !isObject(raw[dest[0]])) {
      left.push({ scope: "episode", field, reason: `series.json \`${dest[0]}\` is not an object` });
      continue;
    }
    const block = raw[dest[0]];
    const old = isObject(block) ? block[dest[1]] : undefined;
    candidates.push({
      item: {
        id: `episode:${field}`,
        scope: "episode",
        field,
        value,
        dest: "series",
        summary:
          `${dest.join(".")}: ${JSON.stringify(value)}` +
          (old === undefined ? "" : ` (was ${JSON.stringify(old)})`),
      },
      edit: { kind: "series", keyPath: dest, value },
      remove(o) {
        const e = o.episode;
        if (!isObject(e)) return;
        delete e[field];
        // No editor targets left: the block goes back to the episode's plain name.
        if (Object.keys(e).every((k) => k === "id"))
          o.episode = typeof e.id === "string" ? e.id : before.story.episode;
      },
    });
  }
}

/** A target's block in a shot's overrides (the shot's `target` key is the retarget, a string). */
function isTargetBlock(v: ShotOverrides[string]): v is TargetOverride {
  return isObject(v);
}
