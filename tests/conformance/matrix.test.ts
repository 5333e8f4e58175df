/**
 * The conformance matrix (lib/lab/conformance.ts): every lock, ours and the npm libraries', through
 * the same fault schedule on the real stack, each repetition counted by the tests' own checker.
 * `npm run conformance` plays every cell (5 times unless CONFORMANCE_REPS says) and writes
 * docs/conformance.md, docs/conformance.svg and the first failure's holder timeline of each cell
 * (docs/conformance/). `npm test` plays each cell once (CONFORMANCE_REPS=1) — every cell the lab suite does not
 * already play (a card's case with the same lock and schedule: sameAsCardCase; the lab judges those
 * by the card's own, stricter, conditions) and writes its report to a temporary folder.
 *
 * What must hold, whatever the libraries do: the lab's own figures for every repetition are the
 * checker's; every fault was really applied (a step that could not cut, stop or jump fails its
 * case); a pause counts only if it froze a buyer and a second holder entered meanwhile (pauseFormed:
 * else the repetition is played again, and reads "fault did not form" if it never does); and a
 * fenced lock sells no unit twice and loses none under any fault of the schedule. What the unfenced locks do is the matrix's finding, not a pass condition.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MATRIX_FAULTS, MATRIX_ROWS, MAX_CELL_PLAYS, matrixCell, pauseFormed, sameAsCardCase, type CellResult, type MatrixFault, type MatrixRow, type RepResult } from "@/lib/lab/conformance";
import { faultBudgetKey } from "@/lib/lab/faults";
import { renderChart, renderMarkdown } from "@/lib/lab/conformance-report";
import { resetLab, runCase } from "@/lib/lab/runner";
import { getRedis } from "@/lib/redis";
import { checkSale, peakHolders } from "../support/accounting";
import { timelineSvgFile } from "./timeline-file";

const REPS = Number(process.env.CONFORMANCE_REPS ?? 1);
/** Where the report goes: docs/ for `npm run conformance`, a temporary folder otherwise. */
const OUT = process.env.CONFORMANCE_OUT ? path.resolve(process.env.CONFORMANCE_OUT) : fs.mkdtempSync(path.join(os.tmpdir(), "locklab-conformance-"));
const TIMELINES = "conformance";
/** Every cell, the lab cards' own cases included (`npm run conformance`). */
const ALL = process.env.CONFORMANCE_ALL === "1";

const results: CellResult[] = [];
const startedAt = new Date();

beforeAll(() => {
  fs.mkdirSync(path.join(OUT, TIMELINES), { recursive: true });
  // Timelines of an earlier run would be linked from nowhere.
  for (const file of fs.readdirSync(path.join(OUT, TIMELINES))) if (file.endsWith(".svg")) fs.rmSync(path.join(OUT, TIMELINES, file));
});

afterAll(async () => {
  await resetLab();
  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    } catch {
      return undefined;
    }
  })();
  const meta = { reps: REPS, startedAt: startedAt.toISOString().slice(0, 16).replace("T", " ") + " UTC", durationS: (Date.now() - startedAt.getTime()) / 1000, commit };
  fs.writeFileSync(path.join(OUT, "conformance.md"), renderMarkdown(results, meta));
  fs.writeFileSync(path.join(OUT, "conformance.svg"), renderChart(results, meta));
  // The cells as data: the table and chart can be drawn again from it (lib/lab/conformance-report.ts).
  fs.writeFileSync(path.join(OUT, "conformance.json"), `${JSON.stringify({ meta, results }, null, 1)}\n`);
  console.log(`conformance: ${results.length} cells, ${REPS} repetitions each, ${Math.round(meta.durationS)} s — ${path.join(OUT, "conformance.md")}`);
});

interface Played {
  readonly result: RepResult;
  readonly saleId?: number;
  readonly twoHolders: boolean;
  readonly error?: string;
  readonly notFormed?: string;
}

/**
 * One repetition: the cell's case on the stack, counted by the checker; played again when its
 * fault did not form (pauseFormed), at most MAX_CELL_PLAYS plays, and `not-formed` if it never did.
 */
async function playRep(row: MatrixRow, fault: MatrixFault, rep: number): Promise<Played> {
  let played: Played | undefined;
  for (let play = 1; play <= MAX_CELL_PLAYS; play += 1) {
    played = await playOnce(row, fault, play === 1 ? `${rep}` : `${rep}p${play}`);
    if (played.notFormed === undefined) return played;
    console.log(`conformance ${row.strategy} × ${fault}, repetition ${rep}, play ${play}: not counted, ${played.notFormed}`);
  }
  return { ...played!, result: "not-formed" };
}

/** One play: the cell's case on the stack, counted by the checker. */
async function playOnce(row: MatrixRow, fault: MatrixFault, rep: string): Promise<Played> {
  const schedule = matrixCell(row, fault);
  if (!("play" in schedule)) throw new Error("not a played cell");
  const outcome = await runCase(schedule.play, `conf-${rep}-${row.strategy}-${fault}`);
  const saleId = outcome.saleId!;
  const checked = await checkSale(saleId);
  // The product's figures for the repetition are the checker's.
  expect({ orders: outcome.orders, doubleSold: outcome.doubleSold, lostUnits: outcome.lostUnits, phantomUnits: outcome.phantomUnits },
    `${row.strategy} × ${fault}: the lab's figures against the checker's`).toEqual(
    { orders: checked.orders, doubleSold: checked.doubleSold, lostUnits: checked.lostUnits, phantomUnits: checked.phantomUnits });
  const peak = await peakHolders(saleId);
  const twoHolders = peak > 1;
  // The freeze is spent by the buyer it froze, and a second holder entered while it was frozen.
  if (schedule.play.faults?.some((planned) => planned.point === "pause-before-write")) {
    const formed = pauseFormed(await getRedis().get(faultBudgetKey("pause-before-write")), peak);
    if (!formed.formed) return { result: "not-formed", saleId, twoHolders, notFormed: formed.why };
  }
  if (checked.doubleSold > 0 || checked.oversell > 0) return { result: "sold-twice", saleId, twoHolders };
  if (checked.lostUnits > 0 || checked.phantomUnits > 0 || checked.pendingUnits > 0) return { result: "lost", saleId, twoHolders };
  if (outcome.liveness === "stuck") return { result: "stuck", saleId, twoHolders };
  return { result: "held", saleId, twoHolders };
}

/** The cells to play here: `undefined` for one the lab suite plays as a card's case. */
const toPlay = (row: MatrixRow, fault: MatrixFault) => {
  const schedule = matrixCell(row, fault);
  return "play" in schedule && (ALL || !sameAsCardCase(schedule)) ? schedule : undefined;
};

for (const row of MATRIX_ROWS) {
  for (const fault of MATRIX_FAULTS) {
    const schedule = matrixCell(row, fault);
    const card = "play" in schedule ? sameAsCardCase(schedule) : undefined;
    if ("play" in schedule && !toPlay(row, fault)) results.push({ strategy: row.strategy, fault, skip: `played by the lab suite, as card ${card}`, reps: [], twoHolders: 0 });
  }
}

const rowsToPlay = MATRIX_ROWS.filter((row) => MATRIX_FAULTS.some((fault) => toPlay(row, fault)));
describe.each(rowsToPlay.map((row) => [row.strategy, row] as const))("conformance %s", (_name, row) => {
  for (const fault of MATRIX_FAULTS) {
    const schedule = toPlay(row, fault);
    if (!schedule) continue;
    it(`${fault} (${schedule.from}), ${REPS}×`, async () => {
      const reps: RepResult[] = [];
      let twoHolders = 0;
      let timeline: string | undefined;
      let error: string | undefined;
      for (let rep = 1; rep <= REPS; rep += 1) {
        const played = await playRep(row, fault, rep).catch((failure: Error): Played => ({ result: "error", saleId: undefined, twoHolders: false, error: failure.message }));
        reps.push(played.result);
        if (played.twoHolders) twoHolders += 1;
        error ??= played.error;
        if (!timeline && played.saleId !== undefined && played.result !== "held") {
          const svg = await timelineSvgFile(played.saleId).catch(() => undefined);
          if (svg) {
            timeline = `${TIMELINES}/${row.strategy}--${fault}.svg`;
            fs.writeFileSync(path.join(OUT, timeline), svg);
          }
        }
      }
      results.push({ strategy: row.strategy, fault, from: schedule.from, reps, twoHolders, ...(timeline && { timeline }), ...(error && { error }) });
      // Every repetition was played with its fault applied.
      expect(error, `${row.strategy} × ${fault}`).toBeUndefined();
      // A fenced lock sells no unit twice and loses none, whatever the fault (a repetition whose
      // fault never formed proves nothing: the matrix says so, and never counts it as held).
      if (row.fenced) expect(reps.filter((rep) => rep !== "held" && rep !== "not-formed"), `${row.strategy} (fenced) × ${fault}`).toEqual([]);
    });
  }
});
