export { type CacheEntry, type Cas, type CasOptions, type CasRead, createCas, type VerifyReport } from "./cas";
export { type CasCheck, type CasContractOptions, casContractChecks } from "./contract";
export { createIdbStore } from "./idb-store";
export { createMemoryStore } from "./memory-store";
export { CasQuotaError, type CasStore, type CasTable, casUri, EntryRecord, isQuotaError, SHA256_HEX, UrlRecord } from "./store";
