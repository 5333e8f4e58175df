"use client";

import { RetryButton } from "./retry-button";

/**
 * The store when a page cannot be rendered — most often Postgres or Redis node 1 not answering.
 * Nothing was bought by showing this page; the buyer can try again once the servers are back.
 */
export default function StoreError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <section className="card" role="alert" data-testid="store-error">
      <h1>The store cannot reach its servers</h1>
      <p>
        The stock or the order database is not answering right now, so the page could not be shown. Nothing was bought
        or charged. Try again in a moment.
      </p>
      {error.digest && <p className="muted">Reference: {error.digest}</p>}
      <RetryButton reset={reset} />
    </section>
  );
}
