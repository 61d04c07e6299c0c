// Lane names: one lane per backend a job runs on (`builtin`, `local`, `cloud`, `router`, `deployment:<target>`).

/** The lanes whose name is a fixed word. */
export const FIXED_LANES = ["builtin", "local", "cloud", "router"] as const;

const DEPLOYMENT = "deployment:";

/** Lane names as a person would type them, for error messages. */
export const LANES_HINT = "builtin, local, cloud, router or deployment:<target>";

/** The names of the lanes the pool runs (a deployment's target on one line). */
export const LANE_PATTERN = new RegExp(`^(${FIXED_LANES.join("|")}|${DEPLOYMENT}.+)$`);

/** The lane of a deployment of one target. */
export const deploymentLane = (target: string): `deployment:${string}` => `${DEPLOYMENT}${target}`;

/** The target of a `deployment:<target>` lane (empty when the name stops there), or null for any other lane. */
export function deploymentTarget(lane: string): string | null {
  return lane.startsWith(DEPLOYMENT) ? lane.slice(DEPLOYMENT.length) : null;
}

/** Whether a name is one of the lanes the pool runs. */
export function isKnownLane(lane: string): boolean {
  return LANE_PATTERN.test(lane);
}

/** Lanes whose runs cost money: the paid-run counter and `paid_limit` apply to them. */
export function isPaidLane(lane: string): boolean {
  return lane === "cloud" || lane === "router" || deploymentTarget(lane) !== null;
}
