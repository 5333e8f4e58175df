/**
 * How often an instance broadcasts live snapshots (lib/workshop/live.ts): a classroom follows every
 * change at once, a hall of phones is spaced so the streams' writes leave room for the buyers.
 */
import { describe, expect, it } from "vitest";
import { ANNOUNCE_EVERY_MS } from "@/lib/live-signal";
import { MAX_BROADCAST_SPACING_MS, broadcastSpacingMs } from "@/lib/workshop/live";

const KB = 1024;

describe("broadcast spacing", () => {
  it("a classroom (30 phones, a 5 KB snapshot) gets every change within the announce interval", () => {
    expect(broadcastSpacingMs(30 * 5 * KB)).toBe(ANNOUNCE_EVERY_MS);
  });

  it("half a hall of 1,000 phones (500 streams on this instance, 5 KB) waits longer between broadcasts", () => {
    const spacing = broadcastSpacingMs(500 * 5 * KB);
    expect(spacing).toBeGreaterThan(ANNOUNCE_EVERY_MS);
    expect(spacing).toBeLessThanOrEqual(MAX_BROADCAST_SPACING_MS);
  });

  it("grows with the bytes a broadcast writes, and never past its bound", () => {
    expect(broadcastSpacingMs(1000 * 5 * KB)).toBeGreaterThan(broadcastSpacingMs(500 * 5 * KB));
    expect(broadcastSpacingMs(100_000 * 5 * KB)).toBe(MAX_BROADCAST_SPACING_MS);
  });
});
