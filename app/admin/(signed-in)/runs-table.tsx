import Link from "next/link";
import { useTranslations } from "next-intl";
import type { RunRecord } from "@/lib/runs/runs";

/** What a figure shows when it was not recorded (runs from before the per-unit accounting). */
export const NONE = "—";

const fixed = (value: number | null, digits = 0) => (value === null ? NONE : value.toFixed(digits));

/** Oversell is signed: "+3" sold beyond the stock, "−12" left unsold, "0" sold exactly out. */
export function signed(value: number | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0";
}

const badIfPositive = (value: number | null) => ((value ?? 0) > 0 ? "bad" : "");

/** What the run's buyers were answered, non-zero counts only, after how many requests they made. */
function answers(run: RunRecord, t: ReturnType<typeof useTranslations<"runsTable">>): string {
  if (run.requests === null) return NONE;
  const parts = [[run.bought, "answerBought"], [run.soldOut, "answerSoldOut"], [run.busy, "answerBusy"], [run.errors, "answerErrors"]] as const;
  return t("answers", {
    requests: run.requests,
    told: parts.filter(([count]) => (count ?? 0) > 0).map(([count, key]) => t(key, { count: count ?? 0 })).join(" · "),
  });
}

/**
 * Exact numbers under the charts, newest run first: the verdict and what it rests on first, so they
 * are in view on a projector's 1280 px; the load's details after. Every column is in the CSV export.
 * Column tooltips say what each figure means (messages: `meaning`).
 */
export function RunsTable({ runs }: { runs: RunRecord[] }) {
  const t = useTranslations("runsTable");
  const meaning = useTranslations("meaning");
  return (
    <div className="table-scroll">
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>{t("run")}</th><th>{t("strategy")}</th>
            <th title={meaning("verdict")}>{t("verdict")}</th>
            <th title={meaning("doubleSold")}>{t("soldTwice")}</th>
            <th title={meaning("lostUnits")}>{t("lost")}</th>
            <th title={meaning("phantomUnits")}>{t("phantom")}</th>
            <th title={meaning("oversell")}>{t("oversell")}</th>
            <th title={meaning("peakHolders")}>{t("peak")}</th>
            <th>{t("orders")}</th><th>{t("left")}</th>
            <th className="answers">{t("told")}</th>
            <th>{t("rps")}</th><th>{t("p95")}</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-testid={`run-row-${run.id}`}>
              <td>
                <Link href={`/admin/runs/${run.id}`}>#{run.id}</Link>
                {run.scenario && <div className="muted small">{run.scenario}</div>}
                <div className="muted small">{t("load", { tool: run.tool, vus: run.vus })}</div>
              </td>
              <td><span className="strategy-badge">{run.strategy}</span></td>
              <td data-testid="run-verdict">
                {/* A run has no verdict until it is counted: it says so, never PASS for a run that sold nothing yet. */}
                {run.verdict ? <span className={`verdict ${run.verdict}`}>{run.verdict}</span> : <span className="verdict RUNNING">{t("status", { status: run.status })}</span>}
              </td>
              <td className={badIfPositive(run.doubleSold)} data-testid="run-double-sold">{run.doubleSold ?? NONE}</td>
              <td className={badIfPositive(run.lostUnits)} data-testid="run-lost-units">{run.lostUnits ?? NONE}</td>
              <td className={badIfPositive(run.phantomUnits)} data-testid="run-phantom-units">{run.phantomUnits ?? NONE}</td>
              <td className={badIfPositive(run.oversell)} data-testid="oversell">{signed(run.oversell)}</td>
              <td className={(run.peakHolders ?? 0) > 1 ? "bad" : ""}>{run.peakHolders ?? NONE}</td>
              <td>{run.orders ?? NONE}</td>
              <td>{run.remaining ?? NONE}</td>
              <td className="answers">{answers(run, t)}</td>
              <td>{fixed(run.throughput)}</td>
              <td>{fixed(run.p95Ms, 1)}</td>
              <td><a href={`/api/admin/runs/${run.id}/export`} download>JSON</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
