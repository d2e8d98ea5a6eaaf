import { z } from "zod";

/** A content-addressed cache operation. */
export const CacheEvent = z.object({
  kind: z.literal("cache.event"),
  op: z.enum(["hit", "miss", "put", "corrupt", "evict", "clear", "quota", "verify"]),
  sha256: z.string().nullable(),
  bytes: z.number().int().nonnegative(),
  url: z.string().optional(),
  message: z.string().optional(),
});

export const cacheEvents = [CacheEvent] as const;
