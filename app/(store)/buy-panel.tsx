"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState, type ReactNode } from "react";
import { isGatewayCode } from "@/lib/i18n/gateway";
import { LOCALE_HEADER, type Locale } from "@/lib/i18n/locales";
import type { LiveSnapshot } from "@/lib/workshop/live";
import { dropStateAt, useLiveSnapshot } from "../use-live-snapshot";
import { usePinnedLocale } from "../use-pinned-locale";
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

/** `pinned`: the room's language the page was rendered in, if the instructor pinned one. */
export function BuyPanel(props: { sku: string; initial: LiveSnapshot; me: Me | null; pinned: Locale | null }) {
  const t = useTranslations("store");
  const tc = useTranslations("common");
  const locale = useLocale();
  const { snapshot, serverNow, connected } = useLiveSnapshot("/api/live", props.initial);
  usePinnedLocale(props.pinned, snapshot.locale);
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
        // The API answers in the language this page shows (a pinned room language included).
        headers: { "content-type": "application/json", [LOCALE_HEADER]: locale },
        body: JSON.stringify({ buyer: me?.buyer ?? browserBuyerId(), sku: props.sku }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.status === 201) {
        setOutcome({ kind: "bought", orderId: body.order.id, stockLeft: body.stockLeft, instance: body.instance, unit: body.order.unit });
      } else if (body.code === "sold_out") {
        setOutcome({ kind: "sold_out" });
      } else if (body.code === "join_first" || body.code === "joined_elsewhere") {
        // Not (or no longer) a person here: the join form comes back, with the store's reason.
        setMe(null);
        setMustJoin(true);
        setOutcome({ kind: "error", message: body.code === "joined_elsewhere" && typeof body.message === "string" ? body.message : t("joinFirst") });
      } else if (body.code === "busy") {
        setOutcome({ kind: "busy", message: t("busy") });
      } else {
        // nginx's own answers (its limit, no instance up) are said in this page's language, by code.
        const code: unknown = body.code;
        const message = isGatewayCode(code) ? tc(`gateway.${code}`) : body.message;
        setOutcome({ kind: "error", message: message ?? tc("storeAnswered", { status: response.status }) });
      }
    } catch {
      setOutcome({ kind: "error", message: tc("storeUnreachable") });
    } finally {
      setPending(false);
    }
  }

  const soldOut = snapshot.stock <= 0;
  const waiting = drop.state === "scheduled";
  const closed = drop.state === "closed";
  const needsName = (inDrop || mustJoin) && !me && !soldOut && !closed;
  const label = soldOut ? t("soldOut") : pending ? t("buttonBuying") : waiting ? t("buttonOpensIn", { seconds: drop.secondsLeft })
    : closed ? t("buttonDropClosed") : t("buttonBuyNow");
  // Each state of the button looks different at a glance: waiting for the countdown, buying, over.
  const buttonState = pending ? "buying" : soldOut || closed ? "over" : waiting ? "waiting" : "ready";
  const countdown = (chunks: ReactNode) => <strong data-testid="countdown">{chunks}</strong>;
  return (
    <div>
      <div className="stock" data-testid="stock">
        {soldOut ? <strong>{t("soldOut")}</strong> : t.rich("leftInStock", { count: snapshot.stock, stock: (chunks) => <strong data-testid="stock-count">{chunks}</strong> })}
      </div>
      <p className="muted strategy-in-use">
        {t.rich("strategyInUse", {
          strategy: snapshot.strategy,
          holdersNow: snapshot.holdersNow,
          badge: (chunks) => <span className="strategy-badge" data-testid="strategy">{chunks}</span>,
          holders: (chunks) => <span data-testid="holders">{chunks}</span>,
        })}
        {!connected && <span className="muted"> · {tc("reconnecting")}</span>}
      </p>
      {inDrop && (
        <div className={`drop-banner ${drop.state === "open" && soldOut ? "closed" : drop.state}`} data-testid="drop" aria-live="polite">
          {waiting && t.rich("dropOpensIn", { units: snapshot.initialStock, seconds: drop.secondsLeft, countdown })}
          {drop.state === "open" && (soldOut ? t.rich("dropOver", { countdown }) : t.rich("dropOpen", { countdown }))}
          {closed && t("dropClosed")}
          {snapshot.onePerBuyer && <span className="muted"> · {t("onePerBuyer")}</span>}
        </div>
      )}
      {needsName ? (
        <JoinForm onJoined={setMe} />
      ) : (
        <div className="buy-box">
          {me && <p className="muted">{t.rich("buyingAs", { name: me.name, me: (chunks) => <strong data-testid="me">{chunks}</strong> })}</p>}
          <button className={`buy ${buttonState}`} onClick={buy} disabled={pending || soldOut || waiting || closed} aria-busy={pending}>
            {label}
          </button>
        </div>
      )}
      {/* The answer to a tap, right under the button (where the thumb is), in a live region that is always
          there so a screen reader announces each new answer. */}
      <div className="outcome-slot" role="status" aria-live="polite">
        {outcome && (
          <div className={`notice ${outcome.kind}`} data-testid="outcome">
            {outcome.kind === "bought" &&
              t.rich("bought", { orderId: String(outcome.orderId), stockLeft: outcome.stockLeft, instance: outcome.instance, strong: (chunks) => <strong>{chunks}</strong> })}
            {outcome.kind === "sold_out" && t("soldOutNotice")}
            {outcome.kind === "busy" && t("busyNotice", { message: outcome.message })}
            {outcome.kind === "error" && t("errorNotice", { message: outcome.message })}
          </div>
        )}
      </div>
      {snapshot.winners && <WinnerList winners={snapshot.winners} />}
    </div>
  );
}
