#!/bin/sh
# The result must be an object with a string "summary" (schemas/result.json). The guest is
# busybox (no JSON parser), so this checks exactly the shape the schema requires.
set -eu
grep -Eq '^[[:space:]]*[{][[:space:]]*"summary"[[:space:]]*:[[:space:]]*"' "$1"
