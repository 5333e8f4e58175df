"use client";

import { useCallback, useEffect, useState } from "react";

type Outcome =
  | { kind: "bought"; orderId: number; stockLeft: number; instance: string }
  | { kind: "sold_out" }
  | { kind: "busy"; message: string }
  | { kind: "error"; message: string };

const POLL_MS = 1000;

function buyerId(): string {
  const saved = window.localStorage.getItem("lock-lab-buyer");
  if (saved) return saved;
  const created = `buyer-${Math.random().toString(36).slice(2, 10)}`;
  window.localStorage.setItem("lock-lab-buyer", created);
  return created;
}

export function BuyPanel(props: { sku: string; initialStock: number; initialStrategy: string }) {
  const [stock, setStock] = useState(props.initialStock);
  const [strategy, setStrategy] = useState(props.initialStrategy);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const refresh = useCallback(async () => {
    try {
      const response = await fetch("/api/stock", { cache: "no-store" });
      if (!response.ok) return;
      const body = (await response.json()) as { stock: number; strategy: string };
      setStock(body.stock);
      setStrategy(body.strategy);
    } catch {
      // The next poll tries again; the last known stock stays on screen.
    }
  }, []);

  useEffect(() => {
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  async function buy() {
    setPending(true);
    try {
      const response = await fetch("/api/buy", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ buyer: buyerId(), sku: props.sku }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.status === 201) {
        setOutcome({ kind: "bought", orderId: body.order.id, stockLeft: body.stockLeft, instance: body.instance });
        setStock(body.stockLeft);
      } else if (body.code === "sold_out") {
        setOutcome({ kind: "sold_out" });
        setStock(0);
      } else if (body.code === "busy") {
        setOutcome({ kind: "busy", message: "Too many buyers right now — the lock could not be had in time. Try again." });
      } else {
        setOutcome({ kind: "error", message: body.message ?? `The store answered ${response.status}.` });
      }
    } catch {
      setOutcome({ kind: "error", message: "The store could not be reached." });
    } finally {
      setPending(false);
      void refresh();
    }
  }

  const soldOut = stock <= 0;
  return (
    <div>
      <div className="stock" data-testid="stock">
        {soldOut ? <strong>Sold out</strong> : <><strong data-testid="stock-count">{stock}</strong> left in stock</>}
      </div>
      <p className="muted">
        Lock strategy in use: <span className="strategy-badge" data-testid="strategy">{strategy}</span>
      </p>
      <button className="buy" onClick={buy} disabled={pending || soldOut}>
        {soldOut ? "Sold out" : pending ? "Buying…" : "Buy now"}
      </button>
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
    </div>
  );
}
