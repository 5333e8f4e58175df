"use client";

import Link from "next/link";
import { useFormatter, useLocale, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { LOCALES, LOCALE_HEADER, LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";
import type { Exposure } from "@/lib/workshop/exposure";
import type { AdminLiveSnapshot } from "@/lib/workshop/live";
import { WinnerList } from "../../../(store)/winner-list";
import { dropStateAt, useLiveSnapshot } from "../../../use-live-snapshot";
import { usePinnedLocale } from "../../../use-pinned-locale";
import { LiveTimeline } from "./live-timeline";
import { RoomControls } from "./room-controls";
import { StrategyBadges, StrategySplitNote, strategiesOf } from "../sale-strategy";
import { useErrorText } from "../../../use-error-text";

interface StrategyOption {
  readonly name: string;
  readonly safe: boolean;
}

/**
 * Everything on the projector updates from the admin event stream; only the instructor's buttons
 * send requests. `pinned`: the room's language the page was rendered in, when a drop pins one.
 */
export function ProjectorView(props: { initial: AdminLiveSnapshot; exposure: Exposure; qr: string; strategies: readonly StrategyOption[]; pinned: Locale | null }) {
  const t = useTranslations("projector");
  const tc = useTranslations("common");
  const { snapshot, serverNow, connected, stale } = useLiveSnapshot("/api/admin/live", props.initial);
  const format = useFormatter();
  usePinnedLocale(props.pinned, snapshot.locale);
  const drop = dropStateAt(snapshot, serverNow);
  const acc = snapshot.accounting;
  // Before a drop opens, the room needs the way in; once it is open, who got one.
  const joining = drop.state === "none" || drop.state === "scheduled";
  const [formShown, setFormShown] = useState<boolean | null>(null);
  // The drop form folds away while a drop is on (the figures need the screen), unless asked for.
  const formOpen = formShown ?? drop.state === "none";
  const headline = drop.state === "none" ? t("noDrop") : drop.state === "scheduled" ? t("opensIn", { seconds: drop.secondsLeft })
    : drop.state === "open" ? (snapshot.stock > 0 ? t("open") : t("soldOut")) : t("closed");
  const joinCard = (
    <section className="card join-card" key="join">
      <h2>{t("joinTitle")}</h2>
      {/* The SVG is made on the server from our own URL by the qrcode package. */}
      {props.qr && <div className="qr" role="img" aria-label={t("qrLabel", { url: props.exposure.storeUrls[0] ?? "" })} dangerouslySetInnerHTML={{ __html: props.qr }} />}
      <ul className="join-urls" data-testid="join-urls">
        {props.exposure.storeUrls.map((url) => <li key={url}><code>{url}</code></li>)}
      </ul>
      <p className="muted">
        {props.exposure.lan ? (props.exposure.adminFromLan ? t("lanAdminToo") : t("lanAdminLocal")) : t("localOnly")}
      </p>
      <RoomControls joined={snapshot.joined} />
    </section>
  );
  const winnersCard = (
    <section className="card winners-card" key="winners">
      {snapshot.winners ? <WinnerList winners={snapshot.winners} /> : <p className="muted">{t("winnersLater")}</p>}
    </section>
  );
  return (
    <div className="projector-grid">
      {/* The room reads this from the back: the drop's state and its verdict, then the stock and what went wrong. */}
      <section className="card drop-card" aria-label={t("accounting")}>
        <div className="drop-headline">
          <div className={`countdown ${drop.state}${drop.state === "open" && snapshot.stock <= 0 ? " sold-out" : ""}${acc.verdict === "PASS" ? "" : " judged-bad"}`} data-testid="projector-countdown" aria-live="polite">{headline}</div>
          <span className={`verdict huge ${acc.verdict}`} data-testid="acc-verdict">{acc.verdict}</span>
        </div>
        {/* The projector's stock, holders and strategy come with its accounting: when those cannot be
            built, every figure here is as old as the accounting's, and says so. */}
        {stale && (
          <p className="bad-text" role="status" data-testid="drop-stale">
            {t("figuresStale", { time: format.dateTime(new Date(snapshot.serverNow), { timeStyle: "medium" }) })}
          </p>
        )}
        <div className={stale ? "big-figures stale" : "big-figures"} data-testid="projector-figures">
          <div><span className="figure" data-testid="projector-stock">{snapshot.stock}</span><span className="caption">{t("leftOf", { initial: snapshot.initialStock })}</span></div>
          <div className={acc.doubleSold ? "bad" : undefined}>
            <span className="figure" data-testid="projector-double-sold">{acc.doubleSold}</span><span className="caption">{t("soldTwice")}</span>
          </div>
          <div><span className="figure" data-testid="projector-holders">{snapshot.holdersNow}</span><span className="caption">{t("inCriticalSection")}</span></div>
        </div>
        {acc.liveness === "stuck" && (
          <p className="bad-text big-text" data-testid="acc-stuck">{t("stuck", { seconds: Math.round((acc.stuckForMs ?? 0) / 1000) })}</p>
        )}
        <p className={stale ? "strategy-line stale" : "strategy-line"} data-testid="projector-strategy-line">
          {t.rich("strategyLine", {
            strategy: snapshot.strategy,
            workMs: snapshot.workMs,
            badge: (chunks) => <span className="strategy-badge" data-testid="projector-strategy">{chunks}</span>,
          })}
          {snapshot.onePerBuyer && t("onePerBuyer")}
          {!connected && ` · ${tc("reconnecting")}`}
        </p>
        {/* The next drop's form, here where the instructor looks; folded while a drop is on. */}
        <div className="drop-form-bar">
          <button type="button" aria-expanded={formOpen} onClick={() => setFormShown(!formOpen)} data-testid="drop-form-toggle">
            {formOpen ? t("hideDropForm") : t("showDropForm")}
          </button>
        </div>
        {formOpen && (
          <DropForm strategies={props.strategies} current={snapshot.strategy} workMs={snapshot.workMs} pinned={snapshot.locale}
            canClose={drop.state === "open" || drop.state === "scheduled"} onStarted={() => setFormShown(null)} />
        )}
      </section>

      {joining ? joinCard : winnersCard}

      <section className="card accounting-card" aria-label={t("accounting")}>
        <h2>{t("accountingTitle")} <StrategyBadges names={strategiesOf(acc)} testId="acc-strategy" /></h2>
        {stale && (
          <p className="bad-text" role="status" data-testid="acc-stale">
            {t("figuresStale", { time: format.dateTime(new Date(snapshot.serverNow), { timeStyle: "medium" }) })}
          </p>
        )}
        <StrategySplitNote facts={{ ...acc, strategyNow: snapshot.strategy }} />
        <dl className={stale ? "accounting stale" : "accounting"}>
          <dt>{t("unitsSold")}</dt><dd data-testid="acc-orders">{acc.orders}</dd>
          <dt>{t("soldTwice")}</dt><dd data-testid="acc-double-sold" className={acc.doubleSold ? "bad" : undefined}>{acc.doubleSold}</dd>
          <dt>{t("lost")}</dt><dd data-testid="acc-lost" className={acc.lostUnits ? "bad" : undefined}>{acc.lostUnits}</dd>
          <dt>{t("pending")}</dt><dd>{acc.pendingUnits}</dd>
          <dt>{t("peakHolders")}</dt><dd>{acc.peakHolders}</dd>
          {snapshot.onePerBuyer && (<><dt>{t("twoOrders")}</dt><dd data-testid="acc-two-orders" className={acc.buyersWithTwoOrders ? "bad" : undefined}>{acc.buyersWithTwoOrders}</dd></>)}
        </dl>
        <p className="muted">{t("countedHow")}</p>
        <Link href={`/admin/sales/${snapshot.saleId}/timeline`} className="button-link" data-testid="timeline-link">{t("timelineLink", { saleId: String(snapshot.saleId) })}</Link>
      </section>

      {joining ? winnersCard : joinCard}

      <section className="card timeline-card" aria-label={tc("holderTimeline")}>
        <h2>{tc("holderTimeline")}</h2>
        <LiveTimeline key={snapshot.saleId} saleId={snapshot.saleId} changeKey={`${acc.orders}:${snapshot.holdersNow}:${snapshot.stock}:${acc.pendingUnits}`} />
      </section>
    </div>
  );
}

function DropForm(props: { strategies: readonly StrategyOption[]; current: string; workMs: number; pinned?: Locale; canClose: boolean; onStarted: () => void }) {
  const t = useTranslations("dropForm");
  const errorText = useErrorText();
  const tc = useTranslations("common");
  const locale = useLocale();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function send(method: "POST" | "DELETE", body?: unknown): Promise<boolean> {
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/admin/drop", {
        method,
        headers: { "content-type": "application/json", [LOCALE_HEADER]: locale },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => ({}));
        const fields = answer.fieldErrors ? ` (${Object.entries(answer.fieldErrors).map(([k, v]) => `${k}: ${(v as string[]).join(", ")}`).join("; ")})` : "";
        setError(`${errorText(answer, tc("serverAnswered", { status: response.status }))}${fields}`);
      }
      return response.ok;
    } catch {
      setError(tc("serverUnreachable"));
      return false;
    } finally {
      setPending(false);
    }
  }

  function start(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const roomLocale = String(form.get("locale") ?? "");
    void send("POST", {
      stock: Number(form.get("stock")),
      countdownS: Number(form.get("countdownS")),
      strategy: String(form.get("strategy")),
      workMs: Number(form.get("workMs")),
      onePerBuyer: form.get("onePerBuyer") === "on",
      ...(roomLocale ? { locale: roomLocale } : {}),
    }).then((started) => started && props.onStarted());
  }

  return (
    <form className="drop-form" onSubmit={start} aria-label={t("label")}>
      <label>{t("units")} <input name="stock" type="number" min={1} max={10000} defaultValue={10} required /></label>
      <label>{t("countdown")} <input name="countdownS" type="number" min={0} max={600} defaultValue={10} required /></label>
      <label>
        {t("strategy")}{" "}
        <select name="strategy" defaultValue={props.current}>
          {props.strategies.map((s) => <option key={s.name} value={s.name}>{s.name}{s.safe ? "" : ` ${tc("unsafe")}`}</option>)}
        </select>
      </label>
      <label>{t("workMs")} <input name="workMs" type="number" min={0} max={60000} defaultValue={props.workMs} required /></label>
      <label>
        {t("language")}{" "}
        {/* The room's language for this drop: every phone and this page show it while the drop is current. */}
        <select name="locale" defaultValue={props.pinned ?? ""} data-testid="drop-locale">
          <option value="">{t("languageOwn")}</option>
          {LOCALES.map((code) => <option key={code} value={code} lang={code}>{LOCALE_NAMES[code]}</option>)}
        </select>
      </label>
      <label className="check"><input name="onePerBuyer" type="checkbox" /> {t("onePerBuyer")}</label>
      <div className="drop-buttons">
        <button type="submit" disabled={pending}>{t("start")}</button>
        <button type="button" disabled={pending || !props.canClose} onClick={() => void send("DELETE")}>{t("close")}</button>
      </div>
      {error && <p className="field-error" role="alert">{error}</p>}
    </form>
  );
}
