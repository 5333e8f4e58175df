import { AppError } from "../errors";
import type { WaitFor } from "./scenario-types";

/** A lab case waited for the stack to reach a state (a holder inside, the instances ready…) and it did not in time. */
export class LabWaitTimeoutError extends AppError {
  override name = "LabWaitTimeoutError";
  readonly status = 504;
  readonly code = "lab_wait_timeout";
  override readonly details: Readonly<Record<string, string | number>>;
  /** `seen`: what the runner last saw, for the logs and the run's record. */
  constructor(what: WaitFor, timeoutMs: number, seen?: string) {
    super(`timed out waiting until ${what}${seen ? ` (last seen: ${seen})` : ""}`);
    // As an ICU select's key (no hyphens there): holder_inside, lock_held…
    this.details = { what: what.replaceAll("-", "_"), timeoutS: Math.round(timeoutMs / 100) / 10 };
  }
}

/** Putting the stack back after a lab run failed: the stack may still have a fault in force. */
export class LabResetError extends AppError {
  override name = "LabResetError";
  readonly status = 503;
  readonly code = "lab_reset_failed";
  override readonly details: Readonly<Record<string, string>>;
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`reset failed: ${reason}`, { cause });
    this.details = { reason };
  }
}
