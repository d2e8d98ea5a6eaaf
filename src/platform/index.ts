export { type Clock, systemClock, systemTimers, type Timers } from "./time";
