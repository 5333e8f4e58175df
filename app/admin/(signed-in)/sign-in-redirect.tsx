"use client";

import { redirect, usePathname } from "next/navigation";

/**
 * Sends a stranger to sign-in, and back to this page after. Rendered on the server for a page
 * load, where it answers 307; after a client navigation, the router follows it in the browser.
 */
export function SignInRedirect(): never {
  // Never null on an App Router page (its type allows null because pages/api exists).
  const pathname = usePathname();
  redirect(`/admin/login?next=${encodeURIComponent(pathname ?? "/admin")}`);
}
