"use client";

import { useState, type ReactNode } from "react";
import type { LockConfig } from "@/lib/validations/config";

/** The API's 400 answer, per field: { lockTtlMs: ["must be at least 1"] }. */
export type FieldErrorMap = Record<string, string[]>;

export function FieldErrors({ messages }: { messages?: string[] }) {
  return messages?.map((text) => <span key={text} className="field-error">{text}</span>);
}

/** A labelled control with its errors under it: the <label> wraps the control, so it names it. */
function Field({ label, errors, children }: { label: string; errors?: string[]; children: ReactNode }) {
  return (
    <label>
      {label}
      {children}
      <FieldErrors messages={errors} />
    </label>
  );
}

/**
 * The lock's knobs. Uncontrolled; keyed by the applied value, so they show what the server
 * accepted after Apply or Start run.
 */
export function KnobFields({ config, errors }: { config: LockConfig; errors: FieldErrorMap }) {
  return (
    <>
      <Field label="Lock TTL (ms)" errors={errors.lockTtlMs}>
        <input name="lockTtlMs" type="number" min={1} key={`ttl-${config.lockTtlMs}`} defaultValue={config.lockTtlMs} />
      </Field>
      <Field label="Wait timeout (ms)" errors={errors.waitTimeoutMs}>
        <input name="waitTimeoutMs" type="number" min={0} key={`wait-${config.waitTimeoutMs}`} defaultValue={config.waitTimeoutMs} />
      </Field>
      <Field label="Simulated work (ms)" errors={errors.workMs}>
        <input name="workMs" type="number" min={0} key={`work-${config.workMs}`} defaultValue={config.workMs} />
      </Field>
      <Field label="Lock-delay (ms, zookeeper/etcd)" errors={errors.lockDelayMs}>
        <input name="lockDelayMs" type="number" min={0} key={`delay-${config.lockDelayMs}`} defaultValue={config.lockDelayMs} />
      </Field>
    </>
  );
}

/** The sale and the load of a run: the stock to sell, how many buyers, and for how long. */
export function RunFields({ initialStock, errors }: { initialStock: number; errors: FieldErrorMap }) {
  const [bound, setBound] = useState<"requests" | "duration">("requests");
  const [model, setModel] = useState<"closed" | "open">("closed");
  return (
    <>
      <Field label="Initial stock" errors={errors.initialStock}>
        <input name="initialStock" type="number" min={0} defaultValue={initialStock} />
      </Field>
      <Field label="Load model" errors={errors.model}>
        <select name="model" value={model} onChange={(e) => setModel(e.target.value as typeof model)}>
          <option value="closed">closed: a fixed pool buying back to back</option>
          <option value="open">open: buyers arrive at a rate (a sale opening)</option>
        </select>
      </Field>
      {model === "open" && (
        <Field label="Arrival rate (buyers/s)" errors={errors.rate}>
          <input name="rate" type="number" min={1} defaultValue={200} />
        </Field>
      )}
      <Field label={model === "open" ? "Most buyers in flight" : "Virtual users"} errors={errors.vus}>
        <input name="vus" type="number" min={1} defaultValue={50} />
      </Field>
      <Field label="Load bound" errors={[...(errors.totalRequests ?? []), ...(errors.durationMs ?? [])]}>
        <span className="inline">
          <select name="bound" value={bound} onChange={(e) => setBound(e.target.value as typeof bound)} aria-label="Load bound">
            <option value="requests">total requests</option>
            <option value="duration">duration (s)</option>
          </select>
          <input name="amount" type="number" min={1} defaultValue={bound === "requests" ? 400 : 10} key={bound} aria-label="Amount" />
        </span>
      </Field>
    </>
  );
}
