"use client";

import Link from "next/link";
import { RetryButton } from "../retry-button";

/** An admin page that cannot be rendered: a backing server is down, or the stack is stopping. */
export default function AdminError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <section className="card" role="alert" data-testid="admin-error">
      <h1>This admin page could not be loaded</h1>
      <p>
        A server it reads from (PostgreSQL, a Redis node, or the stack runner) did not answer. If you stopped one from the
        faults panel or the lab, start it again or press <strong>Reset everything</strong> on the dashboard.
      </p>
      {error.digest && <p className="muted">Reference: {error.digest}</p>}
      <div className="toolbar">
        <RetryButton reset={reset} />
        <Link href="/admin">Back to the dashboard</Link>
      </div>
    </section>
  );
}
