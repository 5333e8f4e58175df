import { z } from "zod";

/** `POST /api/admin/session`: the admin password, nothing else. */
export const sessionCreateSchema = z.object({ password: z.string().min(1).max(256) }).strict();
export type SessionCreate = z.infer<typeof sessionCreateSchema>;
