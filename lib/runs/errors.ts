import { AppError, NotFoundError } from "../errors";

export class RunNotFoundError extends NotFoundError {
  override name = "RunNotFoundError";
  constructor(id: number | string) {
    super("run", id);
  }
}

/** 409: the stack is taken by another run, or the run reported on has ended; `details` say which (the translations name it). */
export class RunConflictError extends AppError {
  override name = "RunConflictError";
  readonly status = 409;
  constructor(
    readonly code: "run_in_progress" | "run_finished",
    message: string,
    override readonly details?: Readonly<Record<string, unknown>>,
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
