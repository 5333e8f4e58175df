import Link from "next/link";
import type { RunRecord } from "@/lib/runs/runs";

/** What a figure shows when it was not recorded (runs from before the per-unit accounting). */
export const NONE = "—";

const fixed = (value: number | null, digits = 0) => (value === null ? NONE : value.toFixed(digits));

/** Oversell is signed: "+3" sold beyond the stock, "−12" left unsold, "0" sold exactly out. */
export function signed(value: number | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0";
}

/** What each accounting figure means, for the column headers' and stats' tooltips. */
export const MEANING = {
  oversell: "Orders − initial stock, signed: + means more sold than existed, − means units left.",
  doubleSold: "Orders − distinct units sold: a unit sold to two buyers (or one that never existed).",
  lostUnits: "Units neither sold, nor in stock, nor pending: gone with no order.",
  phantomUnits: "Units back on the shelf after they were sold, or above the initial stock.",
  pendingUnits: "Units taken whose order is being recorded; the reconciler settles them within seconds.",
  peakHolders: "Most requests inside the critical section at once (1 for a correct lock).",
  verdict: "FAIL when at least one unit was sold twice, lost, or phantom; STUCK when buyers are turned away with stock left and nothing has moved for several wait timeouts.",
} as const;

const badIfPositive = (value: number | null) => ((value ?? 0) > 0 ? "bad" : "");

/** Exact numbers under the charts, newest run first. */
export function RunsTable({ runs }: { runs: RunRecord[] }) {
  return (
    <div className="table-scroll">
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>Run</th><th>Strategy</th><th>Tool</th><th>VUs</th><th>Requests</th><th>Bought</th><th>Sold out</th>
            <th>Busy</th><th>Errors</th><th>req/s</th><th>p95 ms</th><th>Orders</th><th>Left</th>
            <th title={MEANING.oversell}>Oversell</th>
            <th title={MEANING.doubleSold}>Sold twice</th>
            <th title={MEANING.lostUnits}>Lost</th>
            <th title={MEANING.phantomUnits}>Phantom</th>
            <th title={MEANING.peakHolders}>Peak</th>
            <th title={MEANING.verdict}>Verdict</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-testid={`run-row-${run.id}`}>
              <td><Link href={`/admin/runs/${run.id}`}>#{run.id}</Link>{run.scenario && <div className="muted small">{run.scenario}</div>}</td>
              <td><span className="strategy-badge">{run.strategy}</span></td>
              <td>{run.tool}</td>
              <td>{run.vus}</td>
              <td>{run.requests ?? NONE}</td>
              <td>{run.bought ?? NONE}</td>
              <td>{run.soldOut ?? NONE}</td>
              <td>{run.busy ?? NONE}</td>
              <td>{run.errors ?? NONE}</td>
              <td>{fixed(run.throughput)}</td>
              <td>{fixed(run.p95Ms, 1)}</td>
              <td>{run.orders ?? NONE}</td>
              <td>{run.remaining ?? NONE}</td>
              <td className={badIfPositive(run.oversell)} data-testid="oversell">{signed(run.oversell)}</td>
              <td className={badIfPositive(run.doubleSold)} data-testid="run-double-sold">{run.doubleSold ?? NONE}</td>
              <td className={badIfPositive(run.lostUnits)} data-testid="run-lost-units">{run.lostUnits ?? NONE}</td>
              <td className={badIfPositive(run.phantomUnits)} data-testid="run-phantom-units">{run.phantomUnits ?? NONE}</td>
              <td className={(run.peakHolders ?? 0) > 1 ? "bad" : ""}>{run.peakHolders ?? NONE}</td>
              <td>{run.verdict ? <span className={`verdict ${run.verdict}`}>{run.verdict}</span> : run.status}</td>
              <td><a href={`/api/admin/runs/${run.id}/export`} download>JSON</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
