/**
 * After a kill or a pause, nginx takes an instance out of rotation for a few seconds (max_fails=1,
 * fail_timeout=5s): a case or run that starts meanwhile sends every buyer to one instance, and a
 * pitfall that needs a second instance to take over cannot appear. Waits (bounded) until
 * `instances` different instances have answered through nginx.
 */
export async function untilNginxSeesInstances(publicUrl: string, instances = 2, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  while (seen.size < instances && Date.now() < deadline) {
    const response = await fetch(`${publicUrl}/api/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    const body = response?.ok ? ((await response.json().catch(() => ({}))) as { instance?: string }) : {};
    if (body.instance) seen.add(body.instance);
    else await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return seen.size >= instances;
}
