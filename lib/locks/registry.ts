import { atomic } from "./atomic";
import { local } from "./local";
import { none } from "./none";
import { pgForUpdate } from "./pg-for-update";
import { redlock } from "./redlock";
import { setnx } from "./setnx";
import { tokenLua } from "./token-lua";
import { STRATEGY_NAMES, type LockStrategy, type StrategyName } from "./types";

const STRATEGIES: Readonly<Record<StrategyName, LockStrategy>> = Object.freeze({
  none,
  local,
  setnx,
  "token-lua": tokenLua,
  redlock,
  "pg-for-update": pgForUpdate,
  atomic,
});

export function isStrategyName(name: string): name is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(name);
}

export function getStrategy(name: StrategyName): LockStrategy {
  return STRATEGIES[name];
}

export function listStrategies(): readonly LockStrategy[] {
  return STRATEGY_NAMES.map((name) => STRATEGIES[name]);
}
