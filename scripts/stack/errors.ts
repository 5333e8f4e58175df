/** A failure the user can fix; its message says what to do and is printed without a stack trace. */
export class StackError extends Error {
  override name = "StackError";
}

/** A control API answer other than 200: `{ code, message }` with this status. */
export class HttpError extends Error {
  override name = "HttpError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
