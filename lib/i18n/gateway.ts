/**
 * The errors nginx answers by itself (nginx/nginx.conf.template) that a phone's Buy or Join can
 * meet: its per-address limit, no app instance answering, one answering too late. No app saw the
 * request, so none could say it in the page's language; the page says it, by code, from the
 * messages (`common.gateway`). Every other error's message comes from the app, already translated.
 */
export const GATEWAY_CODES = ["too_many_requests", "bad_gateway", "service_unavailable", "gateway_timeout", "request_timeout", "internal_error"] as const;
export type GatewayCode = (typeof GATEWAY_CODES)[number];

export function isGatewayCode(code: unknown): code is GatewayCode {
  return typeof code === "string" && (GATEWAY_CODES as readonly string[]).includes(code);
}
