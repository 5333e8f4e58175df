// The one `nft -i` process that owns the stack's table. A table made with `flags owner` lives
// exactly as long as the netlink socket that made it: when this process ends — the stack stops,
// the runner is killed and the pipe to nft's stdin closes, nft itself is killed — the kernel
// deletes the table and every cut in it. No fault can outlive the stack that made it.
//
// Commands go in as lines; each line is one nft run, so `;`-separated commands on one line are one
// transaction. After each line the session lists the table's empty `sync` chain: its answer, or
// the error that quotes that command, marks where the line's own output (errors) ends.

import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { CHAINS, checkTableName } from "./network";

export class NftError extends Error {
  override name = "NftError";
}

export interface NftSessionOptions {
  /** The nft binary. @default "nft" */
  readonly nft: string;
  /** How long one command may take before the session gives up on nft. @default 5000 */
  readonly commandTimeoutMs: number;
}

export const DEFAULT_NFT_SESSION_OPTIONS: NftSessionOptions = Object.freeze({ nft: "nft", commandTimeoutMs: 5000 });

/** Where nft is, or null: root's PATH has /usr/sbin, a user's may not. */
export function findNft(): string | null {
  for (const candidate of ["nft", "/usr/sbin/nft", "/sbin/nft"]) {
    const probe = spawnSync(candidate, ["--version"], { encoding: "utf8", timeout: 5000 });
    if (probe.status === 0) return candidate;
  }
  return null;
}

/**
 * Deletes a table of this name left by an nft that is gone (an owner table cannot be: the
 * kernel removed it). Another live process's owner table is refused by the kernel: then another
 * stack holds it, which the error says.
 */
export function deleteStaleTable(table: string, nft = DEFAULT_NFT_SESSION_OPTIONS.nft): void {
  const listed = spawnSync(nft, ["list", "table", "inet", checkTableName(table)], { encoding: "utf8", timeout: 5000 });
  if (listed.status !== 0) return; // no such table
  const deleted = spawnSync(nft, ["delete", "table", "inet", table], { encoding: "utf8", timeout: 5000 });
  if (deleted.status !== 0) {
    throw new NftError(
      `nft table inet ${table} exists and cannot be deleted (${deleted.stderr.trim().split("\n")[0]}): another stack's runner holds it; stop that stack first`,
    );
  }
}

interface Pending {
  readonly marker: RegExp;
  readonly resolve: (output: string) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class NftSession {
  private output = "";
  private pending: Pending | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private exitInfo: string | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    readonly table: string,
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly opts: NftSessionOptions,
  ) {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.onOutput(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => this.onOutput(chunk));
    child.stdin.on("error", () => undefined); // EPIPE after nft died: reported through exitInfo
    this.exited = new Promise((resolve) => {
      const done = (why: string) => {
        this.exitInfo ??= why;
        this.pending?.reject(new NftError(`nft ended (${this.exitInfo}) while running a command`));
        resolve();
      };
      child.once("exit", (code, signal) => done(signal ? `killed by ${signal}` : `exit code ${code}`));
      child.once("error", (err) => done(err.message));
    });
  }

  /**
   * Starts `nft -i` and creates the table with `setup` (commands for one transaction, the table's
   * own `add table … { flags owner; }` among them). Rejects if nft cannot start or refuses them.
   */
  static async open(table: string, setup: string, options: Partial<NftSessionOptions> = {}): Promise<NftSession> {
    const opts = { ...DEFAULT_NFT_SESSION_OPTIONS, ...options };
    checkTableName(table);
    // Its own process group: a Ctrl-C meant for the runner must not end it before the stack has
    // stopped its servers (the runner ends it last, or its death closes nft's stdin).
    const child = spawn(opts.nft, ["-i"], { stdio: ["pipe", "pipe", "pipe"], detached: true });
    const session = new NftSession(table, child, opts);
    try {
      await session.run(setup);
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  /** nft is running, so the table and its cuts exist. */
  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** Why nft is gone, once it is. */
  get exitReason(): string | null {
    return this.exitInfo;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs one line of commands (one transaction); rejects with nft's error text. One at a time. */
  run(commands: string): Promise<void> {
    if (/[\r\n]/.test(commands)) return Promise.reject(new NftError("one line of commands at a time (use ; between commands)"));
    const step = this.queue.then(() => this.runNow(commands));
    this.queue = step.catch(() => undefined);
    return step;
  }

  private runNow(commands: string): Promise<void> {
    if (!this.alive) return Promise.reject(new NftError(`nft is not running (${this.exitInfo})`));
    const syncCommand = `list chain inet ${this.table} ${CHAINS.sync}`;
    // Either the sync chain's listing (the table exists) or nft's quote of the failed sync command.
    const escaped = syncCommand.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const marker = new RegExp(`chain ${CHAINS.sync} \\{\\n\\s*\\}\\n\\}\\n|^${escaped}\\n`, "m");
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        reject(new NftError(`nft did not answer within ${this.opts.commandTimeoutMs} ms`));
      }, this.opts.commandTimeoutMs);
      this.pending = { marker, resolve, reject, timer };
      this.output = "";
      this.child.stdin.write(`${commands}\n${syncCommand}\n`);
    }).then((output) => {
      // Only errors print before the sync chain's listing; with no table there is no listing, and
      // the sync command's own error (the table is gone) is an error of this run too.
      const errors = output.replace(/^table inet [\s\S]*$/m, "");
      if (/^Error:/m.test(errors)) throw new NftError(errors.trim());
    });
  }

  private onOutput(chunk: string): void {
    this.output += chunk;
    const pending = this.pending;
    if (!pending) return;
    const match = pending.marker.exec(this.output);
    if (!match) return;
    clearTimeout(pending.timer);
    this.pending = null;
    const output = this.output.slice(0, match.index + match[0].length);
    this.output = this.output.slice(match.index + match[0].length);
    pending.resolve(output);
  }

  /** Ends nft (the kernel drops the table) and waits for it to exit. */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.alive) this.child.stdin.end();
    const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs).unref());
    if ((await Promise.race([this.exited, timer])) === "timeout") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}
