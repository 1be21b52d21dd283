# shellcheck shell=bash
# What a group of tests left running under a state directory of its own (CAPZ_STATE_DIR), stopped. The management
# clusters, managers, Flux and simulated Azure the tests start live under it: etcd, kube-apiserver and
# kube-controller-manager name their data and certificates on their command lines, the managers their
# --webhook-cert-dir; each leads a process group of its own, so a Jest or node:test stopped before its hooks ran (a
# test that timed out, the test command stopped) would leave them running. The caller's own process group (a process
# the tests started without detaching it) gets the signal alone: the group would include the caller.
state_left_behind() { pgrep -f -- "$1/" || true; }
sweep_state() { # sweep_state DIR: stops what runs from DIR and removes it; returns 1 when something was running
  local dir=$1 pids; pids=$(state_left_behind "$dir")
  [ -n "$pids" ] || { rm -rf "$dir"; return 0; }
  echo "processes left behind under $dir (stopped now):" >&2
  ps -o pid=,pgid=,args= -p "$(echo "$pids" | paste -sd,)" | cut -c1-240 >&2 || true
  local own pid pgid sig _; own=$(ps -o pgid= -p "$BASHPID" | tr -d ' ')
  for sig in TERM KILL; do
    for pid in $(state_left_behind "$dir"); do
      pgid=$(ps -o pgid= -p "$pid" | tr -d ' ') || continue
      if [ -n "$pgid" ] && [ "$pgid" != "$own" ]; then kill -"$sig" -- -"$pgid" 2>/dev/null || true
      else kill -"$sig" "$pid" 2>/dev/null || true; fi
    done
    for _ in $(seq 1 50); do [ -z "$(state_left_behind "$dir")" ] && break; sleep 0.2; done
  done
  rm -rf "$dir"
  return 1
}
# run_swept DIR WHAT LOG COMMAND...: COMMAND with CAPZ_STATE_DIR=DIR (emptied first) and its output to LOG (`-`: where
# the caller's goes), then DIR swept. Fails when COMMAND failed or left processes running (WHAT names it then): one
# shape for every group of tests that starts clusters (the backend's integration suites, the lane's parts).
run_swept() {
  local dir=$1 what=$2 log=$3 rc=0; shift 3
  rm -rf "$dir" && mkdir -p "$dir"
  if [ "$log" = - ]; then CAPZ_STATE_DIR="$dir" "$@" || rc=$?
  else CAPZ_STATE_DIR="$dir" "$@" > "$log" 2>&1 || rc=$?; fi
  sweep_state "$dir" ||
    { echo "$what left processes running: a failed or timed-out test must stop what it started" >&2; rc=1; }
  return "$rc"
}
