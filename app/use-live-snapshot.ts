"use client";

import { useEffect, useState } from "react";
import type { LiveSnapshot } from "@/lib/workshop/live";

export interface LiveClock<S extends LiveSnapshot> {
  readonly snapshot: S;
  /** The server's time now, as the page best knows it (its own clock corrected by the last snapshot). */
  readonly serverNow: number;
  readonly connected: boolean;
  /**
   * The figures shown could not be brought up to date: the server said it could not build a
   * snapshot (a backing server down), or the stream broke after the page had one. False until
   * then, and again with the next snapshot.
   */
  readonly stale: boolean;
}

/** How often the countdown redraws (no request: the page's own clock, set against the server's). */
const TICK_MS = 200;

/**
 * The live snapshot from a server-sent event stream (`/api/live` or `/api/admin/live`), starting
 * from the one the server rendered. The EventSource reconnects by itself; nothing polls.
 */
export function useLiveSnapshot<S extends LiveSnapshot>(url: string, initial: S): LiveClock<S> {
  const [snapshot, setSnapshot] = useState(initial);
  const [offsetMs, setOffsetMs] = useState(() => initial.serverNow - Date.now());
  const [now, setNow] = useState(() => Date.now());
  const [connected, setConnected] = useState(false);
  const [stale, setStale] = useState(false);

  useEffect(() => {
    const source = new EventSource(url);
    source.onopen = () => setConnected(true);
    source.onerror = () => {
      setConnected(false);
      setStale(true);
    };
    // The instance could not build a snapshot (a backing server is down): shown as not connected, and
    // the figures as old, until the next one.
    source.addEventListener("unavailable", () => {
      setConnected(false);
      setStale(true);
    });
    source.onmessage = (event: MessageEvent<string>) => {
      const next = JSON.parse(event.data) as S;
      setOffsetMs(next.serverNow - Date.now());
      setSnapshot(next);
      setConnected(true);
      setStale(false);
    };
    return () => source.close();
  }, [url]);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);

  return { snapshot, serverNow: now + offsetMs, connected, stale };
}

/** The drop's state at `serverNow` (a scheduled drop opens when its countdown reaches zero, on every phone at once). */
export function dropStateAt(snapshot: LiveSnapshot, serverNow: number): { state: LiveSnapshot["drop"]["state"]; secondsLeft: number } {
  const { drop } = snapshot;
  if (drop.state === "scheduled" && drop.opensAt !== undefined) {
    const left = drop.opensAt - serverNow;
    return left > 0 ? { state: "scheduled", secondsLeft: Math.ceil(left / 1000) } : { state: "open", secondsLeft: 0 };
  }
  return { state: drop.state, secondsLeft: 0 };
}
