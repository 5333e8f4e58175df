"use client";

import { useCallback, useEffect, useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import { ClockControls } from "./clock-controls";
import { LinkGrid } from "./link-grid";
import { MemberControls, SERVICE_LABELS } from "./member-controls";

/** Every fault in force, always on screen while one is, with one button to undo them all. */
export function FaultsPanel({ initial }: { initial: ActiveFaults }) {
  const [faults, setFaults] = useState(initial);
  const [message, setMessage] = useState<string | null>(null);
  const [resetting, setResetting] = useState(false);

  const refresh = useCallback(async () => {
    const response = await fetch("/api/admin/faults", { cache: "no-store" });
    if (response.ok) setFaults((await response.json()).faults);
  }, []);

  useEffect(() => {
    const timer = setInterval(refresh, 2000);
    return () => clearInterval(timer);
  }, [refresh]);

  async function resetAll() {
    setResetting(true);
    setMessage(null);
    try {
      const response = await fetch("/api/admin/lab/reset", { method: "POST", headers: { "content-type": "application/json" } });
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        setFaults(body.faults);
        setMessage("Everything is back to defaults.");
      } else setMessage(body.message ?? `Reset failed (${response.status}).`);
    } catch {
      setMessage("The server could not be reached.");
    } finally {
      setResetting(false);
    }
  }

  const delays = Object.entries(faults.delays);
  const done = (next: ActiveFaults | undefined, text: string) => {
    if (next) setFaults(next);
    setMessage(text);
  };
  return (
    <section className={`card faults${faults.any ? " active" : ""}`} aria-label="Faults" data-testid="faults-panel">
      <div className="toolbar">
        <h2>{faults.any ? "Faults in force" : "No faults in force"}</h2>
        <button type="button" onClick={resetAll} disabled={resetting} aria-busy={resetting}>
          {resetting ? "Resetting…" : "Reset everything"}
        </button>
      </div>
      {!faults.stackReachable && <p className="muted">The stack runner&apos;s control API does not answer: node and instance faults are unknown.</p>}
      {faults.any && (
        <ul>
          {faults.stoppedRedisNodes.map((node) => <li key={`redis-${node}`}>Redis node {node} is stopped</li>)}
          {faults.pausedApps.map((app) => <li key={`paused-${app}`}>{app} is paused</li>)}
          {faults.stoppedApps.map((app) => <li key={`stopped-${app}`}>{app} is stopped</li>)}
          {faults.members.map((m) => (
            <li key={`${m.service}-${m.index}`}>{SERVICE_LABELS[m.service]} {m.index} ({m.addr}) is {m.state}</li>
          ))}
          {delays.map(([point, ms]) => <li key={point}>{ms} ms delay at <code>{point}</code></li>)}
          {faults.network.cuts.map((cut) => (
            <li key={`cut-${cut.client}-${cut.server}`} data-testid="cut-in-force">
              link {cut.client} {cut.direction === "both" ? "⇹" : cut.direction === "to-server" ? "→" : "←"} {cut.server} is cut
              {cut.direction === "both" ? " both ways" : cut.direction === "to-server" ? ` (${cut.client}'s packets dropped)` : ` (${cut.server}'s packets dropped)`}
            </li>
          ))}
          {faults.clocks.map(({ node, clock }) => (
            <li key={`clock-${node}`}>Redis node {node}&apos;s clock is {clock.offsetS >= 0 ? "+" : ""}{Math.round(clock.offsetS)} s off{clock.rate !== 1 ? ` and runs ×${clock.rate}` : ""}</li>
          ))}
        </ul>
      )}
      <LinkGrid network={faults.network} onDone={done} />
      <ClockControls onDone={done} />
      <MemberControls onDone={done} />
      {message && <p className="muted" role="status">{message}</p>}
    </section>
  );
}
