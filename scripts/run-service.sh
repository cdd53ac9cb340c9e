#!/bin/sh
# Runs one service's bundle (dist/<service>.js, from `npm run build`) with the memory settings that
# `npm start`, the bench and the Docker image share; they lower each service's peak memory with
# throughput unchanged (docs/adr/0023-process-memory-settings.md):
# - V8 sizes a heap by the machine's memory and lets it grow to ~4x what survives a full GC before
#   collecting; our services keep little alive, so GC when the heap is 1.25x that, from 64 MiB.
# - glibc keeps freed memory in per-thread arenas and raises its mmap threshold after a large free,
#   so scrypt's 16 MiB buffers (identity) stayed resident; two arenas and a fixed threshold return them.
# PROFILE_ARGS: extra node flags for one investigation, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
# (node refuses --cpu-prof in NODE_OPTIONS); unset, nothing changes.
set -e
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
# shellcheck disable=SC2086 # PROFILE_ARGS is a list of flags
exec "${NODE:-node}" $PROFILE_ARGS --enable-source-maps --max-semi-space-size=8 --initial-old-space-size=64 \
  --heap-growing-percent=25 "$(dirname "$0")/../dist/$1.js"
