"use client";

import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useTransition } from "react";

/**
 * "Try again" on an error page. The pages are server components: reset() alone would render the
 * same failed result again, so the page is fetched anew first. The button waits while it is.
 */
export function RetryButton({ reset }: { reset: () => void }) {
  const t = useTranslations("common");
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <button
      type="button"
      className="primary"
      disabled={pending}
      aria-busy={pending}
      onClick={() =>
        startTransition(() => {
          router.refresh();
          reset();
        })
      }
    >
      {pending ? t("tryingAgain") : t("tryAgain")}
    </button>
  );
}
