import { useTranslations } from "next-intl";
import type { StrategyShare } from "@/lib/sale/accounting";

/** What a page knows of the strategies behind a sale's figures (SaleStats, or its projector copy). */
export interface SaleStrategyFacts {
  /** The strategy the sale was started under. */
  readonly strategy: string;
  /** Its orders per strategy, in the order each sold first. */
  readonly strategies: readonly StrategyShare[];
  readonly soldUnderSeveral: number;
  /** The strategy configured now, when the page knows it. */
  readonly strategyNow?: string;
}

/** The strategies that made the figures: those its orders were made under, else the one it started under. */
export function strategiesOf(facts: Pick<SaleStrategyFacts, "strategy" | "strategies">): string[] {
  return facts.strategies.length ? facts.strategies.map((share) => share.strategy) : [facts.strategy];
}

/** The sale's strategy (or strategies) as badges: every figure is shown under the strategy that made it. */
export function StrategyBadges({ names, testId = "sale-strategy" }: { names: readonly string[]; testId?: string }) {
  return (
    <span className="strategy-badges" data-testid={testId}>
      {names.map((name, index) => (
        <span key={name}>{index > 0 && " + "}<span className="strategy-badge">{name}</span></span>
      ))}
    </span>
  );
}

/**
 * Said only when it matters: the sale's orders were made under more than one strategy (each one's
 * figures apart), or buyers now buy under another strategy than the sale's (their orders will be
 * counted in this sale, apart).
 */
export function StrategySplitNote({ facts }: { facts: SaleStrategyFacts }) {
  const t = useTranslations("saleStrategy");
  const names = strategiesOf(facts);
  const mixed = facts.strategies.length > 1;
  const switched = facts.strategyNow !== undefined && facts.strategyNow !== names[names.length - 1];
  if (!mixed && !switched) return null;
  return (
    <div className="strategy-split" data-testid="strategy-split">
      {mixed && (
        <>
          <p>{t("mixed", { count: facts.strategies.length })}</p>
          <ul>
            {facts.strategies.map((share) => (
              <li key={share.strategy} data-testid={`strategy-share-${share.strategy}`}>
                {t.rich("share", {
                  strategy: share.strategy, orders: share.orders, doubleSold: share.doubleSold,
                  badge: (chunks) => <span className="strategy-badge">{chunks}</span>,
                  bad: (chunks) => (share.doubleSold > 0 ? <strong className="bad-text">{chunks}</strong> : chunks),
                })}
              </li>
            ))}
            {facts.soldUnderSeveral > 0 && <li className="bad-text" data-testid="sold-under-several">{t("soldUnderSeveral", { count: facts.soldUnderSeveral })}</li>}
          </ul>
        </>
      )}
      {switched && (
        <p className="muted" data-testid="strategy-switched">
          {t.rich("switched", { strategy: facts.strategyNow!, badge: (chunks) => <span className="strategy-badge">{chunks}</span> })}
        </p>
      )}
    </div>
  );
}
