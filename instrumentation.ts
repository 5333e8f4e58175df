/**
 * Runs once when an app instance starts: connect to every Redis node before the first buyer
 * arrives, so Redlock's short per-node timeout is never spent on a connection handshake.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { connectRedisNodes } = await import("./lib/redis");
  await connectRedisNodes();
}
