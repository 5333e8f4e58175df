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

/** Exact numbers under the charts, newest run first. Column tooltips say what each figure means (messages: `meaning`). */
export function RunsTable({ runs }: { runs: RunRecord[] }) {
  const t = useTranslations("runsTable");
  const meaning = useTranslations("meaning");
  return (
    <div className="table-scroll">
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>{t("run")}</th><th>{t("strategy")}</th><th>{t("tool")}</th><th>{t("vus")}</th><th>{t("requests")}</th><th>{t("bought")}</th>
            <th>{t("soldOut")}</th><th>{t("busy")}</th><th>{t("errors")}</th><th>{t("rps")}</th><th>{t("p95")}</th><th>{t("orders")}</th><th>{t("left")}</th>
            <th title={meaning("oversell")}>{t("oversell")}</th>
            <th title={meaning("doubleSold")}>{t("soldTwice")}</th>
            <th title={meaning("lostUnits")}>{t("lost")}</th>
            <th title={meaning("phantomUnits")}>{t("phantom")}</th>
            <th title={meaning("peakHolders")}>{t("peak")}</th>
            <th title={meaning("verdict")}>{t("verdict")}</th>
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
              <td>{run.verdict ? <span className={`verdict ${run.verdict}`}>{run.verdict}</span> : t("status", { status: run.status })}</td>
              <td><a href={`/api/admin/runs/${run.id}/export`} download>JSON</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
