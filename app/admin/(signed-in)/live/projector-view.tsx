"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { Exposure } from "@/lib/workshop/exposure";
import type { AdminLiveSnapshot } from "@/lib/workshop/live";
import { WinnerList } from "../../../(store)/winner-list";
import { dropStateAt, useLiveSnapshot } from "../../../use-live-snapshot";
import { LiveTimeline } from "./live-timeline";

interface StrategyOption {
  readonly name: string;
  readonly safe: boolean;
}

/** Everything on the projector updates from the admin event stream; only the instructor's buttons send requests. */
export function ProjectorView(props: { initial: AdminLiveSnapshot; exposure: Exposure; qr: string; strategies: readonly StrategyOption[] }) {
  const { snapshot, serverNow, connected } = useLiveSnapshot("/api/admin/live", props.initial);
  const drop = dropStateAt(snapshot, serverNow);
  const acc = snapshot.accounting;
  return (
    <div className="projector-grid">
      <section className="card join-card">
        <h2>Join the drop</h2>
        {/* The SVG is made on the server from our own URL by the qrcode package. */}
        {props.qr && <div className="qr" aria-label={`QR code for ${props.exposure.storeUrls[0]}`} dangerouslySetInnerHTML={{ __html: props.qr }} />}
        <ul className="join-urls" data-testid="join-urls">
          {props.exposure.storeUrls.map((url) => <li key={url}><code>{url}</code></li>)}
        </ul>
        <p className="muted">
          {props.exposure.lan
            ? `The store is on the LAN; the admin pages ${props.exposure.adminFromLan ? "are too (opted in)" : "answer on this machine only"}.`
            : "The store listens on this machine only: start the demo with npm run demo -- --lan to let phones in."}
        </p>
        <p className="muted"><span data-testid="joined">{snapshot.joined}</span> joined</p>
      </section>

      <section className="card drop-card">
        <div className={`countdown ${drop.state}`} data-testid="projector-countdown" aria-live="polite">
          {drop.state === "none" && "No drop yet"}
          {drop.state === "scheduled" && <>Opens in {drop.secondsLeft} s</>}
          {drop.state === "open" && (snapshot.stock > 0 ? "OPEN" : "Sold out")}
          {drop.state === "closed" && "Closed"}
        </div>
        <div className="big-figures">
          <div><span className="figure" data-testid="projector-stock">{snapshot.stock}</span><span className="caption">left of {snapshot.initialStock}</span></div>
          <div><span className="figure" data-testid="projector-holders">{snapshot.holdersNow}</span><span className="caption">in the critical section</span></div>
        </div>
        <p className="muted">
          Strategy <span className="strategy-badge" data-testid="projector-strategy">{snapshot.strategy}</span> · work {snapshot.workMs} ms
          {snapshot.onePerBuyer && " · one per buyer"}
          {!connected && " · reconnecting…"}
        </p>
        <DropForm strategies={props.strategies} current={snapshot.strategy} workMs={snapshot.workMs} canClose={drop.state === "open" || drop.state === "scheduled"} />
      </section>

      <section className="card accounting-card" aria-label="Accounting">
        <h2>The accounting <span className={`verdict ${acc.verdict}`} data-testid="acc-verdict">{acc.verdict}</span></h2>
        <dl className="accounting">
          <dt>Units sold (orders)</dt><dd data-testid="acc-orders">{acc.orders}</dd>
          <dt>Sold twice</dt><dd data-testid="acc-double-sold" className={acc.doubleSold ? "bad" : undefined}>{acc.doubleSold}</dd>
          <dt>Lost</dt><dd data-testid="acc-lost" className={acc.lostUnits ? "bad" : undefined}>{acc.lostUnits}</dd>
          <dt>Pending</dt><dd>{acc.pendingUnits}</dd>
          <dt>Peak holders</dt><dd>{acc.peakHolders}</dd>
          {snapshot.onePerBuyer && (<><dt>Buyers with two orders</dt><dd data-testid="acc-two-orders" className={acc.buyersWithTwoOrders ? "bad" : undefined}>{acc.buyersWithTwoOrders}</dd></>)}
        </dl>
        {acc.liveness === "stuck" && (
          <p className="bad-text" data-testid="acc-stuck">
            STUCK: buyers are turned away and nothing has sold for {Math.round((acc.stuckForMs ?? 0) / 1000)} s, with stock left.
          </p>
        )}
        <p className="muted">Counted per unit from the orders in Postgres and the Redis stock, never from a difference.</p>
        <Link href={`/admin/sales/${snapshot.saleId}/timeline`} className="button-link" data-testid="timeline-link">Holder timeline of sale #{snapshot.saleId}</Link>
      </section>

      <section className="card winners-card">
        {snapshot.winners ? <WinnerList winners={snapshot.winners} /> : <p className="muted">Who got one appears here once the drop opens.</p>}
      </section>

      <section className="card timeline-card" aria-label="Holder timeline">
        <h2>Holder timeline</h2>
        <LiveTimeline key={snapshot.saleId} saleId={snapshot.saleId} changeKey={`${acc.orders}:${snapshot.holdersNow}:${snapshot.stock}:${acc.pendingUnits}`} />
      </section>
    </div>
  );
}

function DropForm(props: { strategies: readonly StrategyOption[]; current: string; workMs: number; canClose: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function send(method: "POST" | "DELETE", body?: unknown) {
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/admin/drop", {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => ({}));
        const fields = answer.fieldErrors ? ` (${Object.entries(answer.fieldErrors).map(([k, v]) => `${k}: ${(v as string[]).join(", ")}`).join("; ")})` : "";
        setError(`${answer.message ?? `The server answered ${response.status}.`}${fields}`);
      }
    } catch {
      setError("The server could not be reached.");
    } finally {
      setPending(false);
    }
  }

  function start(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void send("POST", {
      stock: Number(form.get("stock")),
      countdownS: Number(form.get("countdownS")),
      strategy: String(form.get("strategy")),
      workMs: Number(form.get("workMs")),
      onePerBuyer: form.get("onePerBuyer") === "on",
    });
  }

  return (
    <form className="drop-form" onSubmit={start} aria-label="Start a drop">
      <label>Units <input name="stock" type="number" min={1} max={10000} defaultValue={10} required /></label>
      <label>Countdown (s) <input name="countdownS" type="number" min={0} max={600} defaultValue={10} required /></label>
      <label>
        Strategy{" "}
        <select name="strategy" defaultValue={props.current}>
          {props.strategies.map((s) => <option key={s.name} value={s.name}>{s.name}{s.safe ? "" : " (unsafe)"}</option>)}
        </select>
      </label>
      <label>Work (ms) <input name="workMs" type="number" min={0} max={60000} defaultValue={props.workMs} required /></label>
      <label className="check"><input name="onePerBuyer" type="checkbox" /> One per buyer</label>
      <div className="drop-buttons">
        <button type="submit" disabled={pending}>Start drop</button>
        <button type="button" disabled={pending || !props.canClose} onClick={() => void send("DELETE")}>Close drop</button>
      </div>
      {error && <p className="field-error" role="alert">{error}</p>}
    </form>
  );
}
