import { z } from "zod";
import { check } from "../validations/checks";
import { FAULT_POINTS } from "./faults";
import { CLUSTER_SERVICES, MEMBER_OPS } from "./members";

const node = z.number().int().min(1).max(16);
/** A Redis node whose clock the instructor may move: any but node 1, the store's (see `clock` below). */
const lockNode = node.refine((n) => n !== 1, check("clock_store_node"));
const app = z.number().int().min(1).max(16);
/** A client or server of a link as the stack runner names them: app-1, redis-3, zookeeper-2-peer, primary… */
const linkName = z.string().regex(/^[a-z][a-z0-9-]{0,40}$/, "a link end such as app-1, redis-3, sentinel-2, zookeeper-1, etcd-3-peer, postgres");
export const CUT_DIRECTIONS = ["both", "to-server", "to-client"] as const;

/** `POST /api/admin/faults`: one fault to inject or undo. */
export const faultActionSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("stop-redis"), node }).strict(),
  z.object({ action: z.literal("start-redis"), node }).strict(),
  z.object({ action: z.literal("pause-app"), app }).strict(),
  z.object({ action: z.literal("resume-app"), app }).strict(),
  z.object({ action: z.literal("kill-app"), app }).strict(),
  z.object({ action: z.literal("set-delay"), point: z.enum(FAULT_POINTS), ms: z.number().int().min(1).max(60_000), times: z.number().int().min(1).max(1000).optional() }).strict(),
  z.object({ action: z.literal("clear-delay"), point: z.enum(FAULT_POINTS) }).strict(),
  z.object({ action: z.literal("member"), service: z.enum(CLUSTER_SERVICES), member: node, op: z.enum(MEMBER_OPS) }).strict(),
  /** A grudge: the cuts in force from now on, replacing any before (the stack runner names the links). */
  z.object({
    action: z.literal("grudge"),
    cuts: z.array(z.object({ client: linkName, server: linkName, direction: z.enum(CUT_DIRECTIONS).default("both") }).strict()).min(1).max(200),
  }).strict(),
  z.object({ action: z.literal("heal") }).strict(),
  /**
   * A Redis node's wall clock: jump it (s, either way), make it run fast or slow, or put it back. Not
   * node 1's from here: it holds the store's own state, whose expiries (sessions, joins, rate
   * windows) its clock drives; the lab's cards move it themselves, for seconds, while a lock is held.
   */
  z.object({ action: z.literal("clock"), node: lockNode, jumpS: z.number().int().min(-86_400).max(86_400).refine((s) => s !== 0, check("clock_jump_zero")) }).strict(),
  z.object({ action: z.literal("clock-rate"), node: lockNode, rate: z.number().min(0.1).max(10) }).strict(),
  z.object({ action: z.literal("clock-reset"), node }).strict(),
]);
export type FaultAction = z.infer<typeof faultActionSchema>;
