// The emulated machine the guest runs on, shared by the hosts that run v86: the page's worker,
// the Node host (npx tab lesson test) and the build (scripts/make-guest-state.ts): the machine's
// options, its image files, its share, its control line, freshening a restored state, and how a
// download of it goes.
export * from "./download-meter";
export * from "./fresh-guest";
export * from "./guest-control";
export * from "./guest-control-check";
export * from "./image-files";
export * from "./machine";
export * from "./raw-state";
export * from "./share-fs";
