"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import { useErrorText } from "../../use-error-text";

/** Node 1 holds the store's own state (lib/lab/fault-action.ts): its clock is the lab cards' to move, not the panel's. */
const NODES = [2, 3, 4, 5] as const;

/**
 * A Redis node's real wall clock (the node runs under libfaketime): jump it ahead or back, make it
 * run fast, or put it back. Keys' expiries follow its clock: a lock's TTL on a node whose clock
 * jumped ahead runs out early. Node 1's clock is also the holder timeline's, so jumping it moves
 * the timeline's stamps.
 */
export function ClockControls({ onDone }: { onDone: (faults: ActiveFaults | undefined, message: string) => void }) {
  const t = useTranslations("clock");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const [node, setNode] = useState(3);
  const [pending, setPending] = useState(false);

  async function act(body: Record<string, unknown>, done: string) {
    setPending(true);
    try {
      const response = await fetch("/api/admin/faults", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...body, node }) });
      const answer = await response.json().catch(() => ({}));
      onDone(answer.faults, response.ok ? done : errorText(answer, tc("refused", { status: response.status })));
    } catch {
      onDone(undefined, tc("serverUnreachable"));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="toolbar clock-controls" data-testid="clock-controls">
      <label>
        {t("label")}
        <select value={node} onChange={(event) => setNode(Number(event.target.value))}>
          {NODES.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
      <button type="button" disabled={pending} onClick={() => act({ action: "clock", jumpS: 15 }, t("jumpedAhead", { node }))}>+15 s</button>
      <button type="button" disabled={pending} onClick={() => act({ action: "clock", jumpS: -15 }, t("wentBack", { node }))}>−15 s</button>
      <button type="button" disabled={pending} onClick={() => act({ action: "clock-rate", rate: 2 }, t("runsFast", { node }))}>×2</button>
      <button type="button" disabled={pending} onClick={() => act({ action: "clock-reset" }, t("isBack", { node }))}>{t("reset")}</button>
    </div>
  );
}
