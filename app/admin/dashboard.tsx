"use client";

import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { RunRecord } from "@/lib/runs/runs";
import type { SaleStats } from "@/lib/sale/sale";
import type { LockConfig } from "@/lib/validations/config";
import { DoubleSoldChart, OversellChart, PerformanceChart, aggregateByStrategy } from "./charts";
import { RunsTable } from "./runs-table";
import { RunProgressPanel, SaleCard } from "./sale-figures";

type FieldErrors = Record<string, string[]>;

interface Props {
  initialConfig: LockConfig;
  initialSale: SaleStats;
  initialRuns: RunRecord[];
  activeRunId: number | null;
  strategies: { name: string; safe: boolean; lab: boolean }[];
  faultsPanel: ReactNode;
}

const SALE_POLL_MS = 1500;
const RUN_POLL_MS = 500;

async function send(method: string, url: string, body?: unknown, signal?: AbortSignal) {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    signal,
  });
  if (response.status === 401) window.location.assign("/admin/login?next=/admin");
  const json = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, body: json };
}

const numberOr = (value: FormDataEntryValue | null) => (value === null || value === "" ? undefined : Number(value));

/**
 * Runs `task` now, then `intervalMs` after each run ends: under load an answer can take longer than
 * the interval, and overlapping polls would pile up and land out of order. Returns the stop.
 */
function repeat(task: (signal: AbortSignal) => Promise<void>, intervalMs: number): () => void {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    await task(controller.signal).catch(() => undefined);
    if (!controller.signal.aborted) timer = setTimeout(tick, intervalMs);
  };
  void tick();
  return () => {
    controller.abort();
    clearTimeout(timer);
  };
}

export function Dashboard({ initialConfig, initialSale, initialRuns, activeRunId, strategies, faultsPanel }: Props) {
  const [config, setConfig] = useState(initialConfig);
  const [sale, setSale] = useState(initialSale);
  const [runs, setRuns] = useState(initialRuns);
  const [activeRun, setActiveRun] = useState<RunRecord | null>(null);
  const [watching, setWatching] = useState<number | null>(activeRunId);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [mode, setMode] = useState<"requests" | "duration">("requests");

  // The sale card is fed by the poll, a reset and the end of a run: each answer is numbered when
  // asked, and one asked earlier never replaces one asked later.
  const saleAsked = useRef(0);
  const saleShown = useRef(0);
  const showSale = useCallback((asked: number, next: SaleStats) => {
    if (asked < saleShown.current) return;
    saleShown.current = asked;
    setSale(next);
  }, []);

  const refreshSale = useCallback(async (signal?: AbortSignal) => {
    const asked = ++saleAsked.current;
    const result = await send("GET", "/api/admin/sale", undefined, signal);
    if (result.ok && result.body.sale) showSale(asked, result.body.sale);
  }, [showSale]);

  useEffect(() => repeat(refreshSale, SALE_POLL_MS), [refreshSale]);

  useEffect(() => {
    if (watching === null) return;
    return repeat(async (signal) => {
      const result = await send("GET", `/api/admin/runs/${watching}`, undefined, signal);
      if (signal.aborted || !result.ok) return;
      const run = result.body.run as RunRecord;
      setActiveRun(run);
      if (run.status !== "running") {
        setWatching(null);
        const list = await send("GET", "/api/admin/runs");
        if (list.ok) setRuns(list.body.runs);
        // The run's last reservations were settled before it completed: the card shows the final count.
        void refreshSale();
      }
    }, RUN_POLL_MS);
  }, [watching, refreshSale]);

  function readKnobs(form: FormData) {
    return {
      strategy: String(form.get("strategy")),
      lockTtlMs: numberOr(form.get("lockTtlMs")),
      waitTimeoutMs: numberOr(form.get("waitTimeoutMs")),
      workMs: numberOr(form.get("workMs")),
    };
  }

  async function applyConfig(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = await send("PUT", "/api/admin/config", readKnobs(new FormData(event.currentTarget)));
    setErrors(result.body.fieldErrors ?? {});
    if (result.ok) {
      setConfig(result.body.config);
      setMessage({ kind: "ok", text: `Strategy ${result.body.config.strategy} is active on every instance.` });
      void refreshSale();
    } else setMessage({ kind: "error", text: result.body.message ?? "The config was refused." });
  }

  async function resetSale(form: HTMLFormElement) {
    const initialStock = numberOr(new FormData(form).get("initialStock"));
    const asked = ++saleAsked.current;
    const result = await send("POST", "/api/admin/sale", { initialStock });
    setErrors(result.body.fieldErrors ?? {});
    if (result.ok) {
      showSale(asked, result.body.sale);
      setMessage({ kind: "ok", text: `New sale with stock ${result.body.sale.initialStock}.` });
    } else setMessage({ kind: "error", text: result.body.message ?? "The reset was refused." });
  }

  async function startRun(form: HTMLFormElement) {
    const data = new FormData(form);
    const amount = numberOr(data.get("amount"));
    const body = {
      ...readKnobs(data),
      initialStock: numberOr(data.get("initialStock")),
      vus: numberOr(data.get("vus")),
      ...(mode === "requests" ? { totalRequests: amount } : { durationMs: amount === undefined ? undefined : amount * 1000 }),
      tool: "node",
      start: true,
    };
    const result = await send("POST", "/api/admin/runs", body);
    setErrors(result.body.fieldErrors ?? {});
    if (result.ok) {
      setMessage({ kind: "ok", text: `Run #${result.body.run.id} started with ${result.body.run.strategy}.` });
      setConfig({ ...config, ...result.body.run.knobs, strategy: result.body.run.strategy });
      setActiveRun(result.body.run);
      setWatching(result.body.run.id);
    } else setMessage({ kind: "error", text: result.body.message ?? "The run was refused." });
  }

  async function cancelRun(id: number) {
    const result = await send("POST", `/api/admin/runs/${id}/cancel`);
    if (result.ok) setActiveRun(result.body.run);
  }

  async function signOut() {
    await send("DELETE", "/api/admin/session");
    window.location.assign("/admin/login");
  }

  const aggregates = useMemo(() => aggregateByStrategy(runs), [runs]);
  const fieldError = (name: string) => errors[name]?.map((text) => <span key={text} className="field-error">{text}</span>);
  const running = activeRun?.status === "running";

  return (
    <div className="dashboard">
      <div className="toolbar">
        <h1>Admin dashboard</h1>
        <div>
          <Link href="/admin/lab" className="button-link">Pitfall lab</Link>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </div>

      {faultsPanel}

      <SaleCard sale={sale} />

      <form className="card form grid" onSubmit={applyConfig} aria-label="Strategy and knobs">
        <h2>Strategy and knobs</h2>
        <label>
          Strategy
          <select name="strategy" value={config.strategy} onChange={(e) => setConfig({ ...config, strategy: e.target.value as LockConfig["strategy"] })}>
            {strategies.map((strategy) => (
              <option key={strategy.name} value={strategy.name}>
                {strategy.name}{strategy.safe ? "" : " (unsafe)"}{strategy.lab ? " — lab variant" : ""}
              </option>
            ))}
          </select>
          {fieldError("strategy")}
        </label>
        <label>
          Lock TTL (ms)
          <input name="lockTtlMs" type="number" min={1} key={`ttl-${config.lockTtlMs}`} defaultValue={config.lockTtlMs} />
          {fieldError("lockTtlMs")}
        </label>
        <label>
          Wait timeout (ms)
          <input name="waitTimeoutMs" type="number" min={0} key={`wait-${config.waitTimeoutMs}`} defaultValue={config.waitTimeoutMs} />
          {fieldError("waitTimeoutMs")}
        </label>
        <label>
          Simulated work (ms)
          <input name="workMs" type="number" min={0} key={`work-${config.workMs}`} defaultValue={config.workMs} />
          {fieldError("workMs")}
        </label>
        <label>
          Initial stock
          <input name="initialStock" type="number" min={0} defaultValue={sale.initialStock || 100} />
          {fieldError("initialStock")}
        </label>
        <label>
          Virtual users
          <input name="vus" type="number" min={1} defaultValue={50} />
          {fieldError("vus")}
        </label>
        <label>
          Load bound
          <span className="inline">
            <select value={mode} onChange={(e) => setMode(e.target.value as "requests" | "duration")} aria-label="Load bound">
              <option value="requests">total requests</option>
              <option value="duration">duration (s)</option>
            </select>
            <input name="amount" type="number" min={1} defaultValue={mode === "requests" ? 400 : 10} key={mode} aria-label="Amount" />
          </span>
          {fieldError("totalRequests")}
          {fieldError("durationMs")}
        </label>
        <div className="actions">
          <button type="submit">Apply strategy</button>
          <button type="button" onClick={(e) => resetSale(e.currentTarget.form!)}>Reset sale</button>
          <button type="button" className="primary" disabled={running} onClick={(e) => startRun(e.currentTarget.form!)}>
            {running ? "Run in progress…" : "Start run"}
          </button>
        </div>
        {message && <p className={`notice ${message.kind === "ok" ? "bought" : "error"}`} role="status">{message.text}</p>}
      </form>

      {activeRun && <RunProgressPanel run={activeRun} onCancel={() => cancelRun(activeRun.id)} />}

      <section className="card">
        <div className="toolbar">
          <h2>Runs</h2>
          <a href="/api/admin/runs/export" className="button-link" download>Export history (CSV)</a>
        </div>
        {runs.length === 0 ? (
          <p className="empty">No runs yet — start one above.</p>
        ) : (
          <>
            <div className="charts">
              <OversellChart data={aggregates} />
              <DoubleSoldChart data={aggregates} />
              <PerformanceChart data={aggregates} />
            </div>
            <RunsTable runs={runs} />
          </>
        )}
      </section>
    </div>
  );
}
