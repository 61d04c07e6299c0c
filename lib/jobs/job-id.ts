// Job ids: drawn by the store on insert, or beforehand by a caller whose files must name the job before it exists.
import { randomBytes } from "node:crypto";

/** What newJobId() draws; the store takes no other id from a caller. */
export const JOB_ID = /^j_[0-9a-f]{12}$/;

/** A fresh job id, for NewJob.id. */
export const newJobId = () => `j_${randomBytes(6).toString("hex")}`;
