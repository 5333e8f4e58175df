import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { SESSION_COOKIE, isSignedIn } from "@/lib/auth/session";
import { clientAddress } from "@/lib/http/client-address";
import { SignInRedirect } from "./sign-in-redirect";

/**
 * The door to every signed-in admin page (/admin, /admin/lab, /admin/runs/…; the route group adds
 * nothing to the URL). A stranger gets a real 307 to /admin/login: this layout sits above the
 * group's loading.tsx, so it runs before that Suspense boundary starts streaming a 200.
 *
 * A layout is not told which page it wraps, so the redirect itself is made by a client component
 * that reads the path (for the sign-in page's `next`). During the first server render that is
 * still a server-side 307.
 *
 * Each page checks the session again (requireAdminPage): a layout does not stop its pages from
 * rendering, nor from appearing in a client navigation's payload, and it does not re-render on
 * navigation between the pages below it.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!(await isSignedIn(token, clientAddress({ headers: await headers() })))) return <SignInRedirect />;
  return children;
}
