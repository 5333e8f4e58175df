import fs from "node:fs";

let quiet = false;

/** Quiet (every bootstrap mode but demo) prints one line for all Redis nodes instead of one each. */
export function setQuiet(value: boolean): void {
  quiet = value;
}

export function isQuiet(): boolean {
  return quiet;
}

export const since = (t0: number): string => `${Date.now() - t0} ms`;
export const secondsSince = (t0: number): string => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

export const say = (line: string): void => console.log(line);
export const info = (line: string): void => {
  if (!quiet) console.log(line);
};
export const ok = (what: string, t0?: number): void => say(`✓ ${what}${t0 ? ` (${since(t0)})` : ""}`);
export const warn = (line: string): void => console.warn(`! ${line}`);

/** The last lines of a log file, indented, for an error message. */
export function tail(file: string, lines = 15): string {
  try {
    const text = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    return text
      .slice(-lines)
      .map((l) => `    │ ${l}`)
      .join("\n");
  } catch {
    return "    │ (no log)";
  }
}
