# Sourced after toolchain.sh: installs the workspace's dependencies when package.json files or yarn.lock changed
# since the last install (a hash in node_modules), so a re-run costs nothing. CI installs from the lockfile only.
# shellcheck shell=bash
capz_install_deps() {
  local stamp="$CAPZ_ROOT/node_modules/.capz-install-hash" hash
  hash=$(cd "$CAPZ_ROOT" && cat yarn.lock package.json packages/*/package.json plugins/*/package.json .yarnrc.yml | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then return 0; fi
  capz_log "installing dependencies (yarn install)"
  if [ -n "${CI:-}" ]; then (cd "$CAPZ_ROOT" && yarn install --immutable) >&2; else (cd "$CAPZ_ROOT" && yarn install) >&2; fi
  echo "$hash" > "$stamp"
}
