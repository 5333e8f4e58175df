import { z } from "zod";
import { FAULT_POINTS } from "./faults";
import { CLUSTER_SERVICES, MEMBER_OPS } from "./members";

const node = z.number().int().min(1).max(16);
const app = z.number().int().min(1).max(16);

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
]);
export type FaultAction = z.infer<typeof faultActionSchema>;
