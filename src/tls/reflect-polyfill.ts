/**
 * Installs reflect-metadata, which @peculiar/x509's dependency injection (tsyringe) checks for
 * as it loads. An ES module of its own, imported by ca.ts before the X.509 library: a bundle
 * then runs it first. Imported there as a CommonJS package directly, the page's bundle could
 * run the library first and fail (vite.config.ts keeps this module's side effect).
 */
import "reflect-metadata";
