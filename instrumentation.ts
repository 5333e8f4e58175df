/**
 * Runs once when an app instance starts: connect to every Redis node before the first buyer
 * arrives (so Redlock's short per-node timeout is never spent on a handshake), forget any holders
 * this instance had inside the critical section when it last died, and start the reconciler.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { connectRedisNodes, getRedis } = await import("./lib/redis");
  const { getEnv } = await import("./lib/env");
  const { clearInstanceHolders } = await import("./lib/purchase/critical-section");
  const { startReconciler } = await import("./lib/purchase/reconciler");
  const { SALE_KEY } = await import("./lib/sale/keys");
  await connectRedisNodes();
  const saleId = Number(await getRedis().hget(SALE_KEY, "id").catch(() => null));
  if (saleId) await clearInstanceHolders(getRedis(), saleId, getEnv().APP_INSTANCE).catch(() => {});
  // Settles reservations a crash left behind (this instance's own, or another's), then on a timer.
  startReconciler();
}
