"use client";

import { useLocale, useTranslations } from "next-intl";
import { forwardRef } from "react";
import type { Anomaly } from "@/lib/timeline/anomalies";
import type { Holder } from "@/lib/timeline/holders";
import { criticalSection } from "@/lib/timeline/holders";
import type { Vote } from "@/lib/timeline/events";
import {
  DIAGRAM, VOTE_COLOURS, diagramHeight, laneTop, niceTicks, placeFaultLabels, placeLaneLabels, placeNodeRows, scale, textUnits, type Layout, type PlacedNodeRow,
} from "@/lib/timeline/layout";
import { FONT_STACKS } from "../../../../../fonts";
import { voteTitle } from "./vote-title";

const {
  width: WIDTH, left: LEFT, right: RIGHT, top: TOP, fontSize: FONT, laneHeight: LANE_H, labelBaseline: LABEL_Y, barTop: BAR_Y, barHeight: BAR_H,
  nodeHeadHeight: NODE_HEAD_H, nodeRowHeight: NODE_H, faultLabelRow: FAULT_ROW,
} = DIAGRAM;
/** A lane's bar, from the lane's top: its middle, where the wait line and the name sit. */
const BAR_MID = BAR_Y + BAR_H / 2;

interface Props {
  readonly layout: Layout;
  readonly anomalies: readonly Anomaly[];
  /** Each anomaly in the reader's language, naming people (./anomaly-text.ts). */
  readonly texts: readonly string[];
  readonly window: { readonly from: number; readonly to: number };
  /** Redis µs: events after it are dimmed (the replay cursor). */
  readonly cursor: number;
  readonly focused?: number;
  /** Holders whose lanes are highlighted: the focused anomaly's. */
  readonly highlighted?: ReadonlySet<string>;
  /** Workshop mode: the display names of human buyers (buyer id → name); their lanes are marked. */
  readonly people?: Readonly<Record<string, string>>;
}

/** The space-time diagram: one lane per holder, grouped by instance; see the legend for marks. */
export const TimelineSvg = forwardRef<SVGSVGElement, Props>(function TimelineSvg({ layout, anomalies, texts, window, cursor, focused, highlighted, people }, ref) {
  const t = useTranslations("timeline");
  const locale = useLocale();
  const height = diagramHeight(layout);
  const x = scale(window.from, window.to, LEFT, WIDTH - RIGHT);
  const clampX = (t: number) => Math.min(Math.max(x(t), LEFT), WIDTH - RIGHT);
  const nodeRows = placeNodeRows(layout, x, window);
  const ms = (t: number) => (t - layout.start) / 1000;
  const ticks = niceTicks(ms(window.from), ms(window.to), 8, 0.001);
  return (
    <svg ref={ref} data-testid="timeline-svg" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img"
      aria-label={t("svgLabel")} xmlns="http://www.w3.org/2000/svg"
      // The font stack is written into the SVG itself: an exported slide draws CJK names with the same fonts.
      style={{ fontFamily: FONT_STACKS[locale], fontSize: FONT, background: "#fff" }}>
      <defs>
        <clipPath id="plot"><rect x={LEFT} y={0} width={WIDTH - LEFT - RIGHT} height={height} /></clipPath>
      </defs>
      {ticks.map((tick) => (
        <g key={tick}>
          <line x1={x(layout.start + tick * 1000)} x2={x(layout.start + tick * 1000)} y1={TOP - 6} y2={height} stroke="#eee" />
          <text x={x(layout.start + tick * 1000)} y={TOP - 10} textAnchor="middle" fill="#555">{t("tick", { tick })}</text>
        </g>
      ))}
      <g clipPath="url(#plot)">
        {layout.faults.map((band, index) => {
          // A fault of one instance's links covers that instance's lanes only; any other, every lane.
          const rows = band.instance ? instanceRows(layout, band.instance) : undefined;
          const top = rows ? laneTop(rows.first) : TOP - 4;
          const bottom = rows ? laneTop(rows.last + 1) : height;
          return (
          <g key={`fault-${index}`} data-testid="timeline-fault" data-instance={band.instance}>
            <rect x={clampX(band.from)} y={top} width={Math.max(2, clampX(band.to) - clampX(band.from))} height={bottom - top}
              fill={band.instance ? "#c92a2a" : "#8a6d3b"} opacity={band.instance ? 0.1 : 0.08}><title>{band.note}</title></rect>
          </g>
          );
        })}
        {/* One label per action (a grudge of nine cuts is one), each on the lowest row where it clears the others. */}
        {placeFaultLabels(layout.faults, clampX).map((label) => (
          <text key={`fault-label-${label.x}-${label.row}`} data-testid="timeline-fault-label" x={label.x} y={height - 5 - label.row * FAULT_ROW} fill="#6b5228">
            {label.text}<title>{label.title}</title>
          </text>
        ))}
      </g>
      {layout.rows.map((row, index) =>
        row.kind === "instance" ? (
          <text key={`i-${row.instance}`} x={6} y={laneTop(index) + BAR_MID + 5} fontWeight={700} fill="#333">{row.instance}</text>
        ) : (
          <Lane key={row.holder.id} holder={row.holder} y={laneTop(index)} x={x} anomalies={anomalies}
            highlighted={highlighted?.has(row.holder.id) ?? false} person={row.holder.buyer ? people?.[row.holder.buyer] : undefined} />
        ),
      )}
      {nodeRows.length > 0 && <NodeRows rows={nodeRows} top={laneTop(layout.rows.length)} />}
      <g clipPath="url(#plot)">
        {anomalies.map((anomaly, index) =>
          anomaly.kind !== "overlap" ? null : anomaly.holders.map((id) => {
            // Over the bars only: the labels' line above them stays readable.
            const y = laneTop(layout.rowOf.get(id) ?? 0);
            return (
              <rect key={`overlap-${index}-${id}`} data-testid="timeline-overlap" data-focused={focused === index ? "true" : undefined}
                x={clampX(anomaly.t)} y={y + BAR_Y - 3} width={Math.max(3, clampX(anomaly.until) - clampX(anomaly.t))} height={BAR_H + 6}
                fill="#d32f2f" opacity={0.55} stroke={focused === index ? "#000" : "none"} strokeWidth={2}>
                <title>{texts[index] ?? anomaly.note}</title>
              </rect>
            );
          }),
        )}
      </g>
      {cursor < window.to && (
        <g>
          <rect x={clampX(cursor)} y={TOP - 4} width={WIDTH - RIGHT - clampX(cursor)} height={height - TOP} fill="#fff" opacity={0.7} />
          <line x1={clampX(cursor)} x2={clampX(cursor)} y1={TOP - 6} y2={height} stroke="#1565c0" strokeWidth={2} />
        </g>
      )}
    </svg>
  );
});

/**
 * Buyer names from load tools share a long prefix: the lane shows their distinctive end, as much
 * as fits the column left of the plot (a Korean name's characters are twice a Latin letter's width).
 */
function shortName(name: string, from: number): string {
  const room = LEFT - from - 6;
  if (textUnits(name) <= room) return name;
  const chars = [...name];
  let keep = chars.length - 1;
  while (keep > 1 && textUnits(`…${chars.slice(-keep).join("")}`) > room) keep -= 1;
  return `…${chars.slice(-keep).join("")}`;
}

interface LaneProps {
  readonly holder: Holder;
  readonly y: number;
  readonly x: (t: number) => number;
  readonly anomalies: readonly Anomaly[];
  readonly highlighted: boolean;
  /** A person (workshop mode) rather than a load run: shown by name, marked with a figure. */
  readonly person?: string;
}

function Lane({ holder, y, x, anomalies, highlighted, person }: LaneProps) {
  const t = useTranslations("timeline");
  const mid = y + BAR_MID;
  const barY = y + BAR_Y;
  const end = holder.releasedAt ?? holder.outcomeAt ?? holder.write?.t ?? holder.leftAt ?? holder.acquiredAt;
  const section = criticalSection(holder);
  const late = anomalies.some((anomaly) => anomaly.kind === "write-after-expiry" && anomaly.holders[0] === holder.id);
  const twice = anomalies.some((anomaly) => anomaly.kind === "unit-twice" && anomaly.holders.includes(holder.id));
  const where = { holder: holder.id, instance: holder.instance ?? "?" };
  const hover = [
    person ? t("hoverPerson", { name: person, buyer: holder.buyer ?? "?", ...where }) : t("hoverBuyer", { buyer: holder.buyer ?? "?", ...where }),
    holder.fence !== undefined ? t("hoverFence", { fence: String(holder.fence) }) : "",
    holder.token ? t("hoverLockToken", { token: holder.token }) : "",
    holder.votes ? t("hoverVotes", { votes: holder.votes.votes.join(", "), validity: holder.votes.validityMs ?? "?" }) : "",
  ].filter(Boolean).join("\n");
  // The labels' line above the bar, in time order, each placed clear of the one before.
  const labels: { key: string; t: number; text: string; fill: string; bold?: boolean; testId?: string }[] = [];
  if (holder.read) labels.push({ key: "read", t: holder.read.t, text: t("read", { stock: holder.read.stock }), fill: "#0d47a1" });
  if (holder.write) {
    labels.push({
      key: "wrote", t: holder.write.t, text: `${t("wrote", { stock: holder.write.stock })}${late ? t("late") : ""}`,
      fill: late || twice ? "#b71c1c" : "#0d47a1", bold: late || twice,
    });
  }
  // The reconciler put this holder's unit back (its order never landed): the unit's next write is a new sale.
  if (holder.givenBack) labels.push({ key: "given-back", t: holder.givenBack.t, text: t("givenBack", { unit: holder.givenBack.unit }), fill: "#1f8a4c", testId: "timeline-given-back" });
  if (holder.outcome && holder.outcomeAt !== undefined) labels.push({ key: "outcome", t: holder.outcomeAt, text: t("outcome", { outcome: holder.outcome }), fill: "#6d4c41" });
  labels.sort((a, b) => a.t - b.t);
  const nameX = person ? 22 : 8;
  const labelXs = placeLaneLabels(labels.map((label) => ({ x: x(label.t), text: label.text, bold: label.bold })), WIDTH - RIGHT, LEFT);
  return (
    <g data-testid="timeline-lane" data-holder={holder.id} data-highlighted={highlighted ? "true" : undefined} data-person={person}>
      {highlighted && (
        <>
          <rect x={0} y={y} width={WIDTH} height={LANE_H} fill="#ffc107" opacity={0.25} />
          <rect x={0} y={y} width={4} height={LANE_H} fill="#d32f2f" />
        </>
      )}
      {/* A person is marked with a drawn figure, not an emoji: a machine without an emoji font draws an empty box. */}
      {person && (
        <g data-testid="timeline-person-mark" fill={highlighted ? "#000" : "#555"}>
          <circle cx={13} cy={mid - 3} r={3} />
          <path d={`M8 ${mid + 6} a5 4.8 0 0 1 10 0 z`} />
        </g>
      )}
      <text x={nameX} y={mid + 5} fill={highlighted ? "#000" : "#333"} fontWeight={highlighted ? 700 : 400}>
        <title>{hover}</title>{shortName(person ?? holder.buyer ?? holder.id, nameX)}
      </text>
      <g clipPath="url(#plot)">
        <title>{hover}</title>
        {holder.waitFrom !== undefined && (holder.acquiredAt ?? holder.outcomeAt) !== undefined && (
          <line x1={x(holder.waitFrom)} x2={x((holder.acquiredAt ?? holder.outcomeAt)!)} y1={mid} y2={mid} stroke="#9e9e9e" strokeDasharray="2 3" />
        )}
        {holder.acquiredAt !== undefined && end !== undefined && (
          <rect data-testid="timeline-hold" x={x(holder.acquiredAt)} y={barY} width={Math.max(2, x(end) - x(holder.acquiredAt))} height={BAR_H} rx={3} fill="#90caf9" />
        )}
        {section && <rect data-testid="timeline-critical" x={x(section.from)} y={barY} width={Math.max(2, x(section.to) - x(section.from))} height={BAR_H} fill="#1565c0" />}
        {holder.expiresAt !== undefined && (
          <line x1={x(holder.expiresAt)} x2={x(holder.expiresAt)} y1={barY - 4} y2={barY + BAR_H + 4} stroke="#ef6c00" strokeWidth={2} strokeDasharray="3 2">
            <title>{t("leaseRunsOut")}</title>
          </line>
        )}
        {holder.renewals.map((t, index) => <line key={index} x1={x(t)} x2={x(t)} y1={barY - 3} y2={barY + 3} stroke="#1f8a4c" strokeWidth={2} />)}
        {labels.map((label, index) => (
          <text key={label.key} data-testid={label.testId ?? "timeline-lane-label"} x={labelXs[index]} y={y + LABEL_Y}
            fontWeight={label.bold ? 700 : 400} fill={label.fill}>
            {label.text}
          </text>
        ))}
        {holder.refusedWrite && (
          <text x={x(holder.refusedWrite.t)} y={mid + 6} textAnchor="middle" fontSize={FONT + 2} fontWeight={700} fill="#b71c1c">
            ✕<title>
              {holder.refusedWrite.fence !== undefined ? t("writeRefusedFence", { fence: String(holder.refusedWrite.fence) }) : t("writeRefused")}
              {holder.refusedWrite.note ? `: ${holder.refusedWrite.note}` : ""}
            </title>
          </text>
        )}
      </g>
    </g>
  );
}

/**
 * Redlock's votes, one row per Redis node across the whole run: a mark per acquire attempt in the
 * colour of the node's vote, and after each granted vote of an acquire that won, a thin bar for
 * the validity it had left. The key is drawn in the SVG so an exported slide explains itself.
 */
function NodeRows({ rows, top }: { rows: readonly PlacedNodeRow[]; top: number }) {
  const t = useTranslations("timeline");
  const words = useTranslations("votes");
  const keyY = top + NODE_HEAD_H / 2 + 6;
  let keyX = LEFT;
  const key = (Object.keys(VOTE_COLOURS) as Vote[]).map((vote) => {
    const at = keyX;
    keyX += 22 + textUnits(words(vote));
    return (
      <g key={vote}>
        <rect x={at} y={keyY - 11} width={6} height={13} fill={VOTE_COLOURS[vote]} />
        <text x={at + 9} y={keyY} fill="#333">{words(vote)}</text>
      </g>
    );
  });
  return (
    <g data-testid="timeline-nodes">
      <line x1={0} x2={WIDTH} y1={top + 2} y2={top + 2} stroke="#bbb" />
      <text x={6} y={keyY} fontWeight={700} fill="#333">{t("redlockVotes")}</text>
      {key}
      <line x1={keyX} x2={keyX + 24} y1={keyY - 3} y2={keyY - 3} stroke={VOTE_COLOURS.granted} strokeWidth={3} opacity={0.45} />
      <text x={keyX + 30} y={keyY} fill="#333">{t("validityWon")}</text>
      {rows.map((row, index) => {
        const mid = row.y + NODE_H / 2;
        return (
          <g key={row.node} data-testid="timeline-node-row" data-node={row.node}>
            {index % 2 === 0 && <rect x={LEFT} y={row.y} width={WIDTH - LEFT - RIGHT} height={NODE_H} fill="#000" opacity={0.035} />}
            <text x={8} y={mid + 5} fill="#333">{t("node", { node: row.node })}</text>
            <g clipPath="url(#plot)">
              {row.votes.map((placed, index) => placed.validUntilX !== undefined && (
                <line key={index} x1={placed.x} x2={placed.validUntilX} y1={mid + 7} y2={mid + 7}
                  stroke={VOTE_COLOURS.granted} strokeWidth={3} opacity={0.45} />
              ))}
              {row.votes.map((placed, index) => (
                <rect key={index} data-testid="timeline-vote" data-vote={placed.mark.vote}
                  x={placed.x - 2.5} y={mid - 7} width={5} height={12} fill={VOTE_COLOURS[placed.mark.vote]}>
                  <title>{voteTitle(t("node", { node: row.node }), placed, words)}</title>
                </rect>
              ))}
            </g>
          </g>
        );
      })}
    </g>
  );
}

/** The rows of one instance's group (its heading and its lanes), or undefined when it has none. */
function instanceRows(layout: Layout, instance: string): { first: number; last: number } | undefined {
  const indexes = layout.rows.flatMap((row, index) => ((row.kind === "instance" ? row.instance : row.holder.instance) === instance ? [index] : []));
  return indexes.length ? { first: indexes[0]!, last: indexes[indexes.length - 1]! } : undefined;
}
