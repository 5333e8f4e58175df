"use client";

import { useState } from "react";
import type { LiveSnapshot } from "@/lib/workshop/live";
import { dropStateAt, useLiveSnapshot } from "../use-live-snapshot";
import { JoinForm } from "./join-form";
import type { Me } from "./me";
import { WinnerList } from "./winner-list";

type Outcome =
  | { kind: "bought"; orderId: number; stockLeft: number; instance: string; unit: number }
  | { kind: "sold_out" }
  | { kind: "busy"; message: string }
  | { kind: "error"; message: string };


/** Outside workshop mode a visitor buys as an id kept in this browser. */
function browserBuyerId(): string {
  const saved = window.localStorage.getItem("lock-lab-buyer");
  if (saved) return saved;
  const created = `buyer-${Math.random().toString(36).slice(2, 10)}`;
  window.localStorage.setItem("lock-lab-buyer", created);
  return created;
}

export function BuyPanel(props: { sku: string; initial: LiveSnapshot; me: Me | null }) {
  const { snapshot, serverNow, connected } = useLiveSnapshot("/api/live", props.initial);
  const [me, setMe] = useState(props.me);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // The store asked this phone to join first (a purchase from the LAN buys as the person who joined).
  const [mustJoin, setMustJoin] = useState(false);

  const drop = dropStateAt(snapshot, serverNow);
  const inDrop = drop.state !== "none";

  async function buy() {
    setPending(true);
    try {
      const response = await fetch("/api/buy", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ buyer: me?.buyer ?? browserBuyerId(), sku: props.sku }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.status === 201) {
        setOutcome({ kind: "bought", orderId: body.order.id, stockLeft: body.stockLeft, instance: body.instance, unit: body.order.unit });
      } else if (body.code === "sold_out") {
        setOutcome({ kind: "sold_out" });
      } else if (body.code === "join_first") {
        setMe(null);
        setMustJoin(true);
        setOutcome({ kind: "error", message: "Type your name to join first: every purchase here is made by a person." });
      } else if (body.code === "busy") {
        setOutcome({ kind: "busy", message: "Too many buyers right now — the lock could not be had in time. Try again." });
      } else {
        setOutcome({ kind: "error", message: body.message ?? `The store answered ${response.status}.` });
      }
    } catch {
      setOutcome({ kind: "error", message: "The store could not be reached." });
    } finally {
      setPending(false);
    }
  }

  const soldOut = snapshot.stock <= 0;
  const waiting = drop.state === "scheduled";
  const closed = drop.state === "closed";
  const needsName = (inDrop || mustJoin) && !me && !soldOut && !closed;
  const label = soldOut ? "Sold out" : pending ? "Buying…" : waiting ? `Opens in ${drop.secondsLeft} s` : closed ? "Drop closed" : "Buy now";
  return (
    <div>
      <div className="stock" data-testid="stock">
        {soldOut ? <strong>Sold out</strong> : <><strong data-testid="stock-count">{snapshot.stock}</strong> left in stock</>}
      </div>
      <p className="muted">
        Lock strategy in use: <span className="strategy-badge" data-testid="strategy">{snapshot.strategy}</span>
        {" · "}
        <span data-testid="holders">{snapshot.holdersNow}</span> in the critical section now
        {!connected && <span className="muted"> · reconnecting…</span>}
      </p>
      {inDrop && (
        <div className={`drop-banner ${drop.state}`} data-testid="drop" aria-live="polite">
          {waiting && <>Drop of {snapshot.initialStock} opens in <strong data-testid="countdown">{drop.secondsLeft}</strong> s</>}
          {drop.state === "open" && (soldOut
            ? <>The drop is <strong data-testid="countdown">over</strong>: every unit is gone.</>
            : <>The drop is <strong data-testid="countdown">open</strong>: buy now!</>)}
          {closed && <>This drop is closed.</>}
          {snapshot.onePerBuyer && <span className="muted"> · one per buyer</span>}
        </div>
      )}
      {needsName ? (
        <JoinForm onJoined={setMe} />
      ) : (
        <>
          {me && <p className="muted">Buying as <strong data-testid="me">{me.name}</strong></p>}
          <button className="buy" onClick={buy} disabled={pending || soldOut || waiting || closed}>
            {label}
          </button>
        </>
      )}
      {outcome && (
        <div className={`notice ${outcome.kind}`} role="status" data-testid="outcome">
          {outcome.kind === "bought" && (
            <>Bought! Order <strong>#{outcome.orderId}</strong> — {outcome.stockLeft} left (served by {outcome.instance}).</>
          )}
          {outcome.kind === "sold_out" && <>Sold out — every unit has been sold.</>}
          {outcome.kind === "busy" && <>Busy: {outcome.message}</>}
          {outcome.kind === "error" && <>Error: {outcome.message}</>}
        </div>
      )}
      {snapshot.winners && <WinnerList winners={snapshot.winners} />}
    </div>
  );
}
