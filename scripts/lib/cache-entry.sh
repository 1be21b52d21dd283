# Sourced by every script that writes an entry of the shared machine cache ($CAPZ_CACHE_DIR): the Kubernetes
# binaries, clusterctl, the managers, controller-gen and ASO's CRDs, Gitea, Node. Two callers of one entry (the demo
# and the test command started together, or two checkouts on one machine) must not build into the same folder: each
# entry has a lock file beside it (flock(1), released when the holder exits, however it exits); the second caller
# says it waits, then finds the entry complete and reuses it. A build goes into a temporary folder of its own and is
# moved into place with one rename(2) on the same filesystem, so a reader never sees half an entry.
# shellcheck shell=bash

# cache_entry_lock ENTRY WHO: holds ENTRY's lock on file descriptor 9 until the script exits (or the next call).
cache_entry_lock() {
  local entry=$1 who=$2 s
  mkdir -p "$(dirname "$entry")"
  exec 9>"$entry.lock"
  if ! flock -n 9; then
    s=$(date +%s)
    echo "$who: another process is building $(basename "$entry"); waiting for it (lock $entry.lock)" >&2
    flock 9
    echo "$who: waited $(( $(date +%s) - s ))s for the other build of $(basename "$entry")" >&2
  fi
}

# cache_entry_tmp ENTRY: prints a new empty folder beside ENTRY for a build to fill. Called with the lock held, so
# what a killed build left behind (ENTRY.tmp.*) is no one's and is removed first.
cache_entry_tmp() {
  rm -rf "$1".tmp.*
  mktemp -d "$1.tmp.XXXXXX"
}

# cache_entry_publish TMP ENTRY: puts the finished TMP folder in ENTRY's place (with the lock held).
cache_entry_publish() {
  rm -rf "$2"
  mv -T "$1" "$2"
}

# cache_entry_unlock: lets the lock go before the script ends (for a script that is sourced and goes on).
cache_entry_unlock() { exec 9>&-; }

# cpu_time VAR COMMAND...: runs COMMAND with this script's stdout and stderr, and sets VAR to the CPU time its
# processes took ("N s user + M s system CPU", bash's `time`, which counts the children it waited for): what a build
# costs whatever else shares the machine, where its wall time only says how busy the machine was.
cpu_time() {
  local -n cpu_time_out=$1
  shift
  local TIMEFORMAT='%U s user + %S s system CPU' rc=0
  exec 5>&1 6>&2
  cpu_time_out=$( { time "$@" 1>&5 2>&6; } 2>&1) || rc=$?
  exec 5>&- 6>&-
  return "$rc"
}
