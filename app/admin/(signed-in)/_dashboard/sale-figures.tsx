import Link from "next/link";
import { useFormatter, useTranslations } from "next-intl";
import type { ReactNode } from "react";
import type { RunRecord } from "@/lib/runs/runs";
import type { SaleStats } from "@/lib/sale/sale";
import { NONE, signed } from "../runs-table";
import { StrategyBadges, StrategySplitNote, strategiesOf } from "../sale-strategy";

/**
 * The dashboard's figures, presentational only: the current sale's accounting card and a run's
 * progress panel. The live islands beside this file own the polling and pass the latest answer in.
 */
export function SaleCard({ sale, stale }: { sale: SaleStats; stale?: { readonly since: number; readonly reason: string } }) {
  const t = useTranslations("sale");
  const format = useFormatter();
  const f = useTranslations("figures");
  const meaning = useTranslations("meaning");
  return (
    <section className="card sale-card" aria-label={t("label")}>
      <div className="sale-head">
        <h2>{t("title", { id: String(sale.id) })} <StrategyBadges names={strategiesOf(sale)} /></h2>
        {/* The verdict is the card's headline: the figures below say why. */}
        <span className={`verdict big ${sale.verdict}`} title={meaning("verdict")} data-testid="sale-verdict">{sale.verdict}</span>
      </div>
      <StrategySplitNote facts={sale} />
      <div className={stale ? "stats stale" : "stats"} data-testid="sale-stats">
        <Stat label={f("initialStock")} value={sale.initialStock} />
        <Stat label={f("unitsSold")} value={sale.orders} />
        <Stat label={f("soldTwice")} value={sale.doubleSold} bad={sale.doubleSold > 0} hint={meaning("doubleSold")} testId="sale-double-sold" />
        <Stat label={f("lost")} value={sale.lostUnits} bad={sale.lostUnits > 0} hint={meaning("lostUnits")} testId="sale-lost-units" />
        <Stat label={f("phantom")} value={sale.phantomUnits} bad={sale.phantomUnits > 0} hint={meaning("phantomUnits")} testId="sale-phantom-units" />
        {sale.pendingUnits > 0 && (
          <Stat label={f("pending")} value={sale.pendingUnits} hint={meaning("pendingUnits")} testId="sale-pending-units" />
        )}
        <Stat label={f("stockLeft")} value={sale.remaining} />
        <Stat label={f("oversell")} value={signed(sale.oversell)} bad={sale.oversell > 0} hint={meaning("oversell")} testId="sale-oversell" />
        <Stat label={f("peakHolders")} value={sale.peakHolders} bad={sale.peakHolders > 1} hint={meaning("peakHolders")} />
      </div>
      {stale && (
        <p className="bad-text" role="status" data-testid="sale-stale">
          {t("figuresStale", { time: format.dateTime(new Date(stale.since), { timeStyle: "medium" }), reason: stale.reason })}
        </p>
      )}
      {sale.liveness === "stuck" && (
        <p className="bad-text" data-testid="sale-stuck">
          {t("stuck", { refused: sale.refusedSinceMoved, seconds: Math.round((sale.stuckForMs ?? 0) / 1000), remaining: sale.remaining })}
        </p>
      )}
      <p className="muted" data-testid="sale-reconciler">
        {t("reconciler", { givenBack: sale.givenBack, reconciled: sale.reconciledOrders })}
        {sale.givebacksFailed > 0 ? (
          <strong className="bad-text">{t("settlementsFailed", { count: sale.givebacksFailed })}</strong>
        ) : (
          t("noFailedSettlement")
        )}
        {t("end")}
      </p>
    </section>
  );
}

interface StatProps {
  label: string;
  value: ReactNode;
  bad?: boolean;
  /** What the figure means, shown on hover. */
  hint?: string;
  /** On the value alone, so a test reads the figure without its label. */
  testId?: string;
}

export function Stat({ label, value, bad, hint, testId }: StatProps) {
  return (
    <div className={`stat${bad ? " bad" : ""}`} title={hint}>
      <div className="value" data-testid={testId}>{value}</div>
      <div className="label">{label}</div>
    </div>
  );
}

interface RunProgressProps {
  run: RunRecord;
  onCancel: () => void;
  /** True while the cancel request is in flight. */
  cancelling?: boolean;
}

export function RunProgressPanel({ run, onCancel, cancelling = false }: RunProgressProps) {
  const t = useTranslations("runProgress");
  const f = useTranslations("figures");
  const meaning = useTranslations("meaning");
  const progress = run.progress ?? {};
  const done = run.status !== "running";
  const total = run.totalRequests ?? 0;
  const fraction = done ? 1 : total ? (progress.requests ?? 0) / total : run.durationMs ? (progress.elapsedMs ?? 0) / run.durationMs : 0;
  const percent = Math.min(100, Math.round(fraction * 100));
  const counters = done
    ? { requests: run.requests, bought: run.bought, soldOut: run.soldOut, busy: run.busy, errors: run.errors }
    : progress;
  return (
    <section className="card" aria-label={t("label")} data-testid="run-progress">
      <h2>
        {t("title", { id: String(run.id), strategy: run.strategy, status: done ? run.status : "running" })}{" "}
        {/* No verdict until the run is counted: "running", never a PASS for a run that has sold nothing yet. */}
        {done && run.verdict ? <span className={`verdict ${run.verdict}`} data-testid="run-progress-verdict">{run.verdict}</span>
          : !done && <span className="verdict RUNNING" data-testid="run-progress-verdict">{t("runningBadge")}</span>}
      </h2>
      <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div className="bar" style={{ width: `${percent}%` }} />
      </div>
      <div className="stats">
        <Stat label={f("requests")} value={counters.requests ?? 0} />
        <Stat label={f("bought")} value={counters.bought ?? 0} />
        <Stat label={f("soldOut")} value={counters.soldOut ?? 0} />
        <Stat label={f("busy")} value={counters.busy ?? 0} />
        <Stat label={f("errors")} value={counters.errors ?? 0} bad={(counters.errors ?? 0) > 0} />
        <Stat label={f("stockLeft")} value={run.remaining ?? NONE} />
        <Stat label={f("soldTwice")} value={run.doubleSold ?? NONE} bad={(run.doubleSold ?? 0) > 0} hint={meaning("doubleSold")} />
        <Stat label={f("lost")} value={run.lostUnits ?? NONE} bad={(run.lostUnits ?? 0) > 0} hint={meaning("lostUnits")} />
        <Stat label={f("peakHolders")} value={run.peakHolders ?? NONE} bad={(run.peakHolders ?? 0) > 1} hint={meaning("peakHolders")} />
        <Stat label={f("oversell")} value={signed(run.oversell)} bad={(run.oversell ?? 0) > 0} hint={meaning("oversell")} />
      </div>
      {done ? (
        <Link href={`/admin/runs/${run.id}`}>{t("open", { id: String(run.id) })}</Link>
      ) : (
        <button type="button" onClick={onCancel} disabled={cancelling} aria-busy={cancelling}>
          {cancelling ? t("cancelling") : t("cancel")}
        </button>
      )}
    </section>
  );
}
