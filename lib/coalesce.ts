/**
 * One reading at a time for a public read that a flood could multiply (the store page's snapshot,
 * `GET /api/sale`'s accounting): callers who arrive while a reading runs share the next one, which
 * starts after they arrived — so no caller is given figures older than its own request (a purchase
 * answered before it asked is in them), and two hundred requests at once cost two readings, not
 * two hundred. A failed reading fails the callers that shared it; the next caller tries again.
 */
export function coalesced<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const reading = read();
    running = reading;
    const done = () => {
      if (running === reading) running = undefined;
    };
    reading.then(done, done);
    return reading;
  };
  return () => {
    if (!running) return start();
    next ??= running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      next = undefined;
      return start();
    });
    return next;
  };
}
