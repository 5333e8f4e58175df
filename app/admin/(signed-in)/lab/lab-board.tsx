"use client";

import Link from "next/link";
import { useFormatter, useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { LOCALE_HEADER } from "@/lib/i18n/locales";
import type { CaseOutcome, LabRunRecord } from "@/lib/lab/lab-runs";
import type { LabScenario } from "@/lib/lab/scenario-types";
import { NONE, signed } from "../runs-table";
import { useErrorText } from "../../../use-error-text";

interface Props {
  /** The cards in the page's language (lib/lab/card-text.ts). */
  scenarios: readonly LabScenario[];
  activeLabRunId: number | null;
  /** Each scenario's latest lab run, so outcomes survive a reload. */
  lastRuns: Record<string, LabRunRecord>;
}

const badIfPositive = (value: number | undefined) => ((value ?? 0) > 0 ? "bad" : "");

type Translate = ReturnType<typeof useTranslations<"lab">>;

/** What the case's buyers were answered, non-zero counts only: fits a projector better than six columns. */
function answers(outcome: CaseOutcome, t: Translate): string {
  const parts = [
    [outcome.bought, "answersBought"], [outcome.soldOut, "answersSoldOut"], [outcome.busy, "answersBusy"], [outcome.unavailable, "answersUnavailable"],
    [outcome.lockLost, "answersLockLost"], [outcome.errors, "answersErrors"], [outcome.staleRefused, "answersStaleRefused"],
  ] as const;
  return parts.filter(([count]) => count > 0).map(([count, key]) => t(key, { count })).join(" · ") || t("answersNone");
}

export function LabBoard({ scenarios, activeLabRunId, lastRuns }: Props) {
  const t = useTranslations("lab");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const pitfalls = useTranslations("pitfalls");
  const meaning = useTranslations("meaning");
  const format = useFormatter();
  const locale = useLocale();
  const [runs, setRuns] = useState<Record<string, LabRunRecord>>(lastRuns);
  const [watching, setWatching] = useState<number | null>(activeLabRunId);
  const [error, setError] = useState<string | null>(null);
  /** The scenario whose Run request is in flight. */
  const [starting, setStarting] = useState<string | null>(null);

  useEffect(() => {
    if (watching === null) return;
    let stopped = false;
    const poll = async () => {
      // In the page's language: a case's error is said in it (the route translates it by its code).
      const response = await fetch(`/api/admin/lab/runs/${watching}`, { cache: "no-store", headers: { [LOCALE_HEADER]: locale } });
      if (stopped || !response.ok) return;
      const labRun = (await response.json()).labRun as LabRunRecord;
      setRuns((current) => ({ ...current, [labRun.scenarioId]: labRun }));
      if (labRun.status !== "running") setWatching(null);
    };
    void poll();
    const timer = setInterval(poll, 500);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [watching, locale]);

  async function run(scenario: LabScenario) {
    setError(null);
    setStarting(String(scenario.id));
    try {
      const response = await fetch(`/api/admin/lab/scenarios/${scenario.id}/run`, {
        method: "POST",
        headers: { "content-type": "application/json" },
      });
      const body = await response.json().catch(() => ({}));
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- a full load: no signed-in page stays in the router's cache
      if (response.status === 401) window.location.assign("/admin/login?next=/admin/lab");
      if (!response.ok) {
        setError(errorText(body, t("runRefused", { status: response.status })));
        return;
      }
      setRuns((current) => ({ ...current, [String(scenario.id)]: body.labRun }));
      setWatching(body.labRun.id);
    } catch {
      setError(tc("serverUnreachable"));
    } finally {
      setStarting(null);
    }
  }

  return (
    <div className="lab">
      {error && <p className="notice error" role="alert">{error}</p>}
      {scenarios.map((scenario) => {
        const isStarting = starting === String(scenario.id);
        // While this card's Run request is out, its last run's verdicts are not shown as if they were the new run's.
        const labRun = isStarting ? undefined : runs[String(scenario.id)];
        const running = labRun?.status === "running";
        return (
          <article className="card scenario" key={String(scenario.id)} data-testid={`scenario-${scenario.id}`}>
            <div className="toolbar">
              <h2>{typeof scenario.id === "number" ? `${scenario.id}. ` : ""}{scenario.title}</h2>
              <button
                type="button"
                className="primary"
                disabled={watching !== null || starting !== null}
                aria-busy={isStarting || running}
                onClick={() => run(scenario)}
              >
                {isStarting ? t("starting") : running ? t("running") : t("run")}
              </button>
            </div>
            <p><strong>{t("tried")}</strong> {scenario.tried}</p>
            <p><strong>{t("predict")}</strong> {scenario.predict}</p>
            {/* The outcome first and wide enough to read in three lines; the load's side figures share the answers' cell. */}
            <div className="table-scroll">
            <table className="cases">
              <thead>
                <tr>
                  <th>{t("case")}</th><th className="outcome">{t("outcome")}</th>
                  <th title={meaning("verdict")}>{t("safety")}</th>
                  <th title={meaning("doubleSold")}>{t("soldTwice")}</th>
                  <th title={meaning("lostUnits")}>{t("lost")}</th>
                  <th title={meaning("phantomUnits")}>{t("phantom")}</th>
                  <th title={meaning("oversell")}>{t("oversell")}</th>
                  <th title={meaning("peakHolders")}>{t("peakHolders")}</th>
                  <th>{t("orders")}</th>
                  <th className="told">{t("told")}</th><th>{t("timeline")}</th>
                </tr>
              </thead>
              <tbody>
                {scenario.cases.map((labCase, index) => {
                  const entry = labRun?.cases[index];
                  const outcome = entry?.outcome;
                  return (
                    <tr key={labCase.id} data-testid={`case-${scenario.id}-${labCase.id}`}>
                      <td className="case">
                        {labCase.label}
                        <div className="muted small">{labCase.expect === "pitfall" ? t("expectPitfall") : t("expectFix")}</div>
                      </td>
                      <td data-testid="verdict" className={`outcome ${outcome ? (outcome.pitfallAppeared ? "bad" : "good") : ""}`}>
                        {outcome ? (
                          <>
                            {outcome.pitfallAppeared ? t("pitfallAppeared") : t("fixHeld")}
                            {outcome.observed.length > 0 && <span className="muted"> ({format.list(outcome.observed.map((pitfall) => pitfalls(pitfall)), { type: "conjunction" })})</span>}
                            {" "}{outcome.asExpected ? t("asPredicted") : t("notAsPredicted")}
                            {outcome.notFormed?.length ? <span className="muted" data-testid="not-formed" title={t("playedAgainWhy")}> — {t("playedAgain", { count: outcome.notFormed.length })}</span> : null}
                          </>
                        ) : entry?.status === "running" ? t("caseRunning") : entry?.status === "error" ? t("caseError", { error: entry.error ?? "" }) : entry ? t("caseWaiting") : NONE}
                      </td>
                      <td data-testid="safety">{outcome ? <span className={`verdict ${outcome.safety}`}>{outcome.safety}</span> : NONE}</td>
                      <td className={badIfPositive(outcome?.doubleSold)}>{outcome?.doubleSold ?? NONE}</td>
                      <td className={badIfPositive(outcome?.lostUnits)}>{outcome?.lostUnits ?? NONE}</td>
                      <td className={badIfPositive(outcome?.phantomUnits)}>{outcome?.phantomUnits ?? NONE}</td>
                      <td className={badIfPositive(outcome?.oversell)}>{signed(outcome?.oversell)}</td>
                      <td>{outcome?.peakHolders ?? NONE}</td>
                      <td>{outcome?.orders ?? NONE}</td>
                      <td className="told">
                        <span data-testid="answers">{outcome ? answers(outcome, t) : NONE}</span>
                        {outcome && (
                          <div className="muted small">{t("sideFigures", { buys: outcome.purchasesPerSecond ?? 0, connections: outcome.maxPgConnections ?? 0 })}</div>
                        )}
                      </td>
                      <td>
                        {entry?.saleId ? (
                          <Link href={`/admin/sales/${entry.saleId}/timeline`} data-testid="timeline-link">
                            {entry.status === "running" ? t("watchLive") : t("open")}
                          </Link>
                        ) : NONE}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            </div>
            {labRun?.error && <p className="notice error">{labRun.error}</p>}
          </article>
        );
      })}
    </div>
  );
}
