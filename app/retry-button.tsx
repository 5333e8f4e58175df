"use client";

import { useRouter } from "next/navigation";
import { startTransition } from "react";

/**
 * "Try again" on an error page. The pages are server components: reset() alone would render the
 * same failed result again, so the page is fetched anew first.
 */
export function RetryButton({ reset }: { reset: () => void }) {
  const router = useRouter();
  return (
    <button
      type="button"
      className="primary"
      onClick={() =>
        startTransition(() => {
          router.refresh();
          reset();
        })
      }
    >
      Try again
    </button>
  );
}
