import { AppError } from "../errors";

export class RunNotFoundError extends AppError {
  override name = "RunNotFoundError";
  readonly status = 404;
  readonly code = "not_found";
  /** `id` as the caller wrote it: a number, or whatever text stood in the URL. */
  constructor(id: number | string) {
    super(typeof id === "number" ? `no run ${id}` : `no run "${id.slice(0, 40)}": run ids are positive whole numbers`);
  }
}

export class RunConflictError extends AppError {
  override name = "RunConflictError";
  readonly status = 409;
  constructor(
    readonly code: "run_in_progress" | "run_finished",
    message: string,
  ) {
    super(message);
  }
}

export class RunTokenError extends AppError {
  override name = "RunTokenError";
  readonly status = 401;
  readonly code = "unauthorized";
  constructor() {
    super("this run's report token is missing or wrong");
  }
}
