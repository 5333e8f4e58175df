export class RunNotFoundError extends Error {
  override name = "RunNotFoundError";
  /** `id` as the caller wrote it: a number, or whatever text stood in the URL. */
  constructor(id: number | string) {
    super(typeof id === "number" ? `no run ${id}` : `no run "${id.slice(0, 40)}": run ids are positive whole numbers`);
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
