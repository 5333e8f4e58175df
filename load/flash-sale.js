/*
 * Lock Lab flash-sale spike for stock k6 (v0.45 through v2). Every VU hammers POST /api/buy with its
 * own buyer per request and classifies each answer: 201 bought, 409 sold out, 423 busy, anything
 * else an error.
 * Plain ES2019 on purpose — no `?.`, `??`, object spread or class fields — so stock k6 runs it.
 *
 * The open model is the default, as a flash sale is: buyers arrive at a rate whatever the store
 * answers (a spike when the sale opens: 0 → RATE/s in RAMP, then RATE/s for DURATION), up to
 * MAX_VUS in flight. MODEL=closed is a fixed pool of VUS buying back to back (for a time, or a
 * fixed amount of ITERATIONS), which hides queueing: a slow store slows its own buyers down.
 *
 *   k6 run -e RATE=500 -e DURATION=20s load/flash-sale.js
 *   RUN_TOKEN=… k6 run --include-system-env-vars -e MODEL=closed -e VUS=50 -e ITERATIONS=2000 -e RUN_ID=7 load/flash-sale.js
 *   (the token from the environment: a command line, -e included, is anyone's to read)
 *
 * teardown() reads the server's own accounting (GET /api/sale) into sale_units_double_sold and
 * sale_units_lost; their thresholds make k6 exit non-zero when a unit was sold twice or lost. A
 * run that cannot read the accounting (asked ACCOUNTING_TRIES times, a second apart) has not
 * shown that nothing went wrong: it counts sale_accounting_unread, whose threshold fails it too.
 *
 * With RUN_ID and RUN_TOKEN, handleSummary posts k6's summary data to the run API, which reads the
 * purchase_* metrics below (lib/runs/k6-summary.ts) — keep their names in step with it.
 */
import { check, sleep } from "k6";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";

var BASE_URL = (__ENV.BASE_URL || "http://127.0.0.1:3000").replace(/\/+$/, "");
var VUS = positiveInt(__ENV.VUS, 50);
var ITERATIONS = __ENV.ITERATIONS ? positiveInt(__ENV.ITERATIONS, 0) : 0;
var DURATION = __ENV.DURATION || "20s";
var RUN_ID = __ENV.RUN_ID || "";
var RUN_TOKEN = __ENV.RUN_TOKEN || "";
var REQUEST_TIMEOUT = __ENV.REQUEST_TIMEOUT || "30s";
var MODEL = __ENV.MODEL || "open";
var RATE = positiveInt(__ENV.RATE, 200);
var RAMP = __ENV.RAMP || "2s";
var MAX_VUS = positiveInt(__ENV.MAX_VUS, 1000);

var purchaseRequests = new Counter("purchase_requests");
var purchaseBought = new Counter("purchase_bought");
var purchaseSoldOut = new Counter("purchase_sold_out");
var purchaseBusy = new Counter("purchase_busy");
var purchaseErrors = new Counter("purchase_errors");
var purchaseDuration = new Trend("purchase_duration", true);
var saleDoubleSold = new Counter("sale_units_double_sold");
var saleLost = new Counter("sale_units_lost");
var saleUnread = new Counter("sale_accounting_unread");
var ACCOUNTING_TRIES = 5;

function positiveInt(raw, fallback) {
  if (raw === undefined || raw === "") return fallback;
  var n = Number(raw);
  if (!(n >= 1) || Math.floor(n) !== n) throw new Error("expected a positive integer, got " + raw);
  return n;
}

if (MODEL !== "open" && MODEL !== "closed") throw new Error("MODEL must be open or closed, got " + MODEL);

/** Open: buyers arrive at RATE/s after a RAMP from 0 (the sale opens), however slowly the store answers. */
function openModel() {
  return {
    executor: "ramping-arrival-rate",
    startRate: 0,
    timeUnit: "1s",
    preAllocatedVUs: Math.min(MAX_VUS, Math.max(10, Math.ceil(RATE / 10))),
    maxVUs: MAX_VUS,
    stages: [
      { target: RATE, duration: RAMP },
      { target: RATE, duration: DURATION },
    ],
  };
}

/** Closed: a fixed amount of purchases shared by all VUs, or all VUs buying for a fixed time. */
function closedModel() {
  return ITERATIONS
    ? { executor: "shared-iterations", vus: Math.min(VUS, ITERATIONS), iterations: ITERATIONS, maxDuration: "5m" }
    : { executor: "constant-vus", vus: VUS, duration: DURATION };
}

var spike = MODEL === "open" ? openModel() : closedModel();
spike.gracefulStop = "10s";

export var options = {
  scenarios: { spike: spike },
  // Sold out and busy are the answers a flash sale is supposed to give, not failures.
  thresholds: {
    checks: ["rate>0.95"],
    purchase_duration: ["p(95)<5000"],
    // The stock went wrong: k6 exits non-zero (read from the server's accounting in teardown).
    sale_units_double_sold: ["count<1"],
    sale_units_lost: ["count<1"],
    // Counters never fed read as "nothing sold twice": not reading the accounting fails the run.
    sale_accounting_unread: ["count<1"],
  },
  summaryTrendStats: ["avg", "min", "med", "max", "p(50)", "p(95)", "p(99)"],
  noConnectionReuse: false,
};

http.setResponseCallback(http.expectedStatuses(201, 409, 423));

function bodyOf(response) {
  try {
    var parsed = JSON.parse(response.body);
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch (error) {
    return {};
  }
}

export default function () {
  var response = http.post(BASE_URL + "/api/buy", JSON.stringify({ buyer: "vu-" + __VU + "-" + __ITER }), {
    headers: { "content-type": "application/json", accept: "application/json" },
    tags: { name: "POST /api/buy" },
    timeout: REQUEST_TIMEOUT,
  });
  var body = bodyOf(response);
  var status = response.status;

  var known = status === 201 || status === 409 || status === 423;
  purchaseRequests.add(1);
  purchaseDuration.add(response.timings.duration);
  // Zeros too: k6 leaves a metric that never got a sample out of the summary entirely.
  purchaseBought.add(status === 201 ? 1 : 0);
  purchaseSoldOut.add(status === 409 ? 1 : 0);
  purchaseBusy.add(status === 423 ? 1 : 0);
  purchaseErrors.add(known ? 0 : 1);

  check(response, {
    "answer is bought, sold out or busy": function () {
      return known;
    },
    "body says what the status says": function () {
      if (status === 201) return body.status === "bought";
      if (status === 409) return body.code === "sold_out";
      if (status === 423) return body.code === "busy";
      return false;
    },
  });
}

/** The server's accounting of the sale just run: units sold twice and lost, from its durable record. */
export function teardown() {
  var response;
  var sale = {};
  for (var attempt = 1; attempt <= ACCOUNTING_TRIES; attempt++) {
    response = http.get(BASE_URL + "/api/sale", { timeout: "10s", tags: { name: "GET /api/sale" } });
    sale = bodyOf(response);
    if (response.status === 200 && typeof sale.doubleSold === "number" && typeof sale.lostUnits === "number") {
      saleDoubleSold.add(sale.doubleSold);
      saleLost.add(sale.lostUnits);
      return;
    }
    if (attempt < ACCOUNTING_TRIES) sleep(1);
  }
  saleUnread.add(1);
  console.error("GET /api/sale answered " + response.status + " " + ACCOUNTING_TRIES + " times: the stock cannot be checked, so the run fails");
}

function metricValue(data, name, stat) {
  var metric = data.metrics[name];
  if (!metric || !metric.values || typeof metric.values[stat] !== "number") return 0;
  return metric.values[stat];
}

function pad(text, width) {
  text = String(text);
  while (text.length < width) text += " ";
  return text;
}

function ms(value) {
  return value.toFixed(1) + " ms";
}

function textSummary(data, completion) {
  var count = function (name) {
    return metricValue(data, name, "count");
  };
  var seconds = data.state.testRunDurationMs / 1000;
  var requests = count("purchase_requests");
  var lines = [
    "",
    "Lock Lab flash sale — " + BASE_URL + "/api/buy",
    "  " + pad("duration", 14) + seconds.toFixed(1) + " s",
    "  " + pad("requests", 14) + requests + " (" + (seconds > 0 ? (requests / seconds).toFixed(1) : "0") + "/s)",
    "  " + pad("bought", 14) + count("purchase_bought"),
    "  " + pad("sold out", 14) + count("purchase_sold_out"),
    "  " + pad("busy", 14) + count("purchase_busy"),
    "  " + pad("errors", 14) + count("purchase_errors"),
    "  " + pad("latency", 14) +
      "p50 " + ms(metricValue(data, "purchase_duration", "p(50)")) +
      "  p95 " + ms(metricValue(data, "purchase_duration", "p(95)")) +
      "  p99 " + ms(metricValue(data, "purchase_duration", "p(99)")) +
      "  max " + ms(metricValue(data, "purchase_duration", "max")),
    "  " + pad("checks", 14) + (metricValue(data, "checks", "rate") * 100).toFixed(2) + " %",
    "  " + pad("sold twice", 14) + count("sale_units_double_sold") + " units (server's accounting)",
    "  " + pad("lost", 14) + count("sale_units_lost") + " units",
  ];
  if (count("sale_accounting_unread") > 0) {
    lines.push("  " + pad("accounting", 14) + "NOT READ: GET /api/sale never answered; sold twice and lost are unknown, not 0");
  }
  var names = Object.keys(data.metrics);
  for (var i = 0; i < names.length; i++) {
    var thresholds = data.metrics[names[i]].thresholds;
    if (!thresholds) continue;
    var expressions = Object.keys(thresholds);
    for (var j = 0; j < expressions.length; j++) {
      var ok = thresholds[expressions[j]].ok;
      lines.push("  threshold " + (ok ? "ok     " : "CROSSED") + " " + names[i] + " " + expressions[j]);
    }
  }
  if (completion) lines.push("  " + pad("run", 14) + completion);
  lines.push("");
  return lines.join("\n");
}

/** Posts the summary to the run (when there is one) and prints a short plain-text report. */
export function handleSummary(data) {
  var completion = "";
  if (RUN_ID && RUN_TOKEN) {
    var response = http.post(
      BASE_URL + "/api/admin/runs/" + encodeURIComponent(RUN_ID) + "/complete",
      JSON.stringify({ tool: "k6", k6Summary: data }),
      {
        headers: { "content-type": "application/json", "x-run-token": RUN_TOKEN },
        timeout: "30s",
        responseCallback: http.expectedStatuses(200),
      }
    );
    completion =
      response.status === 200
        ? "run " + RUN_ID + " completed"
        : "run " + RUN_ID + " NOT completed: " + response.status + " " + String(response.body).slice(0, 300);
  }
  return { stdout: textSummary(data, completion) };
}
