#!/bin/sh
set -eu
ls -la /workspace
