"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useId, useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import { ClockControls } from "./clock-controls";
import { LinkGrid } from "./link-grid";
import { MemberControls } from "./member-controls";
import { useErrorText } from "../../use-error-text";

type Translate = ReturnType<typeof useTranslations<"faults">>;

/** Every fault in force in a few words: "2 links cut · redis-3's clock +15 s". */
function faultSummary(faults: ActiveFaults, t: Translate, services: ReturnType<typeof useTranslations<"services">>): string {
  const delays = Object.keys(faults.delays).length;
  return [
    ...faults.stoppedRedisNodes.map((node) => t("short.redisStopped", { node })),
    ...faults.stoppedApps.map((app) => t("short.app", { app, state: "stopped" })),
    ...faults.pausedApps.map((app) => t("short.app", { app, state: "paused" })),
    ...faults.members.map((m) => t("short.member", { service: services(m.service), index: m.index, state: m.state })),
    ...(faults.network.cuts.length ? [t("short.cuts", { count: faults.network.cuts.length })] : []),
    ...faults.clocks.map(({ node, clock }) =>
      t("short.clock", { node, offset: `${clock.offsetS >= 0 ? "+" : ""}${Math.round(clock.offsetS)}` }) + (clock.rate !== 1 ? t("clockRate", { rate: clock.rate }) : "")),
    ...(delays ? [t("short.delays", { count: delays })] : []),
  ].join(" · ");
}

/**
 * The faults in force as one line, always on screen while there are any (it stays at the top of
 * the page as the page scrolls), with one button to undo them all. The controls that make faults
 * — the link grid, the clocks, the lock services' members — open on demand: the dashboard and the
 * lab open on what they are for, not on a grid of every link.
 */
export function FaultsPanel({ initial }: { initial: ActiveFaults }) {
  const t = useTranslations("faults");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const services = useTranslations("services");
  const [faults, setFaults] = useState(initial);
  const [message, setMessage] = useState<string | null>(null);
  const [resetting, setResetting] = useState(false);
  const [open, setOpen] = useState(false);
  const bodyId = useId();

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
    <section className={`card faults${faults.any ? " active" : ""}${open ? " open" : ""}`} aria-label={t("label")} data-testid="faults-panel">
      <div className="faults-bar">
        <h2>{faults.any ? t("inForce") : t("none")}</h2>
        {faults.any && <p className="faults-summary" data-testid="faults-summary">{faultSummary(faults, t, services)}</p>}
        {!faults.stackReachable && <p className="faults-summary muted">{t("noStack")}</p>}
        <div className="faults-buttons">
          <button type="button" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((shown) => !shown)} data-testid="faults-toggle">
            {open ? t("hideControls") : t("showControls")}
          </button>
          <button type="button" onClick={resetAll} disabled={resetting} aria-busy={resetting}>
            {resetting ? t("resetting") : t("reset")}
          </button>
        </div>
      </div>
      {message && <p className="muted" role="status">{message}</p>}
      <div id={bodyId} className="faults-body" hidden={!open}>
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
        {/* Kept mounted while folded: a cut drawn on the grid and not applied yet survives a fold. */}
        <LinkGrid network={faults.network} onDone={done} />
        <ClockControls onDone={done} />
        <MemberControls onDone={done} />
      </div>
    </section>
  );
}
