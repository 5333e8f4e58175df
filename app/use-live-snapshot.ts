"use client";

import { useEffect, useState } from "react";
import type { LiveSnapshot } from "@/lib/workshop/live";

export interface LiveClock<S extends LiveSnapshot> {
  readonly snapshot: S;
  /** The server's time now, as the page best knows it (its own clock corrected by the last snapshot). */
  readonly serverNow: number;
  readonly connected: boolean;
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

  useEffect(() => {
    const source = new EventSource(url);
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    // The instance could not build a snapshot (a backing server is down): shown as not connected until the next one.
    source.addEventListener("unavailable", () => setConnected(false));
    source.onmessage = (event: MessageEvent<string>) => {
      const next = JSON.parse(event.data) as S;
      setOffsetMs(next.serverNow - Date.now());
      setSnapshot(next);
      setConnected(true);
    };
    return () => source.close();
  }, [url]);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);

  return { snapshot, serverNow: now + offsetMs, connected };
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
