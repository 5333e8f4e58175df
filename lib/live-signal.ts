import { getRedis, hasOpenRedis } from "./redis";
import { processSingleton } from "./process-singleton";

/**
 * The live signal: any instance that changes what a page shows — the stock, the holders inside,
 * the drop, the strategy — says so on one Redis pub/sub channel, and every instance's live hub
 * (lib/workshop/live.ts) sends its subscribers a fresh snapshot. The message carries no
 * state, only "look again", so a burst of purchases costs at most one PUBLISH per instance per
 * ANNOUNCE_EVERY_MS, whatever the load.
 */
export const LIVE_CHANNEL = "locklab:live";
export const ANNOUNCE_EVERY_MS = 100;

const state = processSingleton("live-signal", () => ({ lastAt: 0, trailing: undefined as NodeJS.Timeout | undefined }));

function publish(): void {
  state.lastAt = Date.now();
  // Nobody listening, or Redis down: the next change announces again; a lost "look again" costs nothing.
  void getRedis().publish(LIVE_CHANNEL, "1").catch(() => {});
}

/** Tells every instance's live subscribers that something changed: at once, or at the end of the current interval. */
export function announceChange(): void {
  if (state.trailing) return;
  const wait = state.lastAt + ANNOUNCE_EVERY_MS - Date.now();
  if (wait <= 0) return publish();
  state.trailing = setTimeout(() => {
    state.trailing = undefined;
    // A script that announced twice and closed its clients meanwhile (npm run strategy): opening
    // them again to announce would keep it from ever exiting.
    if (hasOpenRedis()) publish();
  }, wait);
  state.trailing.unref?.();
}
