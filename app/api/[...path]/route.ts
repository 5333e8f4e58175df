import { jsonError } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

/**
 * Any /api path no route answers: a JSON 404 like every other API error, not Next's HTML page
 * (a script reading the API must never have to parse a page).
 */
function notFound(request: Request): Response {
  const path = new URL(request.url).pathname.slice(0, 120);
  return jsonError(404, { code: "not_found", message: `No API route at ${path}.` });
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
