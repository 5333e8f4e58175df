"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import type { LockConfig } from "@/lib/validations/config";
import { numberOr, send, type Answer } from "./api";
import { KnobFields, RunFields, type FieldErrorMap } from "./fields";
import { useRuns } from "./run-state";
import { useSale } from "./sale-state";
import { StrategyPicker, type StrategyOption } from "./strategy-picker";
import { useErrorText } from "../../../use-error-text";

type Action = "apply" | "reset" | "start";
type Message = { kind: "ok" | "error"; text: string };

const readKnobs = (form: FormData) => ({
  strategy: String(form.get("strategy")),
  lockTtlMs: numberOr(form.get("lockTtlMs")),
  waitTimeoutMs: numberOr(form.get("waitTimeoutMs")),
  workMs: numberOr(form.get("workMs")),
  lockDelayMs: numberOr(form.get("lockDelayMs")),
});

/**
 * "Strategy and knobs": one form, three actions. Apply strategy sends the knobs to every instance,
 * Reset sale starts a new sale with the initial stock, Start run does both and drives buyers at
 * the store. While one is in flight every button waits, and the pressed one says so.
 */
export function ControlForm({ strategies, initialConfig }: { strategies: readonly StrategyOption[]; initialConfig: LockConfig }) {
  const t = useTranslations("controlForm");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const { sale, refreshSale, updateSale } = useSale();
  const { running, watch } = useRuns();
  const [config, setConfig] = useState(initialConfig);
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [message, setMessage] = useState<Message | null>(null);
  const [pending, setPending] = useState<Action | null>(null);

  /** Runs one action: every button waits until it is answered, and a network failure is said. */
  async function act(action: Action, task: () => Promise<void>) {
    if (pending) return;
    setPending(action);
    try {
      await task();
    } catch {
      setMessage({ kind: "error", text: tc("serverUnreachable") });
    } finally {
      setPending(null);
    }
  }

  /** Shows the API's answer: the field errors it lists, and `ok` or why it refused. */
  function report(result: Answer, ok: string, refused: string) {
    setErrors(result.body.fieldErrors ?? {});
    setMessage(result.ok ? { kind: "ok", text: ok } : { kind: "error", text: errorText(result.body, refused) });
  }

  function applyConfig(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const knobs = readKnobs(new FormData(event.currentTarget));
    void act("apply", async () => {
      const result = await send("PUT", "/api/admin/config", knobs);
      report(result, t("applied", { strategy: String(result.body.config?.strategy) }), t("configRefused"));
      if (!result.ok) return;
      setConfig(result.body.config);
      void refreshSale();
    });
  }

  function resetSale(form: HTMLFormElement) {
    const initialStock = numberOr(new FormData(form).get("initialStock"));
    void act("reset", async () => {
      const result = await updateSale(() => send("POST", "/api/admin/sale", { initialStock }));
      report(result, t("newSale", { stock: Number(result.body.sale?.initialStock) }), t("resetRefused"));
    });
  }

  function startRun(form: HTMLFormElement) {
    const data = new FormData(form);
    const amount = numberOr(data.get("amount"));
    const body = {
      ...readKnobs(data),
      initialStock: numberOr(data.get("initialStock")),
      vus: numberOr(data.get("vus")),
      model: data.get("model") === "open" ? "open" : "closed",
      ...(data.get("model") === "open" && { rate: numberOr(data.get("rate")) }),
      ...(data.get("bound") === "duration"
        ? { durationMs: amount === undefined ? undefined : amount * 1000 }
        : { totalRequests: amount }),
      tool: "node",
      start: true,
    };
    void act("start", async () => {
      const result = await send("POST", "/api/admin/runs", body);
      const run = result.body.run;
      report(result, t("runStarted", { id: String(run?.id), strategy: String(run?.strategy) }), t("runRefused"));
      if (!result.ok) return;
      setConfig({ ...config, ...run.knobs, strategy: run.strategy });
      watch(run);
    });
  }

  const busy = pending !== null;
  return (
    <form className="card form grid" onSubmit={applyConfig} aria-label={t("title")} aria-busy={busy}>
      <h2>{t("title")}</h2>
      <StrategyPicker
        strategies={strategies}
        value={config.strategy}
        onChange={(name) => setConfig({ ...config, strategy: name as LockConfig["strategy"] })}
        errors={errors.strategy}
      />
      <KnobFields config={config} errors={errors} />
      <RunFields initialStock={sale.initialStock || 100} errors={errors} />
      <div className="actions">
        <button type="submit" disabled={busy}>{pending === "apply" ? t("applying") : t("apply")}</button>
        <button type="button" disabled={busy} onClick={(e) => resetSale(e.currentTarget.form!)}>
          {pending === "reset" ? t("resetting") : t("reset")}
        </button>
        <button type="button" className="primary" disabled={busy || running} onClick={(e) => startRun(e.currentTarget.form!)}>
          {pending === "start" ? t("starting") : running ? t("running") : t("start")}
        </button>
      </div>
      {message && <p className={`notice ${message.kind === "ok" ? "bought" : "error"}`} role="status">{message.text}</p>}
    </form>
  );
}
