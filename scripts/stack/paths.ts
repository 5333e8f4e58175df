import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const STACK_DIR = path.join(ROOT, ".stack");
export const LOG_DIR = path.join(STACK_DIR, "logs");
export const PID_DIR = path.join(STACK_DIR, "pids");
/** The running stack's variables, for other processes (bench, tests); removed when it stops. */
export const ENV_FILE = path.join(STACK_DIR, "stack.env");

export function mkdirp(dir: string, mode?: number): string {
  fs.mkdirSync(dir, { recursive: true, mode });
  return dir;
}
