import Link from "next/link";
import type { ReactNode } from "react";
import type { RunRecord } from "@/lib/runs/runs";
import type { SaleStats } from "@/lib/sale/sale";
import { MEANING, NONE, signed } from "../runs-table";

/**
 * The dashboard's figures, presentational only: the current sale's accounting card and a run's
 * progress panel. The live islands beside this file own the polling and pass the latest answer in.
 */
export function SaleCard({ sale }: { sale: SaleStats }) {
  return (
    <section className="card" aria-label="Current sale">
      <h2>Sale #{sale.id} <span className="strategy-badge">{sale.strategy}</span></h2>
      <div className="stats" data-testid="sale-stats">
        <Stat label="initial stock" value={sale.initialStock} />
        <Stat label="units sold (orders)" value={sale.orders} />
        <Stat label="sold twice" value={sale.doubleSold} bad={sale.doubleSold > 0} hint={MEANING.doubleSold} testId="sale-double-sold" />
        <Stat label="lost" value={sale.lostUnits} bad={sale.lostUnits > 0} hint={MEANING.lostUnits} testId="sale-lost-units" />
        <Stat label="phantom" value={sale.phantomUnits} bad={sale.phantomUnits > 0} hint={MEANING.phantomUnits} testId="sale-phantom-units" />
        {sale.pendingUnits > 0 && (
          <Stat label="pending" value={sale.pendingUnits} hint={MEANING.pendingUnits} testId="sale-pending-units" />
        )}
        <Stat label="stock left" value={sale.remaining} />
        <Stat label="oversell" value={signed(sale.oversell)} bad={sale.oversell > 0} hint={MEANING.oversell} testId="sale-oversell" />
        <Stat label="peak holders" value={sale.peakHolders} bad={sale.peakHolders > 1} hint={MEANING.peakHolders} />
        <Stat
          label="verdict"
          value={<span className={`verdict ${sale.verdict}`}>{sale.verdict}</span>}
          bad={sale.verdict !== "PASS"}
          hint={MEANING.verdict}
          testId="sale-verdict"
        />
      </div>
      {sale.liveness === "stuck" && (
        <p className="bad-text" data-testid="sale-stuck">
          STUCK: {sale.refusedSinceMoved} buyers turned away and the stock has not moved for {Math.round((sale.stuckForMs ?? 0) / 1000)} s,
          with {sale.remaining} units left. The lock (or a server it needs) has stopped serving.
        </p>
      )}
      <p className="muted" data-testid="sale-reconciler">
        Reconciler: {sale.givenBack} unit{sale.givenBack === 1 ? "" : "s"} put back on the shelf, {sale.reconciledOrders} order
        {sale.reconciledOrders === 1 ? "" : "s"} recorded for buyers whose instance failed
        {sale.givebacksFailed > 0 ? (
          <strong className="bad-text"> · {sale.givebacksFailed} settlement{sale.givebacksFailed === 1 ? "" : "s"} failed and will be retried</strong>
        ) : (
          " · no failed settlement"
        )}
        .
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
  const progress = run.progress ?? {};
  const done = run.status !== "running";
  const total = run.totalRequests ?? 0;
  const fraction = done ? 1 : total ? (progress.requests ?? 0) / total : run.durationMs ? (progress.elapsedMs ?? 0) / run.durationMs : 0;
  const percent = Math.min(100, Math.round(fraction * 100));
  const counters = done
    ? { requests: run.requests, bought: run.bought, soldOut: run.soldOut, busy: run.busy, errors: run.errors }
    : progress;
  return (
    <section className="card" aria-label="Run progress" data-testid="run-progress">
      <h2>
        Run #{run.id} — {run.strategy} {done ? `(${run.status})` : "(running)"}{" "}
        {run.verdict && <span className={`verdict ${run.verdict}`}>{run.verdict}</span>}
      </h2>
      <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div className="bar" style={{ width: `${percent}%` }} />
      </div>
      <div className="stats">
        <Stat label="requests" value={counters.requests ?? 0} />
        <Stat label="bought" value={counters.bought ?? 0} />
        <Stat label="sold out" value={counters.soldOut ?? 0} />
        <Stat label="busy" value={counters.busy ?? 0} />
        <Stat label="errors" value={counters.errors ?? 0} bad={(counters.errors ?? 0) > 0} />
        <Stat label="stock left" value={run.remaining ?? NONE} />
        <Stat label="sold twice" value={run.doubleSold ?? NONE} bad={(run.doubleSold ?? 0) > 0} hint={MEANING.doubleSold} />
        <Stat label="lost" value={run.lostUnits ?? NONE} bad={(run.lostUnits ?? 0) > 0} hint={MEANING.lostUnits} />
        <Stat label="peak holders" value={run.peakHolders ?? NONE} bad={(run.peakHolders ?? 0) > 1} hint={MEANING.peakHolders} />
        <Stat label="oversell" value={signed(run.oversell)} bad={(run.oversell ?? 0) > 0} hint={MEANING.oversell} />
      </div>
      {done ? (
        <Link href={`/admin/runs/${run.id}`}>Open run #{run.id} in detail</Link>
      ) : (
        <button type="button" onClick={onCancel} disabled={cancelling} aria-busy={cancelling}>
          {cancelling ? "Cancelling…" : "Cancel run"}
        </button>
      )}
    </section>
  );
}
