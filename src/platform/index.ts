export { type Deferred, deferred } from "./deferred";
export { createEmitter, type Emitter, type EmitterOptions, reportLater } from "./emitter";
export { messageOf } from "./message-of";
export { createSerialQueue, type SerialQueue } from "./serial-queue";
export { type Clock, systemClock, systemTimers, type Timers } from "./time";
export { withinTime } from "./within-time";
