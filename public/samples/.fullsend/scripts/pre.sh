#!/bin/sh
set -eu
mkdir -p /workspace
