"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import { ClockControls } from "./clock-controls";
import { LinkGrid } from "./link-grid";
import { MemberControls } from "./member-controls";
import { useErrorText } from "../../use-error-text";

/** Every fault in force, always on screen while one is, with one button to undo them all. */
export function FaultsPanel({ initial }: { initial: ActiveFaults }) {
  const t = useTranslations("faults");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const services = useTranslations("services");
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
        setMessage(t("resetDone"));
      } else setMessage(errorText(body, t("resetFailed", { status: response.status })));
    } catch {
      setMessage(tc("serverUnreachable"));
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
    <section className={`card faults${faults.any ? " active" : ""}`} aria-label={t("label")} data-testid="faults-panel">
      <div className="toolbar">
        <h2>{faults.any ? t("inForce") : t("none")}</h2>
        <button type="button" onClick={resetAll} disabled={resetting} aria-busy={resetting}>
          {resetting ? t("resetting") : t("reset")}
        </button>
      </div>
      {!faults.stackReachable && <p className="muted">{t("noStack")}</p>}
      {faults.any && (
        <ul>
          {faults.stoppedRedisNodes.map((node) => <li key={`redis-${node}`}>{t("redisStopped", { node })}</li>)}
          {faults.pausedApps.map((app) => <li key={`paused-${app}`}>{t("appPaused", { app })}</li>)}
          {faults.stoppedApps.map((app) => <li key={`stopped-${app}`}>{t("appStopped", { app })}</li>)}
          {faults.members.map((m) => (
            <li key={`${m.service}-${m.index}`}>{t("member", { service: services(m.service), index: m.index, addr: m.addr, state: m.state })}</li>
          ))}
          {delays.map(([point, ms]) => <li key={point}>{t.rich("delay", { ms, point, code: (chunks) => <code>{chunks}</code> })}</li>)}
          {faults.network.cuts.map((cut) => (
            <li key={`cut-${cut.client}-${cut.server}`} data-testid="cut-in-force">
              {t(cut.direction === "both" ? "cutBoth" : cut.direction === "to-server" ? "cutToServer" : "cutToClient", { client: cut.client, server: cut.server })}
            </li>
          ))}
          {faults.clocks.map(({ node, clock }) => (
            <li key={`clock-${node}`}>
              {t("clock", { node, offset: `${clock.offsetS >= 0 ? "+" : ""}${Math.round(clock.offsetS)}` })}
              {clock.rate !== 1 ? t("clockRate", { rate: clock.rate }) : ""}
            </li>
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
