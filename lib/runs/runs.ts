import { randomBytes, randomInt } from "node:crypto";
import { getDb } from "../db";
import { getRedis } from "../redis";
import { sameSecret } from "../same-secret";
import { verdictOf, type Verdict } from "../sale/accounting";
import { claimDetails, claimStack, describeClaim, getStackClaim, releaseStackClaim, renewStackClaim } from "../stack/claim";
import { updateConfig } from "../sale/config";
import { settleReservations } from "../purchase/reconciler";
import { getSaleStats, getStock, resetSale, tagSaleWithRun, type SaleStats } from "../sale/sale";
import { saleCounterKeys } from "../sale/keys";
import { holdersInsideSale } from "../sale/switch";
import { toRecord, type RunRecord, type TimelinePoint } from "./record";
import { keepTimeline } from "../timeline/store";
import { loadSummarySchema, type RunComplete, type RunCreate, type RunProgress } from "../validations/run";
import { RunConflictError, RunNotFoundError, RunTokenError } from "./errors";
import { summaryFromK6, type LoadSummary } from "./k6-summary";

/**
 * Load runs. A run claims the stack, resets the sale under the chosen strategy and knobs, the load
 * tool drives it and reports progress and a summary with the run's own token; the run's accounting
 * (orders, double-sold, lost and phantom units, signed oversell, peak holders) is counted per unit
 * from Redis and Postgres, never taken from the load tool.
 */
const runKeys = (id: number) => ({
  token: `locklab:run:${id}:token`,
  progress: `locklab:run:${id}:progress`,
  timeline: `locklab:run:${id}:timeline`,
});
const TIMELINE_LIMIT = 2000;
const KEY_TTL_S = 24 * 60 * 60;
/** A run that has not reported for this long is considered abandoned. */
const STALE_AFTER_MS = 2 * 60 * 1000;

export type { Verdict };
export { verdictOf };
export type { RunRecord, TimelinePoint };
export { runsToCsv } from "./record";

/** The run's own numbers, always counted from Redis and Postgres. */
function invariantsOf(stats: SaleStats) {
  return {
    orders: stats.orders,
    remaining: stats.remaining,
    oversell: stats.oversell,
    doubleSold: stats.doubleSold,
    lostUnits: stats.lostUnits,
    phantomUnits: stats.phantomUnits,
    outOfRange: stats.outOfRange,
    pendingUnits: stats.pendingUnits,
    peakHolders: stats.peakHolders,
    verdict: stats.verdict,
  };
}

/**
 * The figures a run keeps: the settled ones, STUCK rather than PASS when the sale had stopped
 * serving as its buyers left, or when a unit reserved then is still reserved after the settling
 * (`unsettled`) — neither sold nor back on the shelf, because the reconciler could not get the
 * very lock that stopped serving (or the order store is down). FAIL stays FAIL.
 */
function storedVerdict(atEnd: SaleStats, settled: SaleStats, unsettled: boolean): SaleStats {
  if (settled.verdict !== "PASS") return settled;
  return atEnd.verdict === "STUCK" || unsettled ? { ...settled, verdict: "STUCK" } : settled;
}

/**
 * Refuses (409 run_in_progress) while a load run or a lab run holds the stack. A switch of strategy,
 * a sale reset or a drop in the middle of a run would make its record lie: the run is stored under
 * the strategy it started with, and its figures count only the sale it started.
 */
export async function assertStackFree(): Promise<void> {
  const claim = await getStackClaim();
  if (!claim) return;
  // A load run that has ended (completed, failed, cancelled) and still holds the stack: its claim
  // outlived it (a release that did not land); it is let go rather than blocking the room for minutes.
  // (A run with no row yet is starting: startRun takes the claim first.)
  if (claim.kind === "run") {
    const run = await getDb().run.findUnique({ where: { id: claim.id }, select: { status: true } });
    if (run && run.status !== "running") {
      await releaseStackClaim(claim);
      return;
    }
  }
  throw new RunConflictError("run_in_progress", `${describeClaim(claim)}; wait for it to finish`, claimDetails(claim));
}

/** Bounds an admin's change of the sale holds the claim for, and waits for another change before it. */
const CHANGE_CLAIM_MS = 60_000;
const CHANGE_WAIT_MS = 15_000;

/**
 * Runs an admin's change of the sale (a switch, a reset, a drop, the lab's reset) while holding the
 * stack's claim, so that "no run holds the stack" stays true until the change is made. Checked
 * first and changed after, a load run could claim the stack in between: its own switch went first,
 * the admin's replaced it, and the run was stored under a strategy it did not run. A run or a lab
 * run holding the claim refuses the change (409, as assertStackFree); another admin's change is
 * waited for, as switches always were.
 */
export async function whileStackFree<T>(change: () => Promise<T>): Promise<T> {
  const holder = { kind: "change", id: randomInt(1, 2 ** 31 - 1) } as const;
  const waitUntil = Date.now() + CHANGE_WAIT_MS;
  while (!(await claimStack(holder, CHANGE_CLAIM_MS))) {
    const claim = await getStackClaim();
    if (claim?.kind === "change" && Date.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 20));
    // A run's or a lab's claim refuses the change; one left by an ended run is let go, and the claim taken again.
    else if (claim?.kind !== "change") await assertStackFree();
    else throw new RunConflictError("run_in_progress", `${describeClaim(claim)}; wait for it to finish`, claimDetails(claim));
  }
  try {
    return await change();
  } finally {
    // A claim that cannot be let go (its Redis node down) lapses by its TTL; the change's own answer stands.
    await releaseStackClaim(holder).catch(() => {});
  }
}

/** How long a run's claim on the stack outlives its last report: a load tool that died lets go. */
const claimMs = (durationMs: number | null | undefined) => (durationMs ?? COUNT_RUN_BUDGET_MS) + STALE_AFTER_MS;
/** A run bounded by a request count, not a duration (k6 allows such a run 5 minutes; it reports no progress). */
const COUNT_RUN_BUDGET_MS = 6 * 60 * 1000;

export async function startRun(input: RunCreate): Promise<{ run: RunRecord; reportToken: string }> {
  const db = getDb();
  const redis = getRedis();
  // The run's id is taken first: it is the claim's token.
  const [next] = await db.$queryRaw<{ id: number }[]>`SELECT nextval(pg_get_serial_sequence('runs', 'id'))::int AS id`;
  const id = Number(next!.id);
  const holder = { kind: "run", id } as const;
  if (!(await claimStack(holder, claimMs(input.durationMs)))) {
    const claim = await getStackClaim();
    throw new RunConflictError("run_in_progress", `${describeClaim(claim)}; wait for it to finish`, claimDetails(claim));
  }
  try {
    await failAbandonedRuns();
    const config = await updateConfig({
      strategy: input.strategy,
      lockTtlMs: input.lockTtlMs,
      waitTimeoutMs: input.waitTimeoutMs,
      workMs: input.workMs,
      lockDelayMs: input.lockDelayMs,
    });
    const sale = await resetSale({ initialStock: input.initialStock });
    const totalRequests = input.durationMs ? undefined : (input.totalRequests ?? Math.max(200, input.initialStock * 4));
    const run = await db.run.create({
      data: {
        id,
        saleId: sale.id,
        strategy: config.strategy,
        scenario: input.scenario ?? null,
        knobs: {
          lockTtlMs: config.lockTtlMs, waitTimeoutMs: config.waitTimeoutMs, workMs: config.workMs,
          model: input.model, ...(input.model === "open" && { rate: input.rate }),
        },
        tool: input.tool,
        vus: input.vus,
        durationMs: input.durationMs ?? null,
        totalRequests: totalRequests ?? null,
        initialStock: input.initialStock,
      },
    });
    await tagSaleWithRun(sale.id, run.id);
    const reportToken = randomBytes(24).toString("base64url");
    await redis.set(runKeys(run.id).token, reportToken, "EX", KEY_TTL_S);
    return { run: toRecord(run), reportToken };
  } catch (error) {
    await releaseStackClaim(holder);
    throw error;
  }
}

/** Runs still marked running while nobody holds their claim: their load tool died. */
async function failAbandonedRuns(): Promise<void> {
  const stale = await getDb().run.findMany({ where: { status: "running" }, select: { id: true } });
  for (const run of stale) await failRun(run.id, "abandoned: no report before its claim on the stack lapsed");
}

/** The load tool's credential for one run; checked before its report is even parsed. */
export async function authorizeRunReport(id: number, token: string | null): Promise<void> {
  if (!sameSecret(token, await getRedis().get(runKeys(id).token))) throw new RunTokenError();
}

async function requireRunning(id: number) {
  const run = await getDb().run.findUnique({ where: { id } });
  if (!run) throw new RunNotFoundError(id);
  if (run.status !== "running") throw new RunConflictError("run_finished", `run ${id} is already ${run.status}`, { runId: id, status: run.status });
  return run;
}

/** The stock left and the sale's sold orders, read together. */
async function stockAndOrders(saleId: number): Promise<{ stock: number; orders: number }> {
  const [stock, orders] = await Promise.all([getStock(), getDb().order.count({ where: { saleId, status: "sold" } })]);
  return { stock, orders };
}

async function sample(saleId: number, progress: Omit<RunProgress, "soldOut"> & { soldOut?: number }): Promise<TimelinePoint> {
  const { stock, orders } = await stockAndOrders(saleId);
  return {
    tMs: Math.round(progress.elapsedMs),
    stock,
    orders,
    requests: progress.requests,
    bought: progress.bought,
    busy: progress.busy,
    errors: progress.errors,
  };
}

/** Records the load tool's live counters; the caller has checked the report token (authorizeRunReport). */
export async function reportProgress(id: number, progress: RunProgress): Promise<void> {
  const run = await requireRunning(id);
  const point = await sample(run.saleId, progress);
  const keys = runKeys(id);
  await renewStackClaim({ kind: "run", id }, claimMs(run.durationMs));
  await getRedis()
    .multi()
    .hset(keys.progress, { ...progress, reportedAt: Date.now() })
    .expire(keys.progress, KEY_TTL_S)
    .rpush(keys.timeline, JSON.stringify(point))
    .ltrim(keys.timeline, -TIMELINE_LIMIT, -1)
    .expire(keys.timeline, KEY_TTL_S)
    .exec();
}

/** How often the sale is read while a completed run waits for its last buyers. */
const QUIET_POLL_MS = 250;

/** The longest a completion waits for the sale to be quiet: well inside the tools' 30 s and 45 s report timeouts. */
const QUIET_MAX_MS = 20_000;

/**
 * The longest a buyer sent before the load tool stopped can still change the sale: its wait for the
 * lock, its work, and a margin for the write and the order insert behind it (at most QUIET_MAX_MS).
 */
function quietBoundMs(knobs: unknown): number {
  const { waitTimeoutMs = 0, workMs = 0 } = (knobs ?? {}) as { waitTimeoutMs?: number; workMs?: number };
  return Math.min(waitTimeoutMs + workMs + 2000, QUIET_MAX_MS);
}

/**
 * Waits until no buyer is inside the sale's critical section and its stock and orders held still for
 * one poll, or `boundMs`. A tool that stops at the end of its duration (autocannon closes its
 * connections; nginx has already passed the requests on) leaves buyers the store still serves:
 * counted at once, a run of 1,000 VUs stored 2,284 orders while its sale went on to 2,670.
 */
async function untilSaleQuiet(saleId: number, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  let last: string | undefined;
  for (;;) {
    const [{ stock, orders }, holders] = await Promise.all([stockAndOrders(saleId), holdersInsideSale(saleId)]);
    const seen = `${stock}:${orders}`;
    if (seen === last && holders === 0) return;
    last = seen;
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
  }
}

/** Closes a run with the tool's summary; the caller has checked the report token (authorizeRunReport). */
export async function completeRun(id: number, body: RunComplete): Promise<RunRecord> {
  const run = await requireRunning(id);
  // k6's figures are read out of its own summary, then held to the bounds the driver's are (422 if not).
  const summary: LoadSummary = body.tool === "k6" ? loadSummarySchema.parse(summaryFromK6(body.k6Summary)) : body;
  // Buyers the tool stopped waiting for may still be in line; then the last buyers' reservations
  // are settled before the run is counted.
  await untilSaleQuiet(run.saleId, quietBoundMs(run.knobs));
  // Whether the sale still served when its buyers stopped, read before the settling: that can wait
  // 26 s, long enough for a stuck streak to age out of liveness' window and read "live".
  const atEnd = await getSaleStats(run.saleId);
  const pendingKey = saleCounterKeys(run.saleId).pending;
  const reservedAtEnd = await getRedis().hkeys(pendingKey);
  await settleReservations(run.saleId);
  // A unit reserved then and reserved still, 26 s on, was settled neither way. (Units reserved since,
  // by buyers the tool stopped counting, are in flight, not stuck.)
  const stillReserved = reservedAtEnd.length ? await getRedis().hmget(pendingKey, ...reservedAtEnd) : [];
  const unsettled = stillReserved.some((entry) => entry !== null);
  const stats = storedVerdict(atEnd, await getSaleStats(run.saleId), unsettled);
  const keys = runKeys(id);
  const redis = getRedis();
  const lastPoint = await sample(run.saleId, { ...summary, elapsedMs: summary.durationMs });
  // The run's start is a point too (its sale was just reset: full stock, no order), so a run shorter
  // than one progress report still draws from its start to its end.
  const startPoint: TimelinePoint = { tMs: 0, stock: run.initialStock, orders: 0, requests: 0, bought: 0, busy: 0, errors: 0 };
  const reported = (await redis.lrange(keys.timeline, 0, -1)).map((raw) => JSON.parse(raw) as TimelinePoint);
  const timeline = [...(reported[0]?.tMs === 0 ? [] : [startPoint]), ...reported, lastPoint];
  const updated = await getDb().run.update({
    where: { id },
    data: {
      status: "completed",
      finishedAt: new Date(),
      tool: body.tool,
      requests: summary.requests,
      bought: summary.bought,
      soldOut: summary.soldOut,
      busy: summary.busy,
      errors: summary.errors,
      durationMs: Math.round(summary.durationMs),
      throughput: summary.requests / (summary.durationMs / 1000),
      p50Ms: summary.latencyMs.p50,
      p95Ms: summary.latencyMs.p95,
      p99Ms: summary.latencyMs.p99,
      ...invariantsOf(stats),
      timeline: timeline as object[],
      summary: body.tool === "k6" ? (body.k6Summary as object) : (summary as object),
    },
  });
  await redis.multi().del(keys.token, keys.progress, keys.timeline).exec();
  // Lets go of the stack as soon as the run shows as completed: whoever sees it finished may start
  // the next one at once. Its sale's stream stays in Redis (a new sale only sets it an expiry).
  await releaseStackClaim({ kind: "run", id });
  // The holder timeline is kept with the run (best effort: a picture, never the verdict).
  await keepTimeline(run.saleId).catch(() => {});
  return toRecord(updated);
}

export async function failRun(id: number, reason: string): Promise<void> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id } });
  if (!run || run.status !== "running") return;
  const stats = await getSaleStats(run.saleId).catch(() => undefined);
  await db.run.update({
    where: { id },
    data: {
      status: "failed",
      finishedAt: new Date(),
      summary: { error: reason },
      ...(stats && invariantsOf(stats)),
    },
  });
  await getRedis().del(runKeys(id).token);
  await releaseStackClaim({ kind: "run", id });
  await keepTimeline(run.saleId).catch(() => {});
}

export async function getRun(id: number): Promise<RunRecord> {
  const row = await getDb().run.findUnique({ where: { id } });
  if (!row) throw new RunNotFoundError(id);
  const record = toRecord(row);
  if (row.status !== "running") return record;
  const redis = getRedis();
  const keys = runKeys(id);
  const [progress, timeline, stats] = await Promise.all([
    redis.hgetall(keys.progress),
    redis.lrange(keys.timeline, 0, -1),
    getSaleStats(row.saleId),
  ]);
  return {
    ...record,
    ...invariantsOf(stats),
    // Figures while it runs, but no verdict until it is counted: a run that has sold nothing yet is not a PASS.
    verdict: null,
    timeline: timeline.map((raw) => JSON.parse(raw) as TimelinePoint),
    progress: Object.fromEntries(
      Object.entries(progress).filter(([key]) => key !== "reportedAt").map(([key, value]) => [key, Number(value)]),
    ),
  };
}

export async function listRuns(limit = 200): Promise<RunRecord[]> {
  const rows = await getDb().run.findMany({ orderBy: { id: "desc" }, take: limit });
  return rows.map((row) => ({ ...toRecord(row), timeline: [] }));
}

export async function getActiveRunId(): Promise<number | undefined> {
  const claim = await getStackClaim();
  return claim?.kind === "run" ? claim.id : undefined;
}
