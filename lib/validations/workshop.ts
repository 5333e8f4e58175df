import { z } from "zod";
import { STRATEGY_NAMES } from "../locks/strategies";

/**
 * A display name in workshop mode: shown on the projector to the whole room, so letters, digits,
 * spaces and a little punctuation, 1–24 characters; no markup, no control characters, no towers
 * of combining marks.
 */
export const displayNameSchema = z
  .string()
  .trim()
  .min(1, "type a name")
  .max(24, "24 characters at most")
  .transform((name) => name.normalize("NFC"))
  .pipe(
    z
      .string()
      .regex(/^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._'-]*$/u, "letters, digits, spaces and . _ ' - only, starting with a letter or digit")
      // Thai and Vietnamese stack two marks on a letter; more is a tower over the projector's other names.
      .refine((name) => !/\p{M}{3}/u.test(name), "at most two accents on one letter"),
  );

/** `POST /api/workshop/join`: the name a student types once. */
export const joinCreateSchema = z.object({ name: displayNameSchema }).strict();
export type JoinCreate = z.infer<typeof joinCreateSchema>;

/** `POST /api/admin/drop`: a new drop of `stock` units after a countdown, under a strategy. */
export const dropCreateSchema = z
  .object({
    stock: z.number().int().min(1).max(10_000),
    countdownS: z.number().int().min(0).max(600).default(10),
    onePerBuyer: z.boolean().default(false),
    strategy: z.enum(STRATEGY_NAMES).optional(),
    workMs: z.number().int().min(0).max(60_000).optional(),
  })
  .strict();
export type DropCreate = z.infer<typeof dropCreateSchema>;
