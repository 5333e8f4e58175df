import { adminRoute } from "@/lib/auth/guard";
import type { IdRouteContext } from "@/lib/http/route-params";
import { HttpError, methodNotAllowed } from "@/lib/http/errors";
import { withKeptErrorsIn } from "@/lib/http/kept-error";
import { localeOfRequest } from "@/lib/i18n/locales";
import { getLabRun } from "@/lib/lab/lab-runs";

export const dynamic = "force-dynamic";

/** A lab run: each case's status, outcome and verdict next to its expectation; its errors in the reader's language. */
export const GET = adminRoute(async (request, { params }: IdRouteContext) => {
  const { id } = await params;
  const labRun = /^\d{1,9}$/.test(id) ? await getLabRun(Number(id)) : undefined;
  if (!labRun) throw new HttpError(404, "not_found", `no lab run ${id}`);
  return Response.json({ labRun: withKeptErrorsIn(labRun, localeOfRequest(request)) }, { headers: { "cache-control": "no-store" } });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
