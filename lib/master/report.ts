// The master's report, `<ep>_master.json` and the same in words `<ep>_master.md`, written beside the master: what
// was made, from which version of each shot with which recipe, the titles, the measured loudness and the ProRes.
import type { Pass } from "../compile/types.ts";
import type { TitlesSummary } from "./job-state.ts";
import type { Counts, MasterRow, PostMode } from "./rows.ts";

export interface LoudnessFacts {
  target: number;
  true_peak: number;
  /** What the master measured before and after normalising (integrated LUFS, true peak dBTP, range LU). */
  measured_in: { i: number; tp: number; lra: number } | null;
  measured_out: { i: number; tp: number; lra: number } | null;
  /** Why nothing was normalised (a master without sound, or silent), else null. */
  note?: string | null;
}

export interface MasterPlanAnswer {
  pass: Pass;
  post: boolean;
  post_mode: PostMode;
  size: [number, number];
  fit: string;
  quality: string;
  counts: Counts;
  ready: boolean;
  rows: MasterRow[];
}

export interface MasterReport {
  episode: string;
  made: string;
  output: string;
  prores: string | null;
  titles: TitlesSummary | null;
  loudness: LoudnessFacts | null;
  quality: string;
  /** What each row played: `post`, `upscale`, or `take` (a gap scaled up). */
  played: Record<string, "post" | "upscale" | "take">;
  assembly: { clips: number; frames: number; seconds: number; copied: number; reencoded: number };
  plan: MasterPlanAnswer;
  finished: string;
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** The report in words. */
export function reportMarkdown(r: MasterReport): string {
  const [w, h] = r.plan.size;
  const lines = [
    `# ${r.episode}: master ${w}x${h}`,
    "",
    `- made ${r.made}, finished ${r.finished}`,
    `- output: ${r.output}`,
    `- ProRes 422 HQ: ${r.prores ?? "none"}`,
    `- ${r.assembly.clips} clip(s), ${r.assembly.frames} frames (${r.assembly.seconds} s); ${r.assembly.copied} copied, ${r.assembly.reencoded} re-encoded`,
    `- pass ${r.plan.pass}, fit ${r.plan.fit}, quality ${r.quality}, posts ${r.plan.post_mode}`,
  ];
  if (r.titles) {
    const parts = [
      r.titles.intro ? `intro ${r.titles.intro}` : null,
      r.titles.outro ? `outro ${r.titles.outro}` : null,
    ];
    lines.push(
      `- titles: ${parts.filter(Boolean).join(", ") || "none"}; picture ${r.titles.picture} (${r.titles.why})`,
    );
  } else lines.push("- titles: none (the show has no intro or outro)");
  const l = r.loudness;
  if (l) {
    const m = (x: LoudnessFacts["measured_in"]) =>
      x ? `${fmt(x.i)} LUFS, true peak ${fmt(x.tp)} dBTP, range ${fmt(x.lra)} LU` : "not measured";
    lines.push(
      `- loudness: target ${fmt(l.target)} LUFS, true peak ≤ ${fmt(l.true_peak)} dBTP; ${l.note ? `not normalised: ${l.note}` : `measured before ${m(l.measured_in)}; after ${m(l.measured_out)}`}`,
    );
  }
  lines.push("", "| shot | take | target | status | plays | recipe | why |", "| - | - | - | - | - | - | - |");
  const cell = (v: unknown) => String(v ?? "").replace(/\|/g, "\\|");
  for (const row of r.plan.rows) {
    lines.push(
      `| ${cell(row.shot)} | ${cell(row.take)} | ${cell(row.target)} | ${row.status} | ${r.played[row.shot] ?? "-"} | ${cell(row.recipe)} | ${cell(row.why)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
