import { getDb } from "../db";
import { getEnv } from "../env";
import { getRedis } from "../redis";
import { resetConfig, setNestedLock, updateConfig } from "../sale/config";
import { lockKey } from "../locks/keys";
import { SKU } from "../sale/keys";
import { settleReservations } from "../purchase/reconciler";
import { clearLocks, getCurrentSale, getSaleStats, resetSale } from "../sale/sale";
import { keptError } from "../errors";
import { burst, type BurstResult } from "./burst";
import { LabResetError, LabWaitTimeoutError } from "./errors";
import { clearFaults, setFault } from "./faults";
import { MAX_PLAYS, faultDidNotForm, finishLabRun, getLabRun, saveLabRun, type CaseOutcome, type LabRunRecord } from "./lab-runs";
import { ALL_PITFALLS, type LabCase, type LabStep, type Pitfall, type Via, type WaitFor } from "./scenario-types";
import { findScenario } from "./scenarios";
import { getStackStatus, stackControl } from "../stack/control";
import { recordFault } from "../timeline/faults";
import { untilNginxSeesInstances } from "./rotation";
import { clearClusterLock, clusterFailOver, endClusterReplicationHold, holdClusterReplication } from "./cluster-faults";
import { awaitNewPrimary, demoteStrayPrimaries, describeSentinelPair, endReplicationHold, failOver, holdReplication, sentinelPairSettled, sentinelPrimary, setMinReplicas } from "./sentinel-faults";
import { keepTimeline } from "../timeline/store";

/**
 * Plays a scenario's cases on the real stack, one after the other, and records each outcome next
 * to its expectation. Runs in its own process (see scripts/lab-scenario-runner.ts), never inside an app
 * instance: a case may kill one. After every case everything is put back.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REQUEST_TIMEOUT_MS = 60_000;

function baseUrl(via: Via): string {
  const env = getEnv();
  if (via === "nginx") return env.PUBLIC_URL;
  const ports = (process.env.APP_PORTS ?? "3001,3002").split(",");
  return `http://127.0.0.1:${ports[via === "app-1" ? 0 : 1]}`;
}

/** Puts the stack back: config and faults to defaults, every node started, every instance running. */
export async function resetLab(): Promise<void> {
  await resetConfig();
  await clearFaults();
  const before = await getStackStatus().catch(() => undefined);
  await stackControl("/reset-faults");
  await endReplicationHold();
  await endClusterReplicationHold();
  await setMinReplicas(0, 10);
  await demoteStrayPrimaries();
  await clearLocks();
  await clearClusterLock();
  const restarted = before?.redis.some((node) => !node.up) || before?.apps.some((app) => app.state !== "running");
  // The app instances' clients reconnect to restarted nodes in the background.
  if (restarted) await sleep(800);
}

async function instancesReady(): Promise<boolean> {
  const answers = await Promise.all((["app-1", "app-2"] as const).map((via) =>
    fetch(new URL("/api/ready", baseUrl(via)), { signal: AbortSignal.timeout(3000) }).then((r) => r.ok, () => false)));
  return answers.every(Boolean);
}

async function waitUntil(what: WaitFor, timeoutMs: number, orGoOn = false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = what === "lock-held" ? (await getRedis().exists(lockKey(SKU))) === 1
      : what === "instances-ready" ? await instancesReady()
      : what === "sentinel-pair-settled" ? await sentinelPairSettled()
      : what === "no-holder-inside" ? (await getSaleStats().catch(() => undefined))?.holdersNow === 0
      : what === "second-holder-inside" ? ((await getSaleStats().catch(() => undefined))?.holdersNow ?? 0) >= 2
      : ((await getSaleStats().catch(() => undefined))?.holdersNow ?? 0) > 0;
    if (ready) return;
    await sleep(what === "instances-ready" || what === "sentinel-pair-settled" ? 200 : 20);
  }
  if (!orGoOn) throw new LabWaitTimeoutError(what, timeoutMs, what === "sentinel-pair-settled" ? await describeSentinelPair().catch(() => undefined) : undefined);
}

interface CaseState {
  /** The Sentinel-managed primary when the case began (for cases that wait for a failover). */
  primaryAtStart?: string;
  background: Promise<BurstResult>[];
  loads: BurstResult[];
  lastForeground?: BurstResult;
  maxPgConnections: number;
}

async function runStep(step: LabStep, state: CaseState, prefix: string): Promise<void> {
  switch (step.do) {
    case "load": {
      const running = burst(baseUrl(step.via), step.buyers, step.concurrency, REQUEST_TIMEOUT_MS, `${prefix}-${state.loads.length + state.background.length}`);
      if (step.background) {
        state.background.push(running.then((result) => (state.loads.push(result), result)));
        return;
      }
      const result = await running;
      state.loads.push(result);
      state.lastForeground = result;
      return;
    }
    case "await-load":
      await Promise.all(state.background);
      state.background = [];
      return;
    case "wait-until":
      return waitUntil(step.what, step.timeoutMs, step.orGoOn);
    case "kill-app":
      await stackControl(`/apps/${step.app}/kill`);
      return;
    case "clear-faults":
      return clearFaults();
    case "stop-redis":
      for (const node of step.nodes) await stackControl(`/redis/${node}/stop`);
      return;
    case "start-redis":
      for (const node of step.nodes) await stackControl(`/redis/${node}/start`);
      return;
    case "jump-clock":
      // The runner answers once the node's TIME shows the jump (scripts/stack/services/redis.ts).
      await stackControl(`/redis/${step.node}/clock`, "POST", { jumpS: step.jumpS });
      return;
    case "cut":
      await stackControl("/network/grudge", "POST", { cuts: step.cuts });
      return;
    case "heal":
      await stackControl("/network/heal");
      return;
    case "sleep":
      await sleep(step.ms);
      return;
    case "member":
      for (const member of step.members) await stackControl(`/${step.service}/${member}/${step.action}`);
      return;
    case "hold-replication":
      return holdReplication(step.ms);
    case "fail-over":
      return failOver(step.timeoutMs);
    case "await-failover":
      if (!state.primaryAtStart) throw new Error("await-failover needs the primary the case started with");
      return awaitNewPrimary(state.primaryAtStart, step.timeoutMs);
    case "min-replicas":
      return setMinReplicas(step.replicas, step.maxLagS);
    case "cluster-hold-replication":
      return holdClusterReplication(step.ms);
    case "cluster-fail-over":
      return clusterFailOver(step.timeoutMs);
  }
}

async function samplePgConnections(state: CaseState, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const rows = await getDb()
      .$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database()`
      .catch(() => [{ count: 0n }]);
    state.maxPgConnections = Math.max(state.maxPgConnections, Number(rows[0]?.count ?? 0));
    await sleep(100);
  }
}

function percentile(values: number[], share: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}

export async function runCase(labCase: LabCase, prefix: string, onSale?: (saleId: number) => Promise<void>): Promise<CaseOutcome> {
  await resetLab();
  // A previous case may have paused or killed an instance: both must be in nginx's rotation again.
  await untilNginxSeesInstances(getEnv().PUBLIC_URL, (process.env.APP_PORTS ?? "3001,3002").split(",").length);
  await updateConfig({ strategy: labCase.strategy, lockTtlMs: labCase.lockTtlMs, waitTimeoutMs: labCase.waitTimeoutMs, workMs: labCase.workMs, lockDelayMs: labCase.lockDelayMs ?? 0 });
  await setNestedLock(Boolean(labCase.nestedLock));
  for (const fault of labCase.faults ?? []) await setFault(fault.point, fault.ms, fault.times);
  const sale = await resetSale({ initialStock: labCase.initialStock });
  for (const fault of labCase.faults ?? []) await recordFault("fault-start", `delay ${fault.ms} ms at ${fault.point}`);
  await onSale?.(sale.id);

  const waitsForFailover = labCase.steps.some((step) => step.do === "await-failover");
  const state: CaseState = {
    background: [], loads: [], maxPgConnections: 0,
    ...(waitsForFailover ? { primaryAtStart: await sentinelPrimary() } : {}),
  };
  const sampling = new AbortController();
  const sampler = samplePgConnections(state, sampling.signal);
  try {
    for (const step of labCase.steps) await runStep(step, state, prefix);
  } finally {
    // Even when a step failed, no buyer of this case may still be in flight when the next starts.
    await Promise.allSettled(state.background);
    sampling.abort();
    await sampler;
  }

  // Reservations a killed instance left behind are settled before the case is counted.
  await settleReservations((await getCurrentSale()).id);
  const stats = await getSaleStats();
  const total = (field: "bought" | "soldOut" | "busy" | "unavailable" | "lockLost" | "errors") => state.loads.reduce((sum, load) => sum + load[field], 0);
  const last = state.lastForeground;
  const observed: Pitfall[] = [];
  if (stats.oversell > 0) observed.push("oversell");
  if (stats.doubleSold > 0) observed.push("double-sold");
  if (stats.lostUnits > 0) observed.push("lost-stock");
  if (stats.peakHolders > 1) observed.push("two-holders");
  // Deadlock: stock is left, yet the last wave of buyers bought nothing and was turned away busy —
  // none of them even got the lock (a holder stopped by its lease check is no deadlock).
  // The sale itself reads STUCK too (lib/sale/liveness.ts) once that has lasted three wait timeouts.
  if (stats.liveness === "stuck" || (last && stats.remaining > 0 && last.bought === 0 && last.busy > 0 && last.lockLost === 0)) observed.push("deadlock");
  const watched = labCase.watch ?? ALL_PITFALLS;
  const pitfallAppeared = observed.some((pitfall) => watched.includes(pitfall));
  const buyers = state.loads.reduce((sum, load) => sum + load.bought + load.soldOut + load.busy + load.unavailable + load.lockLost + load.errors, 0);
  const requirementsMet =
    (!labCase.require?.allUnavailable || (total("unavailable") === buyers && stats.orders === 0 && stats.lostUnits === 0))
    && (!labCase.require?.staleRefused || stats.staleRefused > 0)
    && (!labCase.require?.someBusy || total("busy") > 0)
    && (!labCase.require?.someBought || total("bought") > 0);
  // The case's holder timeline is kept with it (best effort: a picture, never the verdict).
  await keepTimeline(sale.id).catch(() => {});
  const busiest = state.loads.reduce((a, b) => (b.bought > (a?.bought ?? -1) ? b : a), undefined as BurstResult | undefined);
  return {
    saleId: sale.id,
    orders: stats.orders,
    remaining: stats.remaining,
    initialStock: stats.initialStock,
    oversell: stats.oversell,
    doubleSold: stats.doubleSold,
    lostUnits: stats.lostUnits,
    phantomUnits: stats.phantomUnits,
    pendingUnits: stats.pendingUnits,
    safety: stats.verdict,
    liveness: stats.liveness,
    peakHolders: stats.peakHolders,
    staleRefused: stats.staleRefused,
    bought: total("bought"),
    soldOut: total("soldOut"),
    busy: total("busy"),
    unavailable: total("unavailable"),
    lockLost: total("lockLost"),
    errors: total("errors"),
    buyers,
    purchasesPerSecond: busiest && busiest.durationMs > 0 ? Math.round((busiest.bought / busiest.durationMs) * 1000) : 0,
    p50Ms: percentile(state.loads.flatMap((load) => load.latenciesMs), 0.5),
    maxPgConnections: state.maxPgConnections,
    observed,
    pitfallAppeared,
    verdict: pitfallAppeared ? "the pitfall appeared" : "the fix held",
    // A fix holds only if every unit is accounted for, whatever the watched pitfalls say.
    asExpected: labCase.expect === "pitfall" ? pitfallAppeared : !pitfallAppeared && requirementsMet && stats.verdict === "PASS",
  };
}

/** Plays every case of the lab run's scenario, saving progress after each; always resets at the end. */
export async function runLabRun(labRunId: number): Promise<LabRunRecord> {
  const record = await getLabRun(labRunId);
  if (!record) throw new Error(`no lab run ${labRunId}`);
  const scenario = findScenario(record.scenarioId);
  try {
    if (!scenario) throw new Error(`no scenario ${record.scenarioId}`);
    for (const [index, labCase] of scenario.cases.entries()) {
      const entry = record.cases[index]!;
      entry.status = "running";
      await saveLabRun(record);
      try {
        // The case stays "running" through its plays again: only the last play's outcome is shown.
        const notFormed: number[] = [];
        for (let play = 1; ; play++) {
          const outcome = await runCase(labCase, `lab${labRunId}-${labCase.id}${play > 1 ? `-play${play}` : ""}`, async (saleId) => {
            entry.saleId = saleId;
            await saveLabRun(record);
          });
          if (play < MAX_PLAYS && faultDidNotForm(labCase, outcome)) {
            if (outcome.saleId !== undefined) notFormed.push(outcome.saleId);
            continue;
          }
          entry.outcome = notFormed.length > 0 ? { ...outcome, notFormed } : outcome;
          break;
        }
        entry.status = "done";
      } catch (error) {
        entry.status = "error";
        Object.assign(entry, keptError(error));
      }
      await saveLabRun(record);
    }
    record.status = "completed";
    record.asExpected = record.cases.every((entry) => entry.outcome?.asExpected === true);
  } catch (error) {
    record.status = "failed";
    Object.assign(record, keptError(error));
    record.asExpected = false;
  } finally {
    await resetLab().catch((error) => {
      Object.assign(record, keptError(new LabResetError(error)));
    });
    record.finishedAt = new Date().toISOString();
    await finishLabRun(record);
  }
  return record;
}
