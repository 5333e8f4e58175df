"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import { CLUSTER_SERVICES, MEMBER_OPS, type ClusterService as Service, type MemberOp as Op } from "@/lib/lab/members";
import { useErrorText } from "../../use-error-text";

/** Stop, start, pause, resume or kill one member of a lock service's cluster (POST /api/admin/faults). */
export function MemberControls({ onDone }: { onDone: (faults: ActiveFaults | undefined, message: string) => void }) {
  const t = useTranslations("members");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const services = useTranslations("services");
  const [service, setService] = useState<Service>("zookeeper");
  const [member, setMember] = useState(1);
  const [pending, setPending] = useState<Op | null>(null);

  async function act(op: Op) {
    setPending(op);
    try {
      const response = await fetch("/api/admin/faults", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "member", service, member, op }),
      });
      const body = await response.json().catch(() => ({}));
      onDone(body.faults, response.ok ? t("done", { service: services(service), member, op: t(op) }) : errorText(body, tc("refused", { status: response.status })));
    } catch {
      onDone(undefined, tc("serverUnreachable"));
    } finally {
      setPending(null);
    }
  }

  return (
    <div className="member-controls toolbar" data-testid="member-controls">
      <label>
        {t("service")}
        <select value={service} onChange={(event) => setService(event.target.value as Service)}>
          {CLUSTER_SERVICES.map((name) => <option key={name} value={name}>{services(name)}</option>)}
        </select>
      </label>
      <label>
        {t("member")}
        <select value={member} onChange={(event) => setMember(Number(event.target.value))}>
          {[1, 2, 3].map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
      {MEMBER_OPS.map((op) => (
        <button key={op} type="button" onClick={() => act(op)} disabled={pending !== null} aria-busy={pending === op}>
          {pending === op ? `${t(op)}…` : t(op)}
        </button>
      ))}
    </div>
  );
}
