/**
 * The built-in driver's two ways to send buyers (load/driver.mjs picks one):
 *  - closed: `vus` keep-alive connections each send the next purchase as soon as the last is
 *    answered (autocannon) — a slow store slows its own buyers down, which hides queueing;
 *  - open: buyers arrive at `rate` per second whatever the store answers (k6's arrival-rate
 *    executors), at most `vus` in flight; an arrival with none free is dropped and counted.
 * Each calls `onAnswer(status, ms)` per answer and `onError()` per network error or timeout, and
 * returns { finished, stop() }. Both stop sending at their bound and wait for the purchases still in
 * flight (as k6's graceful stop does): the store completes them, so the run must count them.
 */
import autocannon from "autocannon";

/** Connection errors and timeouts after which the target is clearly down: stop instead of spinning. */
export const BAILOUT_ERRORS = 1_000;

const buyRequest = (nextBuyer) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json" },
  body: () => JSON.stringify({ buyer: nextBuyer() }),
});

/** One purchase over fetch: its status and time to answer; rejects on a network error or timeout. */
async function buyOnce(target, request, requestTimeoutMs) {
  const sentAt = performance.now();
  const response = await fetch(target, { method: request.method, headers: request.headers, body: request.body(), signal: AbortSignal.timeout(requestTimeoutMs) });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - sentAt };
}

/**
 * One purchase, counted: its answer through `onAnswer`, a network error or timeout through `onError`;
 * `stop()` once BAILOUT_ERRORS of them have failed.
 */
function countedBuyer(target, request, requestTimeoutMs, { onAnswer, onError }, stop) {
  let errors = 0;
  return async () => {
    try {
      const { status, ms } = await buyOnce(target, request, requestTimeoutMs);
      onAnswer(status, ms);
    } catch {
      errors += 1;
      onError();
      if (errors >= BAILOUT_ERRORS) stop();
    }
  };
}

export function closedEngine(options, hooks) {
  return options.total !== undefined ? closedForAmount(options, hooks) : closedForDuration(options, hooks);
}

/**
 * A fixed number of purchases: autocannon, each connection sending its share and stopping when every
 * one is answered.
 */
function closedForAmount({ url, vus, total, requestTimeoutMs, nextBuyer }, { onAnswer, onError }) {
  let finish;
  const finished = new Promise((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const request = buyRequest(nextBuyer);
  const instance = autocannon(
    {
      url: new URL("/api/buy", url).href,
      method: request.method,
      headers: request.headers,
      // A fixed amount splits evenly over the connections and cannot be smaller than their count.
      connections: Math.min(vus, total),
      amount: total,
      // autocannon checks its stop flag once per sample interval: keep the overshoot small.
      sampleInt: 100,
      timeout: requestTimeoutMs / 1000,
      bailout: BAILOUT_ERRORS,
      requests: [
        {
          setupRequest(req) {
            req.body = request.body();
            return req;
          },
        },
      ],
    },
    (error, result) => finish(error, result),
  );
  instance.on("response", (_client, statusCode, _resBytes, responseTime) => onAnswer(statusCode, responseTime));
  instance.on("reqError", () => onError());
  return { finished, stop: () => instance.stop() };
}

/**
 * For a duration: `vus` lanes, each sending its next purchase when the last is answered, until the
 * deadline; then each waits for its last answer. (autocannon's duration destroys its connections
 * at the deadline: the purchases in flight were sold by the store and never counted — a run of 200
 * VUs showed 1,341 bought against 1,541 orders.)
 */
function closedForDuration({ url, vus, durationMs, requestTimeoutMs, nextBuyer }, hooks) {
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearTimeout(deadline);
  };
  const deadline = setTimeout(stop, durationMs);
  const buy = countedBuyer(new URL("/api/buy", url).href, buyRequest(nextBuyer), requestTimeoutMs, hooks, stop);
  const lane = async () => {
    while (!stopped) await buy();
  };
  const finished = Promise.all(Array.from({ length: vus }, lane)).then(stop);
  return { finished, stop };
}

/** How often the open model looks at the clock to start the arrivals that are due. */
const TICK_MS = 5;

export function openEngine({ url, vus, rate, rampMs = 0, total, durationMs, requestTimeoutMs, nextBuyer }, hooks) {
  const { onDropped } = hooks;
  const buy = countedBuyer(new URL("/api/buy", url).href, buyRequest(nextBuyer), requestTimeoutMs, hooks, () => stop());
  const started = performance.now();
  let arrived = 0;
  let inFlight = 0;
  let stopped = false;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const settleIfIdle = () => {
    if (stopped && inFlight === 0) done();
  };
  const send = async () => {
    inFlight += 1;
    try {
      await buy();
    } finally {
      inFlight -= 1;
      settleIfIdle();
    }
  };
  /** Arrivals due by `elapsed` ms: a linear ramp from 0 to `rate`/s over `rampMs`, then `rate`/s. */
  const dueBy = (elapsed) =>
    elapsed < rampMs ? (rate * elapsed * elapsed) / (2 * rampMs * 1000) : (rate * (rampMs / 2 + (elapsed - rampMs))) / 1000;
  const timer = setInterval(() => {
    const elapsed = performance.now() - started;
    if (durationMs !== undefined && elapsed >= durationMs) return stop();
    const due = Math.floor(dueBy(elapsed)) + 1;
    while (arrived < due) {
      if (total !== undefined && arrived >= total) return stop();
      arrived += 1;
      if (inFlight >= vus) onDropped?.();
      else void send();
    }
  }, TICK_MS);
  function stop() {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    settleIfIdle();
  }
  return { finished, stop };
}
