#!/bin/sh
echo "hello from $(uname -sr)"
