import type { RunRecord } from "@/lib/runs/runs";

const fixed = (value: number | null, digits = 0) => (value === null ? "–" : value.toFixed(digits));

/** Exact numbers under the charts, newest run first. */
export function RunsTable({ runs }: { runs: RunRecord[] }) {
  return (
    <div className="table-scroll">
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>Run</th><th>Strategy</th><th>Tool</th><th>VUs</th><th>Requests</th><th>Bought</th><th>Sold out</th>
            <th>Busy</th><th>Errors</th><th>req/s</th><th>p95 ms</th><th>Orders</th><th>Left</th><th>Oversell</th>
            <th>Lost</th><th>Peak</th><th>Verdict</th><th></th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-testid={`run-row-${run.id}`}>
              <td><a href={`/admin/runs/${run.id}`}>#{run.id}</a>{run.scenario && <div className="muted small">{run.scenario}</div>}</td>
              <td><span className="strategy-badge">{run.strategy}</span></td>
              <td>{run.tool}</td>
              <td>{run.vus}</td>
              <td>{run.requests ?? "–"}</td>
              <td>{run.bought ?? "–"}</td>
              <td>{run.soldOut ?? "–"}</td>
              <td>{run.busy ?? "–"}</td>
              <td>{run.errors ?? "–"}</td>
              <td>{fixed(run.throughput)}</td>
              <td>{fixed(run.p95Ms, 1)}</td>
              <td>{run.orders ?? "–"}</td>
              <td>{run.remaining ?? "–"}</td>
              <td className={(run.oversell ?? 0) > 0 ? "bad" : ""} data-testid="oversell">{run.oversell ?? "–"}</td>
              <td className={(run.lostStock ?? 0) > 0 ? "bad" : ""}>{run.lostStock ?? "–"}</td>
              <td>{run.peakHolders ?? "–"}</td>
              <td>{run.verdict ? <span className={`verdict ${run.verdict}`}>{run.verdict}</span> : run.status}</td>
              <td><a href={`/api/admin/runs/${run.id}/export`} download>JSON</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
