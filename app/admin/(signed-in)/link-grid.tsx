"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import type { ActiveFaults } from "@/lib/lab/fault-actions";
import type { Cut } from "@/lib/stack/control";
import { useErrorText } from "../../use-error-text";

type Direction = Cut["direction"];

/** What one click on a cell does: none → both ways → client to server only → server to client only → none. */
const NEXT: Record<Direction | "none", Direction | "none"> = { none: "both", both: "to-server", "to-server": "to-client", "to-client": "none" };
const GLYPH: Record<Direction | "none", string> = { none: "·", both: "✕", "to-server": "→✕", "to-client": "✕←" };

/** The clients an instructor cuts most, first; the rest after. */
const CLIENT_ORDER = (name: string) => (name.startsWith("app-") ? 0 : name.startsWith("sentinel-") ? 1 : name === "replica" || name.startsWith("sentinel-redis") ? 2 : 3);
const SERVER_ORDER = (name: string) =>
  name.startsWith("redis-") ? 0 : name === "primary" || name === "replica" || name.startsWith("sentinel-redis") ? 1 : name.startsWith("sentinel-") ? 2
    : name.startsWith("zookeeper") ? 3 : name.startsWith("etcd") ? 4 : 5;
const byOrder = (order: (name: string) => number) => (a: { name: string }, b: { name: string }) => order(a.name) - order(b.name) || a.name.localeCompare(b.name, "en", { numeric: true });

const key = (client: string, server: string) => `${client} ${server}`;

/** A server's service and its number in it: "redis-cluster-3" → ["redis-cluster", "3"]; "pgbouncer" → ["pgbouncer", ""]. */
function serviceOf(name: string): [service: string, member: string] {
  const match = /^(.*)-(\d+)$/.exec(name);
  return match ? [match[1]!, match[2]!] : [name, ""];
}

/** How a service's columns are headed: its servers' own prefix, but the product's name for Redis in cluster mode. */
const SERVICE_LABEL: Readonly<Record<string, string>> = { "redis-cluster": "Redis Cluster" };

/** The servers, in order, grouped under their service: one heading spans a service's columns. */
function groupByService(servers: readonly { readonly name: string }[]): { service: string; count: number }[] {
  const groups: { service: string; count: number }[] = [];
  for (const server of servers) {
    const [service] = serviceOf(server.name);
    const last = groups[groups.length - 1];
    if (last?.service === service) last.count += 1;
    else groups.push({ service, count: 1 });
  }
  return groups;
}

/**
 * The network's links as a grid, clients down, servers across: each cell a link, clicked through
 * linked → cut both ways → one way → the other way. "Apply" sends the grid as one grudge (Jepsen's
 * word: the set of cuts in force, all at once), "Heal all" lifts every cut. Cuts are real packet
 * drops: connections stay open and calls hang until their own timeouts.
 */
export function LinkGrid({ network, onDone }: { network: ActiveFaults["network"]; onDone: (faults: ActiveFaults | undefined, message: string) => void }) {
  const t = useTranslations("linkGrid");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const inForce = new Map(network.cuts.map((cut) => [key(cut.client, cut.server), cut.direction] as const));
  const [draft, setDraft] = useState<Map<string, Direction> | null>(null);
  const [pending, setPending] = useState(false);
  const cells = draft ?? inForce;
  const clients = [...network.clients].sort(byOrder(CLIENT_ORDER));
  const servers = [...network.servers].filter((server) => !server.name.endsWith("-peer")).sort(byOrder(SERVER_ORDER));

  if (!network.available) {
    // The runner's reason in the reader's words (what this machine lacks), its English when it is one
    // this page does not know, else ours: it did not answer.
    const reason = network.reasonCode === "nft_failed" ? t("why.nft_failed", { detail: network.reason ?? "" })
      : network.reasonCode ? t(`why.${network.reasonCode}`) : network.reason ?? t("noControl");
    return <p className="muted" data-testid="link-grid-unavailable">{t("unavailable", { reason })}</p>;
  }

  function toggle(client: string, server: string) {
    const next = new Map(cells);
    const now = next.get(key(client, server)) ?? "none";
    const then = NEXT[now];
    if (then === "none") next.delete(key(client, server));
    else next.set(key(client, server), then);
    setDraft(next);
  }

  async function send(body: unknown, done: string) {
    setPending(true);
    try {
      const response = await fetch("/api/admin/faults", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const answer = await response.json().catch(() => ({}));
      if (response.ok) setDraft(null);
      onDone(answer.faults, response.ok ? done : errorText(answer, tc("refused", { status: response.status })));
    } catch {
      onDone(undefined, tc("serverUnreachable"));
    } finally {
      setPending(false);
    }
  }

  const cuts = [...cells].map(([link, direction]) => {
    const [client, server] = link.split(" ") as [string, string];
    return { client, server, direction };
  });
  const changed = draft !== null;
  return (
    <div className="link-grid" data-testid="link-grid">
      <h3>{t("title")}</h3>
      <div className="link-grid-scroll">
        <table>
          {/* Servers across, grouped by service (a heading per service, the member's number per column), so
              every server fits a projector's width; each cell's label still names both ends in full. */}
          <thead>
            <tr>
              <th scope="col" rowSpan={2} className="corner">{t("corner")}</th>
              {groupByService(servers).map((group) => (
                <th key={group.service} scope="colgroup" colSpan={group.count} className="service">{SERVICE_LABEL[group.service] ?? group.service}</th>
              ))}
            </tr>
            <tr>
              {servers.map((server) => (
                <th key={server.name} scope="col" className="member" title={`${server.name} · ${t("ports", { ports: server.ports.join(", ") })}`}
                  aria-label={server.name}>
                  {serviceOf(server.name)[1] || "·"}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {clients.map((client) => (
              <tr key={client.name}>
                <th scope="row">{client.name}</th>
                {servers.map((server) => {
                  if (server.name === client.name) return <td key={server.name} className="self" aria-hidden="true" />;
                  const state = cells.get(key(client.name, server.name)) ?? "none";
                  return (
                    <td key={server.name} className={state === "none" ? "" : "cut"}>
                      <button type="button" disabled={pending} onClick={() => toggle(client.name, server.name)}
                        aria-label={t("cell", { client: client.name, server: server.name, state: t(state) })} title={t(state)} data-testid={`link-${client.name}-${server.name}`}>
                        {GLYPH[state]}
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="toolbar">
        <button type="button" disabled={pending || !changed || cuts.length === 0} onClick={() => send({ action: "grudge", cuts }, t("applied", { count: cuts.length }))}>
          {t("apply")}
        </button>
        <button type="button" disabled={pending || (network.cuts.length === 0 && !changed)}
          onClick={() => (network.cuts.length ? send({ action: "heal" }, t("healed")) : setDraft(null))}>
          {t("heal")}
        </button>
        {changed && <span className="muted">{t("notApplied")}</span>}
      </div>
    </div>
  );
}
