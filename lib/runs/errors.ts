export class RunNotFoundError extends Error {
  override name = "RunNotFoundError";
  constructor(id: number) {
    super(`no run ${id}`);
  }
}

export class RunConflictError extends Error {
  override name = "RunConflictError";
  constructor(
    readonly code: "run_in_progress" | "run_finished",
    message: string,
  ) {
    super(message);
  }
}

export class RunTokenError extends Error {
  override name = "RunTokenError";
  constructor() {
    super("this run's report token is missing or wrong");
  }
}
