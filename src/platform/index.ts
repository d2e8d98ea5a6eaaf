export { type Deferred, deferred } from "./deferred";
export { type Clock, systemClock, systemTimers, type Timers } from "./time";
export { withinTime } from "./within-time";
