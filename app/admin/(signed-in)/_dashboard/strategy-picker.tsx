"use client";

import { useId } from "react";
import type { LockStrategy } from "@/lib/locks/types";
import { FieldErrors } from "./fields";

/** What the admin page tells the picker about each strategy (from listStrategies()). */
export interface StrategyOption {
  name: string;
  safe: boolean;
  lab: boolean;
  localLine?: LockStrategy["localLine"];
}

/** The local line in a few words, and in a sentence for the tooltip (lib/locks/local-line.ts). */
const LOCAL_LINE = {
  "hand-off": {
    label: "local line: hand-off",
    meaning:
      "Buyers on one app instance queue in-process, and only the head of the line contends in Redis. The lock is handed to the next local buyer without a Redis round trip (for a short share of the TTL, so other instances get their turn).",
  },
  queue: {
    label: "local line: queue",
    meaning:
      "Buyers on one app instance queue in-process, and only the head of the line contends in the shared lock server (Redis, ZooKeeper, etcd). Each holder still releases the lock before the next local buyer takes it again.",
  },
  none: {
    label: "no local line: every buyer contends on its own",
    meaning:
      "No in-process line: every buyer on every instance contends for the lock itself (in Redis for the Redis locks), or takes no lock at all for the lock-free strategies.",
  },
} as const;

interface Props {
  strategies: readonly StrategyOption[];
  value: string;
  onChange: (name: string) => void;
  errors?: string[];
}

/** The strategy select, and a note on the chosen one: is it safe, and do its buyers line up locally? */
export function StrategyPicker({ strategies, value, onChange, errors }: Props) {
  const chosen = strategies.find((strategy) => strategy.name === value);
  const line = LOCAL_LINE[chosen?.localLine ?? "none"];
  const noteId = useId();
  return (
    <>
      <label>
        Strategy
        <select name="strategy" value={value} onChange={(event) => onChange(event.target.value)} aria-describedby={noteId}>
          {strategies.map((strategy) => (
            <option key={strategy.name} value={strategy.name}>
              {strategy.name}{strategy.safe ? "" : " (unsafe)"}{strategy.lab ? " — lab variant" : ""}
            </option>
          ))}
        </select>
        <FieldErrors messages={errors} />
      </label>
      {chosen && (
        <p className="strategy-note muted" id={noteId} data-testid="strategy-note">
          <span className="strategy-badge">{chosen.name}</span> {chosen.safe ? "safe across instances" : "unsafe"}
          {chosen.lab ? ", a lab variant" : ""} ·{" "}
          <span className="hint" title={line.meaning} data-testid="strategy-local-line">{line.label}</span>
        </p>
      )}
    </>
  );
}
