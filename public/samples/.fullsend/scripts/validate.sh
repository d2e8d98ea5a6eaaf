#!/bin/sh
set -eu
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"
