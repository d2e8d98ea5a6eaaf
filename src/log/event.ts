import { z } from "zod";
import { cacheEvents } from "./events/cache";
import { Stamp } from "./events/common";
import { guestEvents } from "./events/guest";
import { kernelDecisionEvents } from "./events/kernel-decision";
import { kmsEvents } from "./events/kms";
import { lessonEvents } from "./events/lesson";
import { policyEvents } from "./events/policy";
import { proxyEvents } from "./events/proxy";
import { resolverEvents } from "./events/resolver";
import { runnerEvents } from "./events/runner";
import { sessionEvents } from "./events/session";
import { skillsEvents } from "./events/skills";
import { tlsEvents } from "./events/tls";
import { wireEvents } from "./events/wire";

/** Every kind of event, without the stamp the log adds: what producers append. */
export const NewEvent = z.discriminatedUnion("kind", [
  ...wireEvents,
  ...proxyEvents,
  ...policyEvents,
  ...tlsEvents,
  ...resolverEvents,
  ...cacheEvents,
  ...guestEvents,
  ...kernelDecisionEvents,
  ...skillsEvents,
  ...kmsEvents,
  ...sessionEvents,
  ...runnerEvents,
  ...lessonEvents,
]);
export type NewEvent = z.infer<typeof NewEvent>;

/** An event as it sits on the log: the producer's fields plus `seq` and `time`. */
export const LogEvent = z.intersection(Stamp, NewEvent);
export type LogEvent = z.infer<typeof LogEvent>;

export type EventKind = NewEvent["kind"];
export type EventOf<K extends EventKind> = Extract<LogEvent, { kind: K }>;
