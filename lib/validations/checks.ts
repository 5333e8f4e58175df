import en from "../../messages/en.json";

export type CheckName = keyof typeof en.apiErrors.checks;

/**
 * A refine's options for a named cross-field check: its English message (messages/en.json,
 * `apiErrors.checks`) and its name in `params`, by which lib/http/errors.ts finds the check's
 * message in the request's language (a custom issue carries no other code to look it up by).
 */
export function check(name: CheckName, path?: readonly string[]): { message: string; params: { check: CheckName }; path?: string[] } {
  return { message: en.apiErrors.checks[name], params: { check: name }, ...(path && { path: [...path] }) };
}
