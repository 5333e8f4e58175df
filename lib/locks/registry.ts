import { atomic } from "./atomic";
import { local } from "./local";
import { none } from "./none";
import { pgForUpdate } from "./pg-for-update";
import { redlock } from "./redlock";
import { setnx } from "./setnx";
import { pgNowait } from "./pg-nowait";
import { pgUnfenced } from "./pg-unfenced";
import { setnxNoExpiry } from "./setnx-no-expiry";
import { tokenFencing } from "./token-fencing";
import { tokenGetDel } from "./token-get-del";
import { tokenLua } from "./token-lua";
import { tokenReentrant } from "./token-reentrant";
import { tokenWatch } from "./token-watch";
import { tokenWatchdog } from "./token-watchdog";
import { STRATEGY_NAMES, type LockStrategy, type StrategyName } from "./types";

const STRATEGIES: Readonly<Record<StrategyName, LockStrategy>> = Object.freeze({
  none,
  local,
  setnx,
  "token-lua": tokenLua,
  redlock,
  "pg-for-update": pgForUpdate,
  atomic,
  "setnx-no-expiry": lab(setnxNoExpiry),
  "token-get-del": lab(tokenGetDel),
  "token-watch": lab(tokenWatch),
  "token-watchdog": lab(tokenWatchdog),
  "token-fencing": lab(tokenFencing),
  "token-reentrant": lab(tokenReentrant),
  "pg-nowait": lab(pgNowait),
  "pg-unfenced": lab(pgUnfenced),
});

function lab(strategy: LockStrategy): LockStrategy {
  return { ...strategy, lab: true, withLock: strategy.withLock.bind(strategy) };
}

export function isStrategyName(name: string): name is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(name);
}

export function getStrategy(name: StrategyName): LockStrategy {
  return STRATEGIES[name];
}

export function listStrategies(): readonly LockStrategy[] {
  return STRATEGY_NAMES.map((name) => STRATEGIES[name]);
}
