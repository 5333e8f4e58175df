/** Types for scripts/apt-install.mjs, so TypeScript callers (its tests) can import it. */
export declare const POLICY_RC_D: string;
export declare function processStart(pid: number): string | null;
export declare function policyText(pid?: number, start?: string): string;
export declare function policyOwner(text: string): { pid: number; start: string | null } | null;
export declare function removeLeftoverPolicy(policyPath?: string): "none" | "foreign" | "in-use" | "removed";
export declare class AptError extends Error {}
export declare function installWithoutStartingServices(
  packages: readonly string[],
  options?: { policyPath?: string; env?: NodeJS.ProcessEnv },
): Promise<void>;
